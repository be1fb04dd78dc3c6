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

/* Inference models run a plan with batch norm, ReLU, bias and residual adds
 * folded into the convolutions (docs/kernels.md), unless switched off here;
 * training models always run the plain tape. */
void model_set_fusion(struct model *m, int on);
int model_fused(const struct model *m);
/* Kernels one model_forward launches as the model stands, and as counted
 * during the last one (0 before it). */
int model_forward_kernels(const struct model *m);
int model_last_forward_kernels(const struct model *m);
/* Kernels of a batch-1 inference request, from the host-side plan alone: no
 * CUDA call, so it runs without a GPU. */
int model_inference_kernels(enum model_kind kind, int fused);
/* Checks only: random batch-norm parameters and running statistics (folded
 * again) and random conv biases, so that the fused and the plain forward
 * pass differ if a fold or a fused epilogue is wrong. */
void model_randomize_affine(struct model *m, unsigned seed);
/* Synchronises st and copies the logits and the class probabilities
 * ([class][image]; either may be NULL); returns the number of values each. */
size_t model_outputs(struct model *m, cudaStream_t st, float *logits, float *probs);

int model_ops(const struct model *m);
size_t model_params(const struct model *m);
size_t model_bytes(const struct model *m);

#endif
