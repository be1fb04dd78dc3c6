/* The one kernel of the module that tests/gpu/module_churn.cu loads and
 * unloads over and over: each block writes the round it ran in. */
extern "C" __global__ void churn_mark(int *out, int round)
{
	if (threadIdx.x == 0)
		out[blockIdx.x] = round;
}
