#!/usr/bin/env python3
"""ResNet-18 inference steps for the alongside section of smtop's GPU tests:
a program that runs until told to stop, for `smtop launch` and `smtop record
--attach`, and a result to compare with a plain run.

  --stop FILE   : run until FILE exists (else --steps)
  --steps N     : timed steps when there is no --stop (default 300)
  --seconds S   : at most this long (default 90)

Prints "ready" once warmed up, then one line: the median ms per step, the
steps run, and a checksum of a fixed input's logits (deterministic
convolutions), which recording must not change.
"""
import argparse
import os
import statistics
import sys
import time

import torch
import torchvision


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stop")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=90)
    ap.add_argument("--batch", type=int, default=16)
    a = ap.parse_args()
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval().cuda()
    x = torch.randn(a.batch, 3, 224, 224, generator=torch.Generator().manual_seed(1)).cuda()
    with torch.no_grad():
        for _ in range(10):
            model(x)
        torch.cuda.synchronize()
        print("ready", flush=True)
        times, t_end = [], time.monotonic() + a.seconds
        while time.monotonic() < t_end:
            if a.stop and os.path.exists(a.stop):
                break
            if not a.stop and len(times) >= a.steps:
                break
            t0 = time.perf_counter()
            model(x)
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) * 1e3)
        checksum = model(x).double().sum().item()
    print(f"ms_per_step_median={statistics.median(times):.4f} steps={len(times)} checksum={checksum:.10e}",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
