#!/usr/bin/env python3
"""PyTorch FX post-training-quantized models (prepare_fx -> calibration on random data ->
convert_to_reference_fx, the Q/DQ form, or convert_fx, the quantized-kernel form) exported with
univk.export to the VgfBackend's TOSA INT operators, with the default `x86`/`fbgemm`
(per-channel weights) and `qnnpack` (per-tensor weights) qconfig mappings. The program is one
VgfBackend call; its outputs are compared with PyTorch's quantized model (the reference model,
or the quantized CPU kernels of convert_fx) in output quantization steps: at most 2 steps on
any element and 0.5 steps on average (docs/USER_GUIDE.md, "Quantized models", says where the two round differently). The
program's VGF is decoded by univk-dump (when UNIVK_DUMP_PATH names it): int8 CONV2D, RESCALE,
CLAMP and pools. Unsupported quantized patterns are ExportErrors naming the node.
Run with PYTHONPATH=<build>/python (ctest sets it)."""

import copy
import os
import subprocess
import tempfile
import unittest

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, convert_to_reference_fx, prepare_fx
from torch.fx.passes.shape_prop import ShapeProp

import univk

MAX_STEPS = 2.0
MEAN_STEPS = 0.5
DUMP_OPS = ("CONV2D", "RESCALE", "CLAMP", "AVG_POOL2D", "CAST")  # TOSA operators the CNNs' VGF holds
MUL_CAT_OPS = ("CONV2D", "RESCALE", "TABLE", "MUL", "CONCAT", "AVG_POOL2D", "CAST")


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.relu1 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2)
        self.relu2 = nn.ReLU()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(self.relu1(self.conv1(x)))
        x = self.gap(self.relu2(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))


class ResidualCnn(nn.Module):
    """Quantized add: with a ReLU (add_relu) and without; a depthwise convolution."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(3, 8, 1)
        self.conv3 = nn.Conv2d(8, 8, 3, padding=1, groups=8)  # depthwise
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        y = torch.relu(self.conv1(x) + self.conv2(x))
        y = self.conv3(y) + y
        return self.fc(torch.flatten(self.gap(y), 1))


def sequential_cnn():
    """nn.Flatten has its own observer: a RESCALE follows the reshape."""
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))


class MulCatActivations(nn.Module):
    """Quantized mul (a sigmoid gate, and a squeeze-and-excitation style broadcast), cat of inputs
    with different quantization parameters, activations as int8 tables (hardswish, tanh,
    hardsigmoid, relu6, hardtanh), and a Dropout with its own observer."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(3, 8, 1)
        self.hardswish = nn.Hardswish()
        self.drop = nn.Dropout()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        a, b = self.conv1(x), self.conv2(x)
        gated = a * torch.sigmoid(b)
        se = gated * F.hardsigmoid(self.gap(b))
        y = torch.cat([self.hardswish(a), torch.tanh(se), F.hardsigmoid(b), F.relu6(a)], 1)
        y = self.drop(F.hardtanh(y, -1.0, 2.0))
        return self.fc(torch.flatten(self.gap(y), 1))


