#!/usr/bin/env python3
"""The host's time to submit one PyTorch operator, per kind of operator, for
make test-gpu section dormant_ops: where a dormant collector's cost to a
launch-bound program lies (an elementwise kernel, a cuDNN convolution, a
cuBLAS matmul, a reduction, an allocation the caching allocator serves, a
stream query, an event record).

Each kind runs --ops times in a row without waiting for the GPU, in
--rounds batches; prints one line per kind: the median over batches of the
host's time per operator, in us.
"""
import argparse
import statistics
import time

import torch


def kinds(dev):
    a = torch.randn(64, 64, device=dev)
    b = torch.randn(64, 64, device=dev)
    x = torch.randn(1, 16, 14, 14, device=dev)
    conv = torch.nn.Conv2d(16, 16, 3, padding=1).to(dev)
    bn = torch.nn.BatchNorm2d(16).to(dev).eval()
    ev = torch.cuda.Event()
    s = torch.cuda.current_stream()
    with torch.no_grad():
        return {
            "add": lambda: a.add_(1.0),
            "relu": lambda: torch.relu(a),
            "matmul": lambda: a @ b,
            "conv": lambda: conv(x),
            "batchnorm": lambda: bn(x),
            "sum": lambda: a.sum(),
            "empty": lambda: torch.empty(4096, device=dev),
            "query": lambda: s.query(),
            "event": lambda: ev.record(s),
        }


def time_kind(fn, ops, rounds):
    per = []
    with torch.no_grad():
        for _ in range(rounds):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(ops):
                fn()
            per.append((time.perf_counter() - t0) * 1e6 / ops)
    torch.cuda.synchronize()
    return statistics.median(per)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ops", type=int, default=200)
    p.add_argument("--rounds", type=int, default=30)
    args = p.parse_args()
    dev = torch.device("cuda")
    ks = kinds(dev)
    for fn in ks.values():  # warm: cuDNN's and cuBLAS's choices, modules
        time_kind(fn, 20, 2)
    print(" ".join(f"{k}_us={time_kind(fn, args.ops, args.rounds):.2f}" for k, fn in ks.items()))


if __name__ == "__main__":
    main()
