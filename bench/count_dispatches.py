#!/usr/bin/env python3
"""Counts delegate calls, TOSA TRANSPOSE operators and dispatches per model and partition.

    PYTHONPATH=build/python /usr/bin/python3 bench/count_dispatches.py --build-dir build [--size 64]

Exports the seed's chain example (1x3x8x8), ResNet18 and MobileNetV2 (1x3xSIZExSIZE, random
weights as in tests/e2e/models_test.py) under several partitions, runs each program once per
execution mode on the default Vulkan device, and prints one line per program: delegate calls
(and how many are VgfBackend's), TRANSPOSEs in the VGF graphs (read with univk-dump), the
dispatches of all delegate calls (fused and per_delegate) and the largest absolute difference
from PyTorch. The counts do not depend on SIZE. Used for the layout table of docs/PERFORMANCE.md.

With --quantized it counts instead the int8 programs of PyTorch-quantized MobileNetV2, ResNet18
and MobileNetV3-Small (workloads.quantized: x86 and qnnpack qconfigs, convert_fx, one VgfBackend
call): dispatches of the fused call, and whether its output is bit-exact against univk's TOSA
reference kernels (univk._univk.tosa_reference). Used for the int8 table of docs/PERFORMANCE.md.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build", help="univk build directory (python/univk, univk-dump)")
    parser.add_argument("--size", type=int, default=64, help="model input height and width (default 64)")
    parser.add_argument("--quantized", action="store_true", help="count the quantized models' int8 programs")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(os.path.abspath(args.build_dir), "python"))
    import torch
    import torch.nn.functional as F
    import torchvision
    import workloads as W
    import univk

    dump_tool = os.path.join(args.build_dir, "tools", "univk_dump", "univk-dump")
    if args.quantized:
        return count_quantized(univk, W, args.size)

    def make_model(name):
        torch.manual_seed(0)
        return W.randomize(getattr(torchvision.models, name)(weights=None))

    class Chain(torch.nn.Module):  # examples/vgf_vulkan_shared/export.py
        def forward(self, x):
            y = torch.sigmoid(F.avg_pool2d(x, 2))
            return y * y + 0.25

    def transposes(program):
        with tempfile.NamedTemporaryFile(suffix=".uvk") as f:
            program.save(f.name)
            dump = json.loads(subprocess.check_output([dump_tool, f.name]))
        return sum(op["op"] == "TRANSPOSE"
                   for d in dump["delegates"] if "vgf" in d
                   for module in d["vgf"]["modules"] if "graph" in module
                   for op in module["graph"]["operations"])

    def measure(label, model, x, partition, pin=None):
        with torch.no_grad():
            expected = model(x)
        program = univk.export(model, (x,), partition=partition, pin=pin, require_no_cpu_fallback=True)
        counts = {}
        error = 0.0
        for mode in ("fused", "per_delegate"):
            method = program.load_method(mode=mode)
            actual = method(x)
            error = max(error, float((actual - expected).abs().max()))
            counts[mode] = sum(c["stats"]["dispatches"] for c in method.delegate_calls())
        backends = [c["backend"] for c in program.calls]
        print(f"{label:13} {'/'.join(b[:-7] for b in partition):11} pin {pin or '-'}: "
              f"{len(backends)} calls ({backends.count('VgfBackend')} VGF), {transposes(program)} TRANSPOSE, "
              f"dispatches fused {counts['fused']} per_delegate {counts['per_delegate']}, "
              f"max abs error {error:.2g}", flush=True)

    vgf_first, vulkan_first = ["VgfBackend", "VulkanBackend"], ["VulkanBackend", "VgfBackend"]
    torch.manual_seed(1)
    measure("chain", Chain(), torch.randn(1, 3, 8, 8), vgf_first, {"sigmoid": "VulkanBackend"})
    x = torch.randn(1, 3, args.size, args.size)
    for name in ("resnet18", "mobilenet_v2"):
        model = make_model(name)
        measure(name, model, x, vgf_first)
        measure(name, model, x, vgf_first, {"add": "VulkanBackend"})
        measure(name, model, x, vulkan_first)
        measure(name, model, x, vulkan_first, {"conv2d": "VgfBackend"})


def count_quantized(univk, W, size):
    import numpy as np
    import torch
    shape = [1, 3, size, size]
    for name in ("mobilenet_v2", "resnet18", "mobilenet_v3_small"):
        for qconfig in ("x86", "qnnpack"):
            model = W.quantized(W.randomize(W.torchvision_model(name)), qconfig, shape)
            torch.manual_seed(1)
            x = torch.randn(shape)
            program = univk.export(model, (x,), require_no_cpu_fallback=True)
            method = program.load_method(require_no_cpu_fallback=True)
            actual = method(x).numpy()
            graph, _ = univk.capture(model, (x,))
            (reference,) = univk._univk.tosa_reference(graph, [x.numpy()])
            dispatches = sum(c["stats"]["dispatches"] for c in method.delegate_calls())
            backends = [c["backend"] for c in program.calls]
            print(f"{name:18} {qconfig:7}: {len(backends)} calls ({'/'.join(backends)}), {dispatches} dispatches, "
                  f"bit-exact against the TOSA reference: {np.array_equal(actual, reference)}", flush=True)


if __name__ == "__main__":
    main()
