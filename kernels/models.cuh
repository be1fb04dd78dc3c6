/* Models shaped like the paper's workloads, built from layers.cu with random
 * weights at 224x224: ResNet-50 (bottleneck residual blocks), VGG-16 and
 * DenseNet-121.  Nothing is downloaded.  All memory is allocated at creation;
 * running a model only launches kernels on the given stream. */
#ifndef SMTOP_MODELS_CUH
#define SMTOP_MODELS_CUH

#include <stddef.h>
#include <cuda_runtime.h>

enum model_kind { MODEL_RESNET, MODEL_VGG, MODEL_DENSENET };

struct model;

int model_kind_parse(const char *s, enum model_kind *kind);
const char *model_kind_name(enum model_kind kind);

/* training 0: inference only (batch-norm uses running statistics, no
 * gradient memory); 1: also forward+backward+SGD. Exits on CUDA errors. */
struct model *model_create(enum model_kind kind, int batch, int training, unsigned seed);
void model_forward(struct model *m, cudaStream_t st);
void model_train_step(struct model *m, cudaStream_t st, float lr);
/* Synchronises st and checks the class probabilities: finite and summing to
 * one per image.  Returns 0 when they are, -1 (with one line on stderr) if not. */
int model_verify(struct model *m, cudaStream_t st);
void model_destroy(struct model *m);

int model_ops(const struct model *m);
size_t model_params(const struct model *m);
size_t model_bytes(const struct model *m);

#endif
