#!/usr/bin/env python3
"""End-to-end: the PyTorch operators that map to TOSA 1.0's integer, rounding, trigonometric and
reduction operators (floor, ceil, sin, cos, amin / min over a dim, prod, all, any, logical_xor,
bitwise and/or/xor/not, shifts, floor_divide and div with a rounding mode on int32), exported
with univk.export and run through the C++ runtime on the Vulkan device (lavapipe in CI) with the
validation layer, against PyTorch.

Every model runs under both partition orders with require_no_cpu_fallback=True: the operators
the VulkanBackend lacks (all, any and the integer operators) run on the VgfBackend in both.
Integer and bool results must match exactly; float results within atol/rtol 1e-5.

Run with PYTHONPATH=<build>/python (ctest sets it).
"""

import unittest

import numpy as np
import torch
import torch.nn as nn

import univk
from both_orders import assert_both_orders_match_pytorch

ATOL = 1e-5
RTOL = 1e-5


class Rounding(nn.Module):
    def forward(self, x):
        return torch.floor(x), torch.ceil(x * 3), torch.sin(x), torch.cos(x) + 1


class Reductions(nn.Module):
    def forward(self, x):
        positive = x > 0
        return (x.amin(dim=1), x.min(dim=-1).values, torch.amin(x, dim=(0, 2), keepdim=True),
                (x * 0.25 + 1).prod(dim=1), positive.all(dim=2), positive.any(dim=0),
                torch.logical_xor(positive, x < 0.5))


class Integers(nn.Module):
    def forward(self, a, b, amounts):
        # (A Python int operand of & | ^ does not trace on PyTorch 1.13; >> and div take one.)
        return (a & b, a | b, a ^ b, ~a, a << amounts, a >> amounts, a >> 3, torch.floor_divide(a, b), a // b,
                torch.div(a, b, rounding_mode="trunc"), torch.div(a, 7, rounding_mode="floor"))


class TosaOpsTest(unittest.TestCase):
    def run_both_orders(self, model, inputs):
        assert_both_orders_match_pytorch(self, model, inputs, ATOL, RTOL)

    def test_floor_ceil_sin_cos(self):
        torch.manual_seed(0)
        x = torch.randn(2, 3, 5, 7) * 3
        x[0, 0, 0, :3] = torch.tensor([1.0, -2.0, 0.5])  # integral values and a half
        self.run_both_orders(Rounding(), (x,))

    def test_min_prod_all_any_logical_xor(self):
        torch.manual_seed(1)
        self.run_both_orders(Reductions(), (torch.randn(3, 4, 6),))

    def test_integer_operators_on_int32(self):
        torch.manual_seed(2)
        a = torch.randint(-100000, 100000, (3, 8), dtype=torch.int32)
        b = torch.randint(1, 50, (3, 8), dtype=torch.int32) * (torch.randint(0, 2, (3, 8), dtype=torch.int32) * 2 - 1)
        amounts = torch.randint(0, 32, (3, 8), dtype=torch.int32)
        self.run_both_orders(Integers(), (a, b, amounts))

    def test_unsupported_types_are_export_errors(self):
        class FloatFloorDiv(nn.Module):
            def forward(self, x, y):
                return torch.div(x, y, rounding_mode="floor")

        with self.assertRaisesRegex(univk.ExportError, r"floor_divide of float32 tensors is not supported"):
            univk.export(FloatFloorDiv(), (torch.randn(3), torch.randn(3)))

        class LongAnd(nn.Module):
            def forward(self, a, b):
                return a & b

        # int64 has no TOSA type and no VulkanBackend kernel: only the CPU fallback takes it.
        with self.assertRaisesRegex(RuntimeError, "bitwise_and.*require_no_cpu_fallback"):
            univk.export(LongAnd(), (torch.tensor([1, 2]), torch.tensor([3, 3])), require_no_cpu_fallback=True)
        program = univk.export(LongAnd(), (torch.tensor([1, 2]), torch.tensor([3, 3])))
        self.assertEqual([c["backend"] for c in program.calls], ["cpu"])
        got = program.load_method()(torch.tensor([6, 5]), torch.tensor([3, 4]))
        self.assertEqual(got.dtype, torch.int64)
        np.testing.assert_array_equal(got.numpy(), [2, 4])


if __name__ == "__main__":
    unittest.main(verbosity=2)
