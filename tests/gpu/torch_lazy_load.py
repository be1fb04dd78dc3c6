"""First launches that load modules lazily, for the ready-time tests (make
test-gpu section waits).  A priority 0 stream keeps the GPU busy with
elementwise work while a priority -5 stream runs, for the first time in
the process, one op after another (normalisation, pooling, softmax,
activations, a scan).  CUDA loads each kernel's module inside its first
launch call (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2), which
can take milliseconds: the kernel cannot be ready before that call
returned, and the wait inside it is not the scheduler's.

  python3 tests/gpu/torch_lazy_load.py

Prints "key: value" lines: first_ops, module_loading.
"""
import os

import torch
import torch.nn.functional as F


def main():
    lo = torch.cuda.Stream(priority=0)
    hi = torch.cuda.Stream(priority=-5)
    big = torch.ones(256 << 20, device="cuda")
    img = torch.randn(8, 64, 56, 56, device="cuda")
    torch.cuda.synchronize()
    # about half a second of work, so the first launches below (their
    # modules load for tens of milliseconds in all) all meet it; fewer than
    # the launch queue holds (about a thousand), or the host would wait here
    # until the work drained
    with torch.cuda.stream(lo):
        for _ in range(800):
            big.add_(1.0)
    # ATen's own kernels: their first launch loads their module.  No cuDNN
    # or sorting op: their first call makes a handle or scratch memory and
    # waits for the GPU, which would let the busy stream drain first.
    ops = [
        lambda t: F.layer_norm(t, t.shape[-2:]),
        lambda t: F.max_pool2d(t, 2),
        lambda t: F.gelu(t),
        lambda t: F.softmax(t, dim=-1),
        lambda t: F.log_softmax(t, dim=-2),
        lambda t: F.silu(t),
        lambda t: torch.cumsum(t, dim=-1),
        lambda t: torch.sigmoid(t),
        lambda t: torch.tanh(t),
        lambda t: torch.clamp(t, -0.5, 0.5),
    ]
    with torch.cuda.stream(hi):
        t = img
        for op in ops:
            t = op(img)
    torch.cuda.synchronize()
    print(f"first_ops: {len(ops)}")
    print(f"module_loading: {os.environ.get('CUDA_MODULE_LOADING', 'LAZY (default)')}")


if __name__ == "__main__":
    main()
