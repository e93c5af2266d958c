#!/usr/bin/env python3
"""Exports the mixed VGF/Vulkan example model to a univk program.

    y = sigmoid(avg_pool2d(x, 2)); out = y * y + 0.25        x: float32[1, 3, 8, 8]

The partition order is VgfBackend, then VulkanBackend, and sigmoid is pinned to the
VulkanBackend, so the program's forward is three delegate calls:

    avg_pool2d (VgfBackend) -> sigmoid (VulkanBackend) -> y*y + 0.25 (VgfBackend)

Writes into --out-dir: model.uvk (the program), input.npy (the example input) and
expected.npy (PyTorch's output for it, the reference univk-run compares against).
Run with PYTHONPATH=<build>/python so that `import univk` finds the built module.
"""

import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F

import univk


class Model(torch.nn.Module):
    def forward(self, x):
        y = torch.sigmoid(F.avg_pool2d(x, 2))
        return y * y + 0.25


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out-dir", default=".", help="where model.uvk, input.npy and expected.npy go")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)

    torch.manual_seed(0)
    model = Model().eval()
    x = torch.randn(1, 3, 8, 8)

    program = univk.export(model, (x,), partition=["VgfBackend", "VulkanBackend"],
                           pin={"sigmoid": "VulkanBackend"}, require_no_cpu_fallback=True)
    print("graph captured (torch.export, or make_fx on PyTorch 1.13):")
    print(program.graph_text, end="")
    print("delegate calls chosen by the partitioner:")
    print(program.summary())

    paths = {name: os.path.join(args.out_dir, name) for name in ("model.uvk", "input.npy", "expected.npy")}
    program.save(paths["model.uvk"])
    with torch.no_grad():
        expected = model(x)
    np.save(paths["input.npy"], x.numpy())
    np.save(paths["expected.npy"], expected.numpy())
    print(f"wrote {paths['model.uvk']} ({len(program.bytes)} bytes), {paths['input.npy']}, {paths['expected.npy']}")


if __name__ == "__main__":
    main()
