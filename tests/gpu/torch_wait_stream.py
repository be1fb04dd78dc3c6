"""Streams that synchronize through events, for the ready-time tests
(make test-gpu section waits).  A priority 0 stream multiplies large
matrices; a priority -5 stream waits for it (torch.cuda.Stream.wait_stream,
a cudaEventRecord + cudaStreamWaitEvent) and applies a small op to the
result; the low stream then waits for the high one (wait_event) before its
next round.  The high stream's kernels are launched long before their input
is ready: an analysis that read only the launch call would blame the
matrix product for every one of them (a resident priority inversion).

  python3 tests/gpu/torch_wait_stream.py [--rounds N] [--size N]

Prints "key: value" lines: rounds, high_kernels_per_round.
"""
import argparse

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--size", type=int, default=4096)
    args = ap.parse_args()
    lo = torch.cuda.Stream(priority=0)
    hi = torch.cuda.Stream(priority=-5)
    x = torch.randn(args.size, args.size, device="cuda")
    w = torch.randn(args.size, args.size, device="cuda")
    torch.cuda.synchronize()
    done = torch.cuda.Event()
    for _ in range(args.rounds):
        with torch.cuda.stream(lo):
            y = x @ w
            y = y @ w
        hi.wait_stream(lo)
        with torch.cuda.stream(hi):
            z = torch.relu(y)
            z.mul_(0.5)
            done.record(hi)
        lo.wait_event(done)
        with torch.cuda.stream(lo):
            x = z + x
    torch.cuda.synchronize()
    print(f"rounds: {args.rounds}")
    print("high_kernels_per_round: 2")


if __name__ == "__main__":
    main()
