#!/usr/bin/env python3
"""PyTorch beside itself, for `smtop record --sm all` on the GPU machine:
ResNet-50 batch-1 inference on a priority -5 stream while ResNet-50 trains
(batch 32) on a priority 0 stream, then a torch.compile'd MLP in
"reduce-overhead" mode (Triton kernels replayed from a CUDA graph).

  --iters N   : inference/training iterations side by side (default 20)
  --profile   : wrap the whole run in torch.profiler (CUDA activities) and
                print its kernel count, to compare with smtop's
  --names F   : with --profile, write the profiler's kernel count by name to
                F (JSON), to compare kernel by kernel

Prints one line: inference ms median, kernel count (or -1)."""
import argparse
import collections
import json
import statistics
import sys
import time

import torch
import torchvision


def priority_stream(greatest):
    from cuda.bindings import runtime as cudart
    err, least, most = cudart.cudaDeviceGetStreamPriorityRange()
    err, s = cudart.cudaStreamCreateWithPriority(cudart.cudaStreamNonBlocking, most if greatest else least)
    assert err == cudart.cudaError_t.cudaSuccess, err
    return torch.cuda.ExternalStream(int(s))


def run(iters):
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False
    high, low = priority_stream(True), priority_stream(False)
    infer = torchvision.models.resnet50(weights=None).eval().cuda()
    train = torchvision.models.resnet50(weights=None).cuda()
    opt = torch.optim.SGD(train.parameters(), lr=0.01)
    xi = torch.randn(1, 3, 224, 224, device="cuda")
    xt = torch.randn(32, 3, 224, 224, device="cuda")
    yt = torch.randint(0, 1000, (32,), device="cuda")
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        with torch.cuda.stream(low):
            opt.zero_grad(set_to_none=True)
            torch.nn.functional.cross_entropy(train(xt), yt).backward()
            opt.step()
        t0 = time.perf_counter()
        with torch.cuda.stream(high), torch.no_grad():
            infer(xi)
        high.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
        low.synchronize()
    mlp = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).cuda()
    fast = torch.compile(mlp, mode="reduce-overhead")
    x = torch.randn(64, 1024, device="cuda")
    with torch.no_grad():
        for _ in range(8):
            fast(x)
    torch.cuda.synchronize()
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--names")
    a = ap.parse_args()
    kernels = -1
    if a.profile:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            times = run(a.iters)
        names = collections.Counter(e.name for e in prof.events()
                                    if e.device_type == torch.autograd.DeviceType.CUDA
                                    and not e.name.startswith(("Memcpy", "Memset")))
        kernels = sum(names.values())
        if a.names:
            with open(a.names, "w") as f:
                json.dump(names, f)
    else:
        times = run(a.iters)
    print(f"two-streams iters={a.iters} infer_ms_median={statistics.median(times):.3f} "
          f"profiler_kernels={kernels}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