class WithUnsupported(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return torch.softmax(self.conv(x), 1)


def quantize(model, qconfig_backend, shape, convert=convert_to_reference_fx, seed=0):
    torch.manual_seed(seed)
    model = model.eval()
    prepared = prepare_fx(model, get_default_qconfig_mapping(qconfig_backend), (torch.randn(shape),))
    with torch.no_grad():
        for _ in range(8):
            prepared(torch.randn(shape))
    return convert(prepared)


def output_scale(gm, example):
    """The scale of the int8 value whose dequantize is the graph output (as PyTorch computes it)."""
    ShapeProp(gm).propagate(example)
    (out,) = [n for n in gm.graph.nodes if n.op == "output"]
    return float(out.args[0].args[0].meta["tensor_meta"].qparams["scale"])


def contiguous_clamps(gm):
    """gm with a .contiguous() before each quantized relu6/hardtanh: PyTorch 1.13's quantized
    hardtanh under the qnnpack engine computes wrong values on channels-last tensors (what
    quantized convolutions return), so the oracle gives it contiguous ones."""
    modules = dict(gm.named_modules(remove_duplicate=False))
    for node in list(gm.graph.nodes):
        clamp = node.target in (F.relu6, F.hardtanh) or (
            node.op == "call_module" and isinstance(modules[node.target], (nn.ReLU6, nn.Hardtanh)))
        if clamp:
            with gm.graph.inserting_before(node):
                contiguous = gm.graph.call_method("contiguous", (node.args[0],))
            node.replace_input_with(node.args[0], contiguous)
    gm.recompile()
    return gm


def kernel_engine(qconfig_backend):
    """The quantized CPU engine that runs convert_fx's modules: Debian's PyTorch has no fbgemm,
    so x86/fbgemm models run on onednn there (same per-channel int8 arithmetic)."""
    engines = torch.backends.quantized.supported_engines
    if qconfig_backend in engines:
        return qconfig_backend
    return "onednn" if "onednn" in engines else None


class Int8Export(unittest.TestCase):
    def check_cnn(self, qconfig_backend, per_channel, float_model=None, kernels=False, ops=DUMP_OPS):
        shape = (8, 3, 16, 16)
        torch.manual_seed(0)  # the float model's weights
        float_model = float_model() if float_model else SmallCnn()
        if kernels:
            engine = kernel_engine(qconfig_backend)
            if engine is None:
                self.skipTest(f"no quantized CPU engine for {qconfig_backend}")
            previous = torch.backends.quantized.engine
            torch.backends.quantized.engine = engine
            self.addCleanup(setattr, torch.backends.quantized, "engine", previous)
            model = quantize(float_model, qconfig_backend, shape, convert_fx)
            oracle = contiguous_clamps(copy.deepcopy(model))
            weight = [m for m in model.modules() if isinstance(m, torch.ao.nn.quantized.Conv2d)][0].weight()
        else:
            model = quantize(float_model, qconfig_backend, shape)
            oracle = model
            conv = [m for m in model.modules() if isinstance(m, torch.ao.nn.quantized.reference.Conv2d)][0]
            weight = conv.get_quantized_weight()
        self.assertEqual(weight.qscheme() in (torch.per_channel_affine, torch.per_channel_symmetric), per_channel)
        example = torch.randn(shape)
        program = univk.export(model, (example,), require_no_cpu_fallback=True)
        self.assertEqual([c["backend"] for c in program.calls], ["VgfBackend"], program.summary())
        method = program.load_method()
        scale = output_scale(model, example)
        steps = []
        for seed in range(3):
            torch.manual_seed(100 + seed)
            x = torch.randn(shape)
            with torch.no_grad():
                expected = oracle(x).numpy()
            actual = method(x).numpy()
            steps.append(np.abs(actual - expected) / scale)
        steps = np.concatenate([s.ravel() for s in steps])
        form = "convert_fx" if kernels else "reference"
        print(f"{qconfig_backend} {form}: {steps.size} outputs, max {steps.max():.3f} steps, mean {steps.mean():.4f} steps")
        self.assertLessEqual(steps.max(), MAX_STEPS + 1e-3, f"max {steps.max()} steps")
        self.assertLessEqual(steps.mean(), MEAN_STEPS, f"mean {steps.mean()} steps")
        self.check_dump(program, ops)

    def check_dump(self, program, ops):
        dump = os.environ.get("UNIVK_DUMP_PATH")
        if not dump:
            self.skipTest("UNIVK_DUMP_PATH is not set (univk-dump is not built)")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "int8.uvk")
            program.save(path)
            text = subprocess.run([dump, path], check=True, capture_output=True, text=True).stdout
        for op in ops:
            self.assertIn(f'"{op}"', text)
        self.assertIn("int8", text)

    def test_x86_per_channel_weights(self):
        self.check_cnn("x86", per_channel=True)

    def test_qnnpack_per_tensor_weights(self):
        self.check_cnn("qnnpack", per_channel=False)

    def test_sequential_with_flatten_module(self):
        self.check_cnn("fbgemm", per_channel=True, float_model=sequential_cnn)

    def test_x86_quantized_kernels(self):
        self.check_cnn("x86", per_channel=True, kernels=True)

    def test_qnnpack_quantized_kernels(self):
        self.check_cnn("qnnpack", per_channel=False, kernels=True)

    def test_qnnpack_quantized_kernels_sequential(self):
        self.check_cnn("qnnpack", per_channel=False, float_model=sequential_cnn, kernels=True)

    def test_residual_add_reference(self):
        self.check_cnn("x86", per_channel=True, float_model=ResidualCnn)

    def test_residual_add_quantized_kernels(self):
        self.check_cnn("qnnpack", per_channel=False, float_model=ResidualCnn, kernels=True)

    def test_mul_cat_activations_reference(self):
        self.check_cnn("x86", per_channel=True, float_model=MulCatActivations, ops=MUL_CAT_OPS)

    def test_mul_cat_activations_reference_qnnpack(self):
        self.check_cnn("qnnpack", per_channel=False, float_model=MulCatActivations, ops=MUL_CAT_OPS)

    def test_mul_cat_activations_quantized_kernels(self):
        self.check_cnn("qnnpack", per_channel=False, float_model=MulCatActivations, kernels=True,
                       ops=MUL_CAT_OPS)

    def test_mul_cat_activations_quantized_kernels_x86(self):
        self.check_cnn("x86", per_channel=True, float_model=MulCatActivations, kernels=True,
                       ops=MUL_CAT_OPS)

    def test_quantized_io(self):
        """quantized_io=True: the program takes the int8 values of the model's first
        quantize_per_tensor and returns those of its last dequantize, with their scale and zero
        point in Program.quantization and in the program file; its int8 output dequantized is
        the float program's output."""
        shape = (2, 3, 16, 16)
        for qconfig_backend, convert in (("qnnpack", convert_to_reference_fx), ("x86", convert_fx)):
            model = quantize(SmallCnn(), qconfig_backend, shape, convert)
            x = torch.randn(shape)
            program = univk.export(model, (x,), require_no_cpu_fallback=True, quantized_io=True)
            first = next(n for n in model.graph.nodes if n.target is torch.quantize_per_tensor)
            scale, zero_point = float(getattr(model, first.args[1].target)), int(getattr(model, first.args[2].target))
            self.assertEqual(program.quantization["inputs"], [(scale, zero_point - 128)])  # quint8 -> int8
            (out_scale, out_zero_point), = program.quantization["outputs"]
            self.assertEqual(out_scale, output_scale(model, x))
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "int8_io.uvk")
                program.save(path)
                method = univk.load(path)
            self.assertEqual(method.input_infos, [("int8", list(shape))])
            self.assertEqual(method.output_infos, [("int8", [2, 10])])
            self.assertEqual(method.input_quantization, program.quantization["inputs"])
            self.assertEqual(method.output_quantization, program.quantization["outputs"])
            q = torch.quantize_per_tensor(x, scale, zero_point, torch.quint8)
            y = method((q.int_repr().to(torch.int32) - 128).to(torch.int8))
            self.assertEqual(y.dtype, torch.int8)
            float_output = univk.export(model, (x,)).load_method()(x)
            np.testing.assert_array_equal(((y.float() - out_zero_point) * out_scale).numpy(), float_output.numpy())

    def test_quantized_io_needs_a_quantized_model(self):
        with self.assertRaisesRegex(univk.ExportError, "quantized_io=True needs a model quantized"):
            univk.export(SmallCnn().eval(), (torch.randn(1, 3, 16, 16),), quantized_io=True)

    def test_unsupported_pattern_names_the_node(self):
        for convert in (convert_to_reference_fx, convert_fx):
            model = quantize(WithUnsupported(), "qnnpack", (1, 3, 8, 8), convert)
            with self.assertRaisesRegex(univk.ExportError, "'softmax'"):
                univk.export(model, (torch.randn(1, 3, 8, 8),))

    def test_int8_operators_need_the_vgf_backend(self):
        model = quantize(SmallCnn(), "x86", (1, 3, 16, 16))
        with self.assertRaisesRegex(univk.Error, "node 'quantize_per_tensor'.*supported by no backend"):
            univk.export(model, (torch.randn(1, 3, 16, 16),), partition=["VulkanBackend"])

    def test_bad_example_inputs_are_an_export_error(self):
        model = quantize(SmallCnn(), "x86", (1, 3, 16, 16))
        with self.assertRaisesRegex(univk.ExportError, "fails on example_inputs"):
            univk.export(model, (torch.randn(1, 5, 16, 16),))


if __name__ == "__main__":
    unittest.main()
