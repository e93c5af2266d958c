#!/usr/bin/env python3
"""univk.export on small modules: every mapped PyTorch construct is exported, run through the
C++ runtime on the Vulkan device and compared with PyTorch (atol/rtol 1e-5 unless stated);
partition order and pins decide the delegate calls; unsupported constructs raise an error
naming the node. Run with PYTHONPATH=<build>/python (ctest sets it)."""

import os
import tempfile
import unittest

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import univk


def run_both(test, module, inputs, partition=univk.DEFAULT_PARTITION, pin=None, atol=1e-5, rtol=1e-5,
             expect_backends=None):
    module = module.eval()
    with torch.no_grad():
        expected = module(*inputs)
    program = univk.export(module, inputs, partition=partition, pin=pin, require_no_cpu_fallback=True)
    if expect_backends is not None:
        test.assertEqual([c["backend"] for c in program.calls], expect_backends, program.summary())
    method = program.load_method()
    actual = method(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    actual = actual if isinstance(actual, tuple) else (actual,)
    test.assertEqual(len(actual), len(expected))
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(a.numpy(), e.numpy(), atol=atol, rtol=rtol, err_msg=program.summary())
    return program, method


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class ConvBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 5)
        self.drop = nn.Dropout(0.2)
        with torch.no_grad():  # non-trivial batch norm statistics
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.2, 0.2)

    def forward(self, x):
        y = F.relu6(self.bn(self.conv(x)))
        y = self.dw(y) + y
        y = torch.flatten(self.pool(y), 1)
        return self.fc(self.drop(y))


class ExportTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)

    def tearDown(self):
        self.assertEqual(univk._univk.validation_messages(), [])

    def test_example_model_is_vgf_vulkan_vgf(self):
        class Example(nn.Module):
            def forward(self, x):
                y = torch.sigmoid(F.avg_pool2d(x, 2))
                return y * y + 0.25
        program, method = run_both(self, Example(), (torch.randn(1, 3, 8, 8),), pin={"sigmoid": "VulkanBackend"},
                                   expect_backends=["VgfBackend", "VulkanBackend", "VgfBackend"])
        calls = method.delegate_calls()
        self.assertEqual([c["backend"] for c in calls], ["VgfBackend", "VulkanBackend", "VgfBackend"])
        self.assertEqual(len({c["device"] for c in calls}), 1)
        self.assertEqual(len({c["queue"] for c in calls}), 1)

    def test_save_and_load(self):
        class Example(nn.Module):
            def forward(self, x):
                return torch.tanh(x) * 2.0 - 1.0
        x = torch.randn(2, 5)
        program = univk.export(Example(), (x,))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.uvk")
            program.save(path)
            forward = univk.load(path, mode="per_delegate")
            self.assertEqual(forward.mode, "per_delegate")
            np.testing.assert_allclose(forward(x.numpy()).numpy(), (torch.tanh(x) * 2.0 - 1.0).numpy(), atol=1e-5,
                                       rtol=1e-5)

    def test_conv_block_on_each_backend(self):
        x = torch.randn(1, 3, 9, 9)
        for partition in (["VgfBackend"], ["VulkanBackend"]):
            with self.subTest(partition=partition):
                run_both(self, ConvBlock(), (x,), partition=partition, atol=1e-4, rtol=1e-4,
                         expect_backends=partition)

    def test_pin_by_node_name_splits_delegates(self):
        program, _ = run_both(self, ConvBlock(), (torch.randn(1, 3, 9, 9),), pin={"add": "VulkanBackend"},
                              atol=1e-4, rtol=1e-4)
        self.assertEqual([c["backend"] for c in program.calls], ["VgfBackend", "VulkanBackend", "VgfBackend"])

    def test_elementwise_and_shape_ops(self):
        cases = {
            "scalar_ops": lambda x: (1.0 - x) / 2.0 + x * 3.0 - 0.5,
            "clamp_hardtanh": lambda x: torch.clamp(x, -0.5, 0.5) + F.hardtanh(x, -0.2, 0.3),
            "activations": lambda x: F.silu(x) + F.hardswish(x) + F.hardsigmoid(x) + torch.tanh(x) + F.gelu(x),
            "unary": lambda x: torch.exp(x) + torch.abs(x) + torch.neg(x) + torch.reciprocal(x.abs() + 1)
            + torch.rsqrt(x.abs() + 1) + torch.log(x.abs() + 1),
            "max_min_pow": lambda x: torch.maximum(x, x * 0.5) + torch.minimum(x, -x) + x ** 2,
            "mean_keepdim": lambda x: x.mean([2, 3], keepdim=True) * x,
            "mean": lambda x: x.mean(dim=-1),
            "sum": lambda x: torch.sum(x, 1),
            "view_permute": lambda x: x.view(x.size(0), -1, 4).permute(0, 2, 1),
            "transpose_reshape": lambda x: torch.reshape(x.transpose(1, 3), (2, -1)),
            "cat_slice": lambda x: torch.cat([x[:, 1:3], x[:, :2] * 2.0], dim=1),
            "index": lambda x: x[0, 1] + 1.0,
            "pools": lambda x: F.max_pool2d(x, 3, 2, 1) + F.avg_pool2d(x, 3, 2, 1),
            "avg_pool_no_pad_count": lambda x: F.avg_pool2d(x, 3, 1, 1, count_include_pad=False),
            "matmul": lambda x: torch.matmul(x, x.transpose(2, 3)),
        }
        for name, fn in cases.items():
            for partition in (["VgfBackend"], ["VulkanBackend"]):
                with self.subTest(case=name, partition=partition):
                    run_both(self, Lambda(fn), (torch.randn(2, 3, 4, 4),), partition=partition, atol=1e-5, rtol=1e-4)

    def test_pad_modes_on_both_partition_orders(self):
        # Constant padding runs on either backend (TOSA PAD on the VgfBackend); reflect and
        # replicate only on the VulkanBackend, so VgfBackend-first splits around them.
        cases = {
            "constant": (lambda x: F.pad(x, (1, 2, 0, 3), value=0.5) * 2.0, 1),
            "constant_channels": (lambda x: F.pad(torch.sigmoid(x), (0, 0, 0, 0, 2, 1)), 1),
            "reflect": (lambda x: F.pad(x * 2.0, (2, 1, 3, 0), mode="reflect") + 1.0, 3),
            "replicate": (lambda x: F.pad(x, (1, 3, 2, 2), mode="replicate") - 1.0, 2),
            "reflect_conv": (nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect"), 2),
            "replicate_conv": (nn.Conv2d(3, 4, 3, padding=2, padding_mode="replicate"), 2),
        }
        for name, (fn, vgf_first_calls) in cases.items():
            module = fn if isinstance(fn, nn.Module) else Lambda(fn)
            for partition in (("VgfBackend", "VulkanBackend"), ("VulkanBackend", "VgfBackend")):
                with self.subTest(case=name, partition=partition):
                    program, _ = run_both(self, module, (torch.randn(2, 3, 5, 6),), partition=partition,
                                          atol=1e-5, rtol=1e-4)
                    self.assertEqual(len(program.calls), vgf_first_calls if partition[0] == "VgfBackend" else 1,
                                     program.summary())

    def test_conv_transpose2d_attributes(self):
        # nn.ConvTranspose2d and F.conv_transpose2d (aten.convolution with transposed=True):
        # VgfBackend-first takes them with the sigmoid as one VGF call (TOSA TRANSPOSE_CONV2D),
        # except groups and dilation, which TOSA lacks: those run on the VulkanBackend, the
        # sigmoid in a VGF call after them.
        torch.manual_seed(0)
        w = torch.randn(3, 2, 3, 2)
        cases = {
            "stride2_k2": nn.ConvTranspose2d(3, 4, 2, stride=2),
            "stride2_pad1_output_padding1": nn.ConvTranspose2d(3, 5, 3, stride=2, padding=1, output_padding=1),
            "groups3_dilation2_nobias": nn.ConvTranspose2d(3, 6, 3, padding=(2, 1), dilation=2, groups=3, bias=False),
            "functional_stride3x2": Lambda(lambda x: F.conv_transpose2d(x, w, None, (3, 2), (1, 0), (2, 1))),
        }
        for name, conv in cases.items():
            module = nn.Sequential(conv, nn.Sigmoid())
            for partition in (("VgfBackend", "VulkanBackend"), ("VulkanBackend", "VgfBackend")):
                with self.subTest(case=name, partition=partition):
                    program, _ = run_both(self, module, (torch.randn(2, 3, 5, 4),), partition=partition,
                                          atol=1e-5, rtol=1e-4)
                    backends = [c["backend"] for c in program.calls]
                    if partition[0] == "VulkanBackend":
                        self.assertEqual(backends, ["VulkanBackend"], program.summary())
                    elif name == "groups3_dilation2_nobias":
                        self.assertEqual(backends, ["VulkanBackend", "VgfBackend"], program.summary())
                    else:
                        self.assertEqual(backends, ["VgfBackend"], program.summary())

    def test_adaptive_pooling_to_any_size(self):
        # Windows [floor(i*in/out), ceil((i+1)*in/out)): non-divisible, larger than the input.
        cases = {
            "avg_7x5_to_3x4": nn.AdaptiveAvgPool2d((3, 4)),
            "max_7x5_to_3x2": nn.AdaptiveMaxPool2d((3, 2)),
            "max_global": nn.AdaptiveMaxPool2d(1),
            "max_to_9x6_none": nn.AdaptiveMaxPool2d((9, None)),
        }
        for name, pool in cases.items():
            for partition in (("VgfBackend", "VulkanBackend"), ("VulkanBackend", "VgfBackend")):
                with self.subTest(case=name, partition=partition):
                    run_both(self, nn.Sequential(nn.Tanh(), pool), (torch.randn(2, 3, 7, 5),), partition=partition,
                             atol=1e-6, rtol=1e-5)
        with self.assertRaisesRegex(univk.ExportError, "result 1 of 'adaptive_max_pool2d' is not supported"):
            univk.export(nn.AdaptiveMaxPool2d(2, return_indices=True), (torch.randn(1, 2, 4, 4),))

    def test_shuffles_expand_repeat_and_constant_producers(self):
        # Export-time decompositions into reshape/permute/transpose, cat, add of -0.0 and
        # constants: data movement (and IEEE's additive identity), so the results equal
        # PyTorch's bit for bit, NaN included.
        cases = {
            "pixel_shuffle": lambda x: F.pixel_shuffle(x, 2) * 2.0,
            "pixel_unshuffle": lambda x: F.pixel_unshuffle(x.reshape(2, 2, 8, 12), 2) * 2.0,
            "channel_shuffle": lambda x: nn.ChannelShuffle(4)(x) * 2.0,
            "expand_dim": lambda x: x[:, :1].expand(2, 5, 4, 6) * 2.0,
            "expand_new_dims": lambda x: x[0, 0, 0].expand(3, 4, 6) * 2.0,
            "expand_as_nan_signed_zero": lambda x: x[:, :, :1].expand_as(x) * -1.0,
            "repeat": lambda x: x.repeat(1, 2, 1, 3) * 2.0,
            "repeat_new_dim": lambda x: x[0, 0].repeat(2, 1, 2) + 1.0,
            "zeros_ones_full_like": lambda x: (x + torch.ones_like(x)) * torch.full_like(x, 3.0) - torch.zeros_like(x),
            "new_full": lambda x: x + x.new_full((4, 6), 2.5),
        }
        x = torch.randn(2, 8, 4, 6)
        x[0, 0, 0, :2] = torch.tensor([float("nan"), -0.0])
        for name, fn in cases.items():
            for partition in (("VgfBackend", "VulkanBackend"), ("VulkanBackend", "VgfBackend")):
                with self.subTest(case=name, partition=partition):
                    program, _ = run_both(self, Lambda(fn), (x,), partition=partition, atol=0, rtol=0)
                    actual, expected = program.load_method()(x), Lambda(fn)(x)
                    numbers = ~torch.isnan(expected)  # signed zeros kept (a NaN's sign bit means nothing)
                    self.assertTrue(torch.equal(torch.signbit(actual[numbers]), torch.signbit(expected[numbers])))

    def test_clamp_with_tensor_bounds(self):
        # maximum then minimum: min > max gives max, bounds broadcast.
        lo = torch.linspace(-1.0, 0.5, 6)
        cases = {
            "both_tensors": lambda x: torch.clamp(x, x[:, :1] - 0.5, lo.reshape(1, 1, 1, 6)),
            "max_tensor_only": lambda x: torch.clamp(x, max=x.transpose(0, 1).sum(0)),
            "min_above_max": lambda x: torch.clamp(x, lo + 1.0, lo),
            "clamp_min_method": lambda x: x.clamp_min(lo) * 2.0,
        }
        x = torch.randn(3, 3, 4, 6)
        for name, fn in cases.items():
            for partition in (("VgfBackend", "VulkanBackend"), ("VulkanBackend", "VgfBackend")):
                with self.subTest(case=name, partition=partition):
                    run_both(self, Lambda(fn), (x,), partition=partition, atol=0, rtol=0)

    def test_max_min_over_dims(self):
        # amax/amin and max/min's values over a dim (keepdim) or all dims; NaN propagates.
        cases = {
            "amax_dims": lambda x: x.amax((1, 3)) * 2.0,
            "amin_keepdim": lambda x: x.amin(-1, keepdim=True) * 2.0,
            "max_dim_values": lambda x: x.max(2)[0] * 2.0,
            "min_dim_keepdim": lambda x: torch.min(x, 1, keepdim=True).values * 2.0,
            "max_all": lambda x: x.max() * 2.0,
        }
        x = torch.randn(2, 3, 4, 40)
        x[1, 2, 3, 5] = float("nan")
        for name, fn in cases.items():
            for partition in (("VgfBackend", "VulkanBackend"), ("VulkanBackend", "VgfBackend")):
                with self.subTest(case=name, partition=partition):
                    run_both(self, Lambda(fn), (x,), partition=partition, atol=0, rtol=0)

    def test_max_min_over_a_dim_with_indices(self):
        # max/min over a dim give (values, indices): amax/amin (the VulkanBackend's) and
        # argmax/argmin (the VgfBackend's first: TOSA ARGMAX, its int32 widened to int64 at the
        # graph output).
        def both(x):
            values, indices = torch.max(x, 1)
            low, where = x.min(-1, keepdim=True)
            return values * 2.0, indices, low, where

        x = torch.randn(2, 7, 5)
        x[0, 3, 1] = x[0, 5, 1] = 4.0  # a tie: the first index
        x[1, 2, 4] = float("nan")  # NaN is the extreme of both
        for partition in (("VgfBackend", "VulkanBackend"), ("VulkanBackend", "VgfBackend")):
            with self.subTest(partition=partition):
                run_both(self, Lambda(both), (x,), partition=partition, atol=0, rtol=0)
                run_both(self, Lambda(lambda x: (torch.max(x, 1)[1], torch.min(x, 2, keepdim=True).indices)), (x,),
                         partition=partition, atol=0, rtol=0, expect_backends=[partition[0]])

    def test_strided_slices(self):
        # Slices with a step (swin_t's PatchMerging: x[..., 0::2, 1::2, :]): on the VgfBackend a
        # RESHAPE + SLICE + RESHAPE where the selected rows are whole rows of the step, else a
        # GATHER; one call under either order.
        conv = nn.Conv2d(3, 4, 1)
        cases = {
            "step_divides": (lambda x: x[:, ::2] + x[:, 1::2] + 1, torch.randn(2, 6, 5)),
            "step3_and_gather": (lambda x: x[:, 1::3, ::2] * 2, torch.randn(2, 6, 5)),
            "crop_then_step": (lambda x: x[:, 1::2] * 2, torch.randn(2, 7, 3)),
            "gather_from_start2": (lambda x: x[..., 2::2] - 1, torch.randn(3, 5)),
            "first_dim": (lambda x: x[1::4] + 0.5, torch.randn(9, 2)),
            "patch_merging": (lambda x: torch.cat([x[:, 0::2, 0::2, :], x[:, 1::2, 0::2, :], x[:, 0::2, 1::2, :],
                                                   x[:, 1::2, 1::2, :]], -1) * 2, torch.randn(1, 6, 8, 3)),
            "nhwc_after_conv": (lambda x: conv(x)[:, :, 1::2, ::3] + 1, torch.randn(1, 3, 7, 8)),
        }
        for name, (fn, x) in cases.items():
            for partition in (("VgfBackend", "VulkanBackend"), ("VulkanBackend", "VgfBackend")):
                with self.subTest(case=name, partition=partition):
                    run_both(self, Lambda(fn), (x,), partition=partition, atol=1e-6, rtol=1e-6,
                             expect_backends=[partition[0]])

    def test_unsupported_constructs_name_the_node(self):
        with self.assertRaisesRegex(univk.ExportError, "node 'sort'.*sort"):
            univk.export(Lambda(lambda x: torch.sort(x)[0]), (torch.randn(4),))
        # Circular padding builds its result with new_empty and slice copies.
        with self.assertRaisesRegex(univk.ExportError, "new_empty.default' is not supported in module '0' "
                                                       r"\(Conv2d\) at .*conv.py:\d+ \(in _conv_forward\)"):
            univk.export(nn.Sequential(nn.Conv2d(2, 2, 3, padding=1, padding_mode="circular")).eval(),
                         (torch.randn(1, 2, 5, 5),))
        with self.assertRaisesRegex(univk.ExportError, "training mode"):
            univk.export(nn.Sequential(nn.Linear(3, 3), nn.Dropout()).train(), (torch.randn(2, 3),))

    def test_require_no_cpu_fallback_and_cpu_leftovers(self):
        # A reflect pad: TOSA's PAD fills a constant, so the VgfBackend leaves it.
        module = Lambda(lambda x: F.pad(x, (1, 1), mode="reflect") * 2.0)
        x = torch.randn(1, 2, 5)
        with self.assertRaisesRegex(RuntimeError, "pad.*require_no_cpu_fallback"):
            univk.export(module, (x,), partition=["VgfBackend"], require_no_cpu_fallback=True)
        program = univk.export(module, (x,), partition=["VgfBackend"])
        self.assertEqual([c["backend"] for c in program.calls], ["cpu", "VgfBackend"])
        self.assertEqual(len(program.warnings), 1)
        method = program.load_method()
        self.assertTrue(method.instructions[0]["on_cpu"])
        np.testing.assert_allclose(method(x).numpy(), (F.pad(x, (1, 1), mode="reflect") * 2.0).numpy(), atol=1e-6,
                                   rtol=1e-5)

    def test_bad_pin_is_an_error(self):
        module = Lambda(lambda x: F.pad(x, (1, 1), mode="reflect"))
        with self.assertRaisesRegex(RuntimeError, "pinned to VgfBackend"):
            univk.export(module, (torch.randn(1, 2, 5),), pin={"reflection_pad1d": "VgfBackend"})
        with self.assertRaisesRegex(RuntimeError, "unknown backend 'Nope'"):
            univk.export(module, (torch.randn(1, 2, 5),), partition=["Nope"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
