#!/usr/bin/env python3
"""End-to-end: comparisons, logical operators, where, masked_fill, embedding / index_select,
argmax / argmin, cumsum, flip and conv3d, exported with univk.export and run through the C++ runtime on the
Vulkan device (lavapipe in CI) with the validation layer, against PyTorch.

Every model runs under both partition orders with require_no_cpu_fallback=True, fused (the
default): the VulkanBackend takes these operators, the VgfBackend (first) the rest; conv3d runs on
the VgfBackend under either order (TOSA CONV3D; the VulkanBackend has none). Token ids are
int64 program inputs, as PyTorch gives them; bool and int64 results come back as torch.bool and
torch.int64 and must match exactly. Float results: atol/rtol 1e-4.

Run with PYTHONPATH=<build>/python (ctest sets it).
"""

import unittest

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import univk
from both_orders import assert_both_orders_match_pytorch

ATOL = 1e-4
RTOL = 1e-4


class TinyCausalLM(nn.Module):
    """embedding -> single-head causal attention (masked_fill(-inf) with a triu mask, softmax)
    -> logits -> argmax: the greedy next token at every position, and the logits."""

    def __init__(self, vocab=40, width=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.qkv = nn.Linear(width, 3 * width)
        self.head = nn.Linear(width, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        length = ids.shape[1]
        causal = torch.ones(length, length).triu(1).bool()
        scores = (q @ k.transpose(1, 2)) / 4.0
        attention = scores.masked_fill(causal, float("-inf")).softmax(dim=-1)
        logits = self.head(attention @ v)
        return logits.argmax(dim=-1), logits


class Comparisons(nn.Module):
    def forward(self, x, y):
        return (x == y, x != y, x < y, x <= 0.5, x > y, 0.25 >= x,
                torch.logical_and(x > 0, y > 0), torch.logical_or(x > 1, y < -1), torch.logical_not(x > y))


class Selection(nn.Module):
    def forward(self, x, y):
        keep = x > y
        return (torch.where(keep, x, y), torch.where(x > 0, x, 0.0), torch.where(keep, -1.0, y),
                x.masked_fill(y < 0, 7.5), x.masked_fill(torch.ones(x.shape[-1]).bool().logical_not(), 1.0))


class Reductions(nn.Module):
    def forward(self, x, rounded):
        # `rounded` holds ties: the first index wins, as in PyTorch.
        return (x.argmax(dim=1), x.argmin(dim=-1, keepdim=True), x.argmax(), rounded.argmax(dim=-1),
                rounded.argmin(dim=0, keepdim=True), x.cumsum(dim=1), x.cumsum(dim=-1))


class Classifier(nn.Module):
    """A small convolutional classifier returning its predicted class, `logits.argmax(1)`."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1)).argmax(1)


class Extremes(nn.Module):
    """argmax/argmin over each dim of a tensor holding ties, NaN, infinities and signed zeros."""

    def forward(self, x):
        return (x.argmax(0), x.argmin(0), x.argmax(1, keepdim=True), x.argmin(1, keepdim=True), x.argmax(-1),
                x.argmin(-1))


class Indexing(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(9, 5))
        self.register_buffer("rows", torch.tensor([3, 0, 8, 3]))

    def forward(self, x, ids):
        return (torch.index_select(x, 1, self.rows), torch.index_select(self.table, 0, ids),
                F.embedding(ids.view(2, 3), self.table))


class Flips(nn.Module):
    """torch.flip of a model input (natural layout) and of a convolution's result (NHWC in the
    VgfBackend's graph), one dim and several."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x, y):
        z = self.conv(x)
        return torch.flip(x, [-1]), torch.flip(z, [1, 2]) + 1.0, y.flip(0, 2), torch.flip(z, [0, 1, 2, 3])


class Volume(nn.Module):
    """nn.Conv3d with stride and padding, a ReLU, then a conv3d without bias whose stride along W
    drops the last input column (cropped by a SLICE before TOSA's CONV3D)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv3d(2, 4, 3, stride=(2, 2, 1), padding=1)
        self.b = nn.Conv3d(4, 3, (1, 2, 2), stride=(1, 1, 2), dilation=(1, 2, 1), bias=False)

    def forward(self, x):
        return self.b(F.relu(self.a(x)))


class IndexOpsTest(unittest.TestCase):
    def run_both_orders(self, model, inputs):
        assert_both_orders_match_pytorch(self, model, inputs, ATOL, RTOL, mode="fused")

    def test_tiny_causal_lm_embedding_masked_attention_argmax(self):
        torch.manual_seed(0)
        model = TinyCausalLM().eval()
        ids = torch.randint(0, 40, (2, 7))
        self.run_both_orders(model, (ids,))

    def test_comparisons_and_logical_operators(self):
        torch.manual_seed(1)
        x = (torch.randn(3, 4, 5) * 2).round() / 2  # equal elements for eq/ne/le/ge
        y = (torch.randn(4, 1) * 2).round() / 2
        self.run_both_orders(Comparisons(), (x, y))

    def test_where_and_masked_fill(self):
        torch.manual_seed(2)
        self.run_both_orders(Selection(), (torch.randn(2, 3, 6), torch.randn(3, 6)))

    def test_argmax_argmin_cumsum(self):
        torch.manual_seed(3)
        self.run_both_orders(Reductions(), (torch.randn(4, 6, 9), torch.randint(-2, 3, (4, 6, 9)).float()))

    def test_classifier_argmax_is_one_vgf_call(self):
        torch.manual_seed(7)
        model = Classifier().eval()
        x = torch.randn(4, 3, 6, 6)
        self.run_both_orders(model, (x,))
        program = univk.export(model, (x,), require_no_cpu_fallback=True)
        self.assertEqual([c["backend"] for c in program.calls], ["VgfBackend"], program.summary())

    def test_argmax_argmin_first_index_nan_and_infinities(self):
        # PyTorch: the first index of the extreme; a NaN is the extreme of both argmax and argmin
        # (the first NaN); -0.0 equals 0.0. The VgfBackend's ARGMAX (nan_mode PROPAGATE) and
        # argmin as ARGMAX of NEGATE give the same indices.
        nan, inf = float("nan"), float("inf")
        x = torch.tensor([[[1.0, 3.0, 3.0, -2.0, -2.0], [0.0, -0.0, 0.0, -0.0, 0.0], [inf, -inf, inf, -inf, 1.0]],
                          [[2.0, nan, 5.0, nan, -7.0], [-inf, -inf, -inf, -inf, -inf], [inf, inf, 4.0, inf, inf]],
                          [[-1.0, -1.0, -1.0, -1.0, -1.0], [nan, nan, 1.0, 2.0, 3.0], [6.0, 6.0, nan, -9.0, -9.0]],
                          [[-0.0, 0.0, 1.0, 1.0, 0.5], [3.0, 2.0, 1.0, 0.0, -1.0], [-inf, 2.0, 2.0, -inf, 0.0]]])
        self.run_both_orders(Extremes(), (x,))
        program = univk.export(Extremes(), (x,), require_no_cpu_fallback=True)
        self.assertEqual([c["backend"] for c in program.calls], ["VgfBackend"], program.summary())

    def test_index_select_and_embedding(self):
        torch.manual_seed(4)
        self.run_both_orders(Indexing().eval(), (torch.randn(2, 10, 3), torch.tensor([8, 0, 4, 4, 1, 7])))

    def test_flip(self):
        torch.manual_seed(7)
        self.run_both_orders(Flips().eval(), (torch.randn(2, 3, 5, 6), torch.randn(4, 3, 2)))

    def test_conv3d(self):
        torch.manual_seed(8)
        self.run_both_orders(Volume().eval(), (torch.randn(2, 2, 6, 7, 5),))

    def test_out_of_range_token_ids_are_clamped_on_the_gpu(self):
        torch.manual_seed(5)
        model = TinyCausalLM(vocab=10).eval()
        program = univk.export(model, (torch.randint(0, 10, (1, 4)),), require_no_cpu_fallback=True)
        method = program.load_method()
        ids = torch.tensor([[3, 12, -2, 9]])
        with torch.no_grad():
            want = model(ids.clamp(0, 9))
        got = method(ids)
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
        np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), atol=ATOL, rtol=RTOL)
        self.assertEqual(univk._univk.validation_messages(), [])

    def test_bool_program_inputs(self):
        class Masked(nn.Module):
            def forward(self, x, mask):
                return x.masked_fill(mask, -1.0), torch.logical_not(mask)

        torch.manual_seed(6)
        self.run_both_orders(Masked(), (torch.randn(3, 5), torch.rand(3, 5) > 0.5))

    def test_bad_input_is_an_export_error_naming_the_node(self):
        class ConstantIndex(nn.Module):
            def forward(self, x):
                return torch.index_select(x, 0, torch.tensor([0, 5]))

        # PyTorch's own check fails the trace on the example inputs: an ExportError naming the line.
        with self.assertRaisesRegex(univk.ExportError, r"index_select.*index out of range"):
            univk.export(ConstantIndex(), (torch.randn(3, 2),))

        class IntCumsum(nn.Module):
            def forward(self, ids):
                return ids.cumsum(0)

        with self.assertRaisesRegex(univk.ExportError, r"node 'cumsum.*int64"):
            univk.export(IntCumsum(), (torch.tensor([1, 2, 3]),))

        class Gather(nn.Module):
            def forward(self, x, index):
                return torch.gather(x, 1, index)

        with self.assertRaisesRegex(univk.ExportError, r"node 'gather.*not supported"):
            univk.export(Gather(), (torch.randn(2, 3), torch.tensor([[0, 1], [2, 0]])))

        class Scatter(nn.Module):
            def forward(self, x, src):
                return x.scatter(1, torch.tensor([[2, 0], [1, 3]]), src)

        with self.assertRaisesRegex(univk.ExportError, r"node 'scatter.*not supported"):
            univk.export(Scatter(), (torch.randn(2, 4), torch.randn(2, 2)))

        class Spectrum(nn.Module):
            def forward(self, x):
                return torch.view_as_real(torch.fft.rfft2(x))

        with self.assertRaisesRegex(univk.ExportError, r"not supported"):
            univk.export(Spectrum(), (torch.randn(1, 4, 8),))

        class GroupedConv3d(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv3d(4, 4, 1, groups=2)

            def forward(self, x):
                return self.conv(x)

        # Neither backend takes a grouped conv3d: the compile fails naming the operator. Without
        # require_no_cpu_fallback it runs on the CPU fallback, with a warning.
        grouped, x = GroupedConv3d().eval(), torch.randn(1, 4, 2, 3, 3)
        with self.assertRaisesRegex(RuntimeError, "conv3d.*require_no_cpu_fallback"):
            univk.export(grouped, (x,), require_no_cpu_fallback=True)
        program = univk.export(grouped, (x,))
        self.assertEqual([c["backend"] for c in program.calls], ["cpu"])
        with torch.no_grad():
            np.testing.assert_allclose(program.load_method()(x).numpy(), grouped(x).numpy(), atol=ATOL, rtol=RTOL)


if __name__ == "__main__":
    unittest.main(verbosity=2)
