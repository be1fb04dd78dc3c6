// A branching CUDA graph beside low-priority work, for the graph-edge
// ready times (make test-gpu section waits).  The graph, built node by node,
// instantiated LAUNCHES times and each instance launched once on a
// high-priority stream (a replayed instance runs its kernels with the same
// grid ids every time, and blocks carry nothing else to tell the replays
// apart):
//
//   M (memset) -> A (1 block) -> B (1 block, B_NS)              -> E (join)
//                             -> C (FULL blocks) -> X (empty) -> D (FULL) -/
//
// while a low-priority stream keeps every SM full of FILL_NS blocks.  C and
// D wait for SMs behind the low-priority blocks (real inversions); B, on the
// other branch, often ends during their wait, so reading "a kernel of the
// graph that ended before it started" as C's or D's dependency would cut
// their waits short.  The edges say what each node waited for.
//
//   build/smtop record -o graph-branch.smtop -- build/gpu/graph_branch
//
// Prints "key: value" lines: launches, nodes, kernels, blocks, the first
// kernel's dynamic shared memory, and the graph kernels' count and theirs.
#include <cuda_runtime.h>
#include <stdio.h>
#include <unistd.h>

#include "tests/gpu/smoke_spin.cuh"

#define LAUNCHES 20
#define GAP_US 3000
#define FULL 132
#define THREADS 128
#define A_NS 20000ull
#define B_NS 100000ull
#define CD_NS 50000ull
#define FILL_BLOCKS (2 * 132)
#define FILL_THREADS 1024
#define FILL_NS 500000ull
#define FILL_LAUNCHES 150
#define WARM_SMEM 4096
#define NODE_SMEM 2048 /* every kernel node's, which no launch call carries */

static cudaGraphNode_t add_spin(cudaGraph_t g, const cudaGraphNode_t *deps, size_t n, unsigned blocks,
				unsigned long long *ns, int **sink)
{
	cudaGraphNode_t node;
	void *args[] = { ns, sink };
	cudaKernelNodeParams p = {};

	p.func = (void *)smoke_spin;
	p.gridDim = dim3(blocks);
	p.blockDim = dim3(THREADS);
	p.sharedMemBytes = NODE_SMEM;
	p.kernelParams = args;
	CK(cudaGraphAddKernelNode(&node, g, deps, n, &p));
	return node;
}

int main(void)
{
	int lo, hi;
	cudaStream_t low, high;
	cudaGraph_t g;
	cudaGraphExec_t exec[LAUNCHES];
	cudaGraphNode_t m, a, b, c, x, d, join[2];
	int *sink, *scratch;
	static unsigned long long a_ns = A_NS, b_ns = B_NS, cd_ns = CD_NS;

	CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
	CK(cudaStreamCreateWithPriority(&low, cudaStreamNonBlocking, lo));
	CK(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, hi));
	CK(cudaMalloc((void **)&sink, sizeof(int)));
	CK(cudaMalloc((void **)&scratch, 1 << 20));
	CK(cudaMemset(sink, 0, sizeof(int)));
	/* a plain launch first: the module's tracer ring is set at it (its
	 * dynamic shared memory, unused, shows in its kernel record) */
	smoke_spin<<<1, THREADS, WARM_SMEM, high>>>(1000, sink);
	CK_LAUNCH();
	CK(cudaDeviceSynchronize());

	CK(cudaGraphCreate(&g, 0));
	cudaMemsetParams ms = {};
	ms.dst = scratch;
	ms.value = 0;
	ms.elementSize = 1;
	ms.width = 1 << 20;
	ms.height = 1;
	CK(cudaGraphAddMemsetNode(&m, g, NULL, 0, &ms));
	a = add_spin(g, &m, 1, 1, &a_ns, &sink);
	b = add_spin(g, &a, 1, 1, &b_ns, &sink);
	c = add_spin(g, &a, 1, FULL, &cd_ns, &sink);
	CK(cudaGraphAddEmptyNode(&x, g, &c, 1));
	d = add_spin(g, &x, 1, FULL, &cd_ns, &sink);
	join[0] = b;
	join[1] = d;
	add_spin(g, join, 2, 1, &a_ns, &sink); /* E */
	for (int i = 0; i < LAUNCHES; i++)
		CK(cudaGraphInstantiate(&exec[i], g, 0));

	for (int i = 0; i < FILL_LAUNCHES; i++) {
		smoke_spin<<<FILL_BLOCKS, FILL_THREADS, 0, low>>>(FILL_NS, sink);
		CK_LAUNCH();
	}
	for (int i = 0; i < LAUNCHES; i++) {
		CK(cudaGraphLaunch(exec[i], high));
		usleep(GAP_US);
	}
	CK(cudaDeviceSynchronize());
	printf("launches: %d\nnodes: 7\nwarm_dynamic_smem: %d\ngraph_kernels: %d\ngraph_dynamic_smem: %d\n"
	       "kernels: %d\nblocks: %d\n", LAUNCHES, WARM_SMEM, 5 * LAUNCHES, NODE_SMEM,
	       1 + 5 * LAUNCHES + FILL_LAUNCHES,
	       1 + (3 + 2 * FULL) * LAUNCHES + FILL_BLOCKS * FILL_LAUNCHES);
	for (int i = 0; i < LAUNCHES; i++)
		CK(cudaGraphExecDestroy(exec[i]));
	CK(cudaGraphDestroy(g));
	CK(cudaStreamDestroy(low));
	CK(cudaStreamDestroy(high));
	CK(cudaFree(scratch));
	CK(cudaFree(sink));
	return 0;
}
