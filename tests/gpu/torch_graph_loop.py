#!/usr/bin/env python3
"""ResNet-18 batch-16 inference steps launched eagerly and replayed as one
CUDA graph, for section dormant_graph: under `smtop launch` (the collector
dormant) against plain, a cost that only the eager steps pay is the launch
calls'; one the replay pays too is the graph launch's callbacks or slower
kernels.  Prints one line: eager_ms=... graph_ms=... (medians of 300).
"""
import statistics, sys, time
import torch, torchvision
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True
m = torchvision.models.resnet18(weights=None).eval().cuda()
x = torch.randn(16, 3, 224, 224, device="cuda")
def timed(step, n=300):
    t = []
    for _ in range(n):
        t0 = time.perf_counter(); step(); torch.cuda.synchronize(); t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t)
with torch.no_grad():
    for _ in range(10): m(x)
    torch.cuda.synchronize()
    eager = timed(lambda: m(x))
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3): m(x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = m(x)
    graph = timed(g.replay)
print(f"eager_ms={eager:.4f} graph_ms={graph:.4f}", flush=True)
