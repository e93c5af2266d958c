#!/usr/bin/env python3
"""Exports torchvision's model zoo (and the transformer blocks of docs/MODELS.md) with
univk.export, runs each program on the Vulkan device and compares it with PyTorch: the table of
docs/MODELS.md. Random weights (seed 0) with batch norm statistics drawn at random, eval mode,
small inputs. Prints one Markdown row per model; its dispatches are those of one fused run, summed
over the delegate calls (each delegate's `dispatches` stat; a model not run is loaded to count
them).

    PYTHONPATH=build/python /usr/bin/python3 bench/model_zoo.py [--only NAME ...] [--size 64]
        [--partition VulkanBackend,VgfBackend]
"""

import argparse
import time
import warnings

import torch
import torch.nn as nn
import torchvision

import univk
from workloads import randomize
from univk.ops import ExportLimitWarning

CLASSIFIERS = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large", "squeezenet1_0",
               "densenet121", "regnet_y_400mf", "regnet_x_400mf", "googlenet", "mnasnet0_5", "shufflenet_v2_x0_5",
               "efficientnet_b0", "convnext_tiny", "resnext50_32x4d", "alexnet", "vgg11", "swin_t"]


class RecurrentOutput(nn.Module):
    """A recurrent layer's output sequence alone (univk programs return tensors, not nested tuples)."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)[0]


class SegmentationOut(nn.Module):
    """The "out" entry of a torchvision segmentation model's result dict (programs return tensors)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def models(size):
    """(name, builder, example inputs) for every model of the table."""
    image = (torch.randn(1, 3, size, size),)
    for name in CLASSIFIERS:
        kwargs = {"aux_logits": False, "init_weights": True} if name == "googlenet" else {}
        yield name, lambda name=name, kwargs=kwargs: getattr(torchvision.models, name)(weights=None, **kwargs), image
    yield "vit (2 layers, dim 32, 32x32)", lambda: torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64), (torch.randn(1, 3, 32, 32),)
    yield "TransformerEncoder (2 layers, dim 16)", lambda: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(16, 2, 32, batch_first=True), 2), (torch.randn(1, 5, 16),)
    yield "lraspp_mobilenet_v3_large", lambda: SegmentationOut(torchvision.models.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None)), image
    yield "nn.LSTM (8 -> 16, 5 steps)", lambda: RecurrentOutput(nn.LSTM(8, 16, batch_first=True)), \
        (torch.randn(1, 5, 8),)
    yield "nn.GRU (2 layers, 8 -> 16, 5 steps)", lambda: RecurrentOutput(nn.GRU(8, 16, 2, batch_first=True)), \
        (torch.randn(1, 5, 8),)


def row(name, build, inputs, skip_run, partition):
    torch.manual_seed(0)
    model = randomize(build())
    with torch.no_grad():
        expected = model(*inputs)
    expected = expected[0] if isinstance(expected, tuple) else expected
    start = time.time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ExportLimitWarning)
        try:
            program = univk.export(model, inputs, partition=partition)
        except Exception as e:  # the table reports the error
            return f"| {name} | fails at export | | | | {type(e).__name__}: {str(e).splitlines()[0][:160]} |"
    limits = [w for w in caught if issubclass(w.category, ExportLimitWarning)]
    backends = [c["backend"] for c in program.calls]
    calls = f"{len(backends)} ({backends.count('VgfBackend')} VGF, {backends.count('VulkanBackend')} Vulkan, " \
            f"{backends.count('cpu')} CPU)"
    note = f"{len(limits)} limit warning(s); " if limits else ""
    method = program.load_method()
    dispatches = sum(c["stats"]["dispatches"] for c in method.delegate_calls())
    if skip_run:
        elapsed = time.time() - start
        return f"| {name} | exports | {calls} | {dispatches} | not run here | {note}export+load {elapsed:.1f}s |"
    actual = method(*inputs)
    actual = actual[0] if isinstance(actual, tuple) else actual
    error = float((actual - expected).abs().max())
    status = "runs, matches" if error <= 1e-4 + 1e-4 * float(expected.abs().max()) else "runs, MISMATCH"
    return f"| {name} | {status} | {calls} | {dispatches} | {error:.2g} | {note}{time.time() - start:.1f}s |"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="model names to run")
    parser.add_argument("--size", type=int, default=64, help="image height and width (default 64)")
    parser.add_argument("--no-run", nargs="*", default=["vgg11", "alexnet"],
                        help="models exported but not run (default: vgg11 alexnet, minutes on lavapipe)")
    parser.add_argument("--partition", default="VgfBackend,VulkanBackend",
                        help="backend order, comma-separated (default VgfBackend,VulkanBackend)")
    args = parser.parse_args()
    print("| model | status | delegate calls | dispatches | max abs error | notes, export+run time |")
    print("|---|---|---|---|---|---|")
    torch.manual_seed(1)
    for name, build, inputs in models(args.size):
        if args.only and name not in args.only:
            continue
        print(row(name, build, inputs, name in args.no_run, args.partition.split(",")), flush=True)


if __name__ == "__main__":
    main()
