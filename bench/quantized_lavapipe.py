#!/usr/bin/env python3
"""Quantized MobileNetV2 (torchvision, random weights, BatchNorm statistics and calibration from
random data, qnnpack qconfig, convert_fx) at one input size: univk's int8 program (one
VgfBackend call), univk's fp32 program of the float model, and PyTorch's quantized CPU kernels
and float model on `--threads` threads. Prints median latencies (docs/PERFORMANCE.md).

    PYTHONPATH=build/python /usr/bin/python3 bench/quantized_lavapipe.py --size 64 --iterations 5
"""

import argparse
import statistics
import time

import torch
import torchvision
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

import univk


def median_ms(fn, x, warmup, iterations):
    for _ in range(warmup):
        fn(x)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        fn(x)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.backends.quantized.engine = "qnnpack"
    shape = (args.batch, 3, args.size, args.size)

    torch.manual_seed(0)
    model = torchvision.models.mobilenet_v2()
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(8, *shape[1:]))
    model.eval()
    prepared = prepare_fx(model, get_default_qconfig_mapping("qnnpack"), (torch.randn(shape),))
    with torch.no_grad():
        for _ in range(8):
            prepared(torch.randn(shape))
    quantized = convert_fx(prepared)

    x = torch.randn(shape)
    int8 = univk.export(quantized, (x,), require_no_cpu_fallback=True).load_method()
    fp32 = univk.export(model, (x,)).load_method()
    with torch.no_grad():
        rows = [("univk int8 (VgfBackend, fused)", median_ms(int8, x, args.warmup, args.iterations)),
                ("univk fp32 (default partition, fused)", median_ms(fp32, x, args.warmup, args.iterations)),
                (f"PyTorch quantized (qnnpack, {args.threads} thread)",
                 median_ms(quantized, x, args.warmup, args.iterations)),
                (f"PyTorch fp32 eager ({args.threads} thread)", median_ms(model, x, args.warmup, args.iterations))]
    print(f"MobileNetV2 {list(shape)}, median of {args.iterations} after {args.warmup} warm-up runs")
    for name, ms in rows:
        print(f"  {name}: {ms:.1f} ms")


if __name__ == "__main__":
    main()
