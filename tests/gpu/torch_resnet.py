#!/usr/bin/env python3
"""ResNet-50 (random weights, torchvision) inference for smtop's GPU tests.

  --streams two : requests alternate between a priority -5 and a priority 0 stream
  --nvtx        : one NVTX range ("request N") around each timed iteration
  --profile     : wrap the run in torch.profiler (CUDA activities) and print its
                  kernel count, to cross-check smtop's count for the same loop
  --train       : time training steps (forward, backward, SGD step) instead

Prints one line: ms/iter median over the timed iterations, the median time
the host took to submit an iteration's work (before waiting for the GPU: a
cost there is the host's), and kernel counts.
"""
import argparse
import statistics
import sys
import time

import torch
import torchvision


def high_priority_stream():
    """PyTorch's own streams stop at priority -3; ask CUDA for its greatest."""
    from cuda.bindings import runtime as cudart
    err, least, greatest = cudart.cudaDeviceGetStreamPriorityRange()
    err, s = cudart.cudaStreamCreateWithPriority(cudart.cudaStreamNonBlocking, greatest)
    assert err == cudart.cudaError_t.cudaSuccess, err
    return torch.cuda.ExternalStream(int(s))


def build(batch):
    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None).eval()
    x = torch.randn(batch, 3, 224, 224)
    return model.cuda(), x.cuda()


def train_loop(model, x, iters, submits):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    y = torch.zeros(x.shape[0], dtype=torch.long, device=x.device)
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        submits.append((time.perf_counter() - t0) * 1e3)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def run_loop(model, x, iters, streams, submits, nvtx=False):
    times = []
    with torch.no_grad():
        for i in range(iters):
            s = streams[i % len(streams)]
            t0 = time.perf_counter()
            if nvtx:
                torch.cuda.nvtx.range_push(f"request {i}")
            with torch.cuda.stream(s):
                model(x)
            if nvtx:
                torch.cuda.nvtx.range_pop()
            submits.append((time.perf_counter() - t0) * 1e3)
            s.synchronize()
            times.append((time.perf_counter() - t0) * 1e3)
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--iters", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--streams", choices=["one", "two"], default="one")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--nvtx", action="store_true", help="one NVTX range per timed iteration")
    ap.add_argument("--train", action="store_true", help="time training steps")
    a = ap.parse_args()
    torch.backends.cudnn.benchmark = False
    if a.streams == "two":
        streams = [high_priority_stream(), torch.cuda.Stream(priority=0)]
    else:
        streams = [torch.cuda.Stream()]
    kernels = -1
    submits = []

    def whole_run():
        model, x = build(a.batch)
        if a.train:
            model.train()
            train_loop(model, x, a.warmup, [])
            return train_loop(model, x, a.iters, submits)
        run_loop(model, x, a.warmup, streams, [])
        torch.cuda.synchronize()
        t = run_loop(model, x, a.iters, streams, submits, a.nvtx)
        torch.cuda.synchronize()
        return t

    if a.profile:
        # The profiler sees the whole run, as smtop does, so the counts compare.
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            times = whole_run()
        kernels = sum(1 for e in prof.events()
                      if e.device_type == torch.autograd.DeviceType.CUDA
                      and not e.name.startswith(("Memcpy", "Memset")))
    else:
        times = whole_run()
    print(f"resnet50 batch={a.batch} streams={a.streams} iters={a.iters} "
          f"ms_per_iter_median={statistics.median(times):.3f} "
          f"submit_ms_median={statistics.median(submits):.3f} profiler_kernels={kernels}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
