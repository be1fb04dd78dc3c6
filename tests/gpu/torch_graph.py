"""A PyTorch CUDA graph with two branches, for the graph-edge tests (make
test-gpu section graphs).  Captured on a side stream: a matrix product on
the capture stream forks onto a second stream (a branch of its own in the
graph, joined back through events), each branch a few ops, then a join.
Instantiated once per replay set (torch.cuda.CUDAGraph), replayed --replays
times on a priority -5 stream beside a priority 0 stream of matrix products.

  python3 tests/gpu/torch_graph.py [--replays N] [--size N]

Prints "key: value" lines: replays, graph_kernels_per_replay.
"""
import argparse

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--size", type=int, default=2048)
    args = ap.parse_args()
    n = args.size
    x = torch.randn(n, n, device="cuda")
    w1 = torch.randn(n, n, device="cuda")
    w2 = torch.randn(n, n, device="cuda")
    side = torch.cuda.Stream()

    def step():
        a = x @ w1
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            b = torch.relu(a) @ w2
        c = torch.sigmoid(a) * 2.0
        torch.cuda.current_stream().wait_stream(side)
        return b + c

    warm = torch.cuda.Stream()
    warm.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(warm):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(warm)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = step()
    torch.cuda.synchronize()
    hi = torch.cuda.Stream(priority=-5)
    lo = torch.cuda.Stream(priority=0)
    big = torch.randn(8192, 8192, device="cuda")
    with torch.cuda.stream(lo):
        for _ in range(args.replays * 2):
            big @ big
    with torch.cuda.stream(hi):
        for _ in range(args.replays):
            g.replay()
    torch.cuda.synchronize()
    print(f"replays: {args.replays}")
    print(f"out: {float(out.float().mean()):.3f}")


if __name__ == "__main__":
    main()
