#!/usr/bin/env python3
"""Misuse at the Python boundary gives a clear error naming what is wrong, never a raw pybind11
or torch.fx exception and never a failure deferred to execution: ints outside int64 in
attributes and shapes, declared result shapes that contradict the op, zero-size tensors,
untraceable modules (with their source line), modules that fail on the example inputs, and pin
keys that match nothing; a CPU pin shows in program.warnings. Run with
PYTHONPATH=<build>/python (ctest sets it)."""

import inspect
import unittest

import numpy as np
import torch
import torch.nn as nn

import univk
from univk import _univk


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class DataDependentBranch(nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # depends on the input's values: no static graph
            return x + 1
        return x - 1


class BoundaryErrorsTest(unittest.TestCase):
    def tearDown(self):
        self.assertEqual(_univk.validation_messages(), [])

    def graph_with_input(self, shape=(1, 3, 8, 8)):
        g = _univk.Graph()
        return g, g.add_input("x", "float32", list(shape))

    def test_int_attribute_outside_int64_is_a_value_error_naming_it(self):
        for value in (2 ** 63, -(2 ** 63) - 1, 2 ** 100, [1, 2 ** 64]):
            with self.subTest(value=value):
                g, x = self.graph_with_input()
                with self.assertRaisesRegex(ValueError, r"node 'flat' \(flatten\): attribute 'end_dim' holds .*int64"):
                    g.add_node("flat", "flatten", {"end_dim": value}, [x], "float32", [1, 192])
        g, x = self.graph_with_input()
        # The int64 limits themselves are accepted (and then checked by the compiler like any value).
        g.add_node("flat", "flatten", {"start_dim": -(2 ** 63), "end_dim": 2 ** 63 - 1}, [x], "float32", [192])
        with self.assertRaisesRegex(ValueError, r"node 'y' \(relu\): shape dimension .* outside"):
            g.add_node("y", "relu", {}, [x], "float32", [1, 3, 8, 2 ** 64])
        with self.assertRaisesRegex(TypeError, r"node 'z' \(relu\): shape holds 'a'"):
            g.add_node("z", "relu", {}, [x], "float32", [1, "a"])
        with self.assertRaisesRegex(TypeError, r"node 'z' \(relu\): shape holds 2.5"):
            g.add_node("z", "relu", {}, [x], "float32", [1, 2.5])
        g.add_node("z", "relu", {}, [x], "float32", [np.int64(1), 3, 8, 8])  # integer-like dims are ints

    def test_declared_shape_that_contradicts_the_op_fails_at_compile_naming_the_node(self):
        g, x = self.graph_with_input()
        pool = g.add_node("pool", "avg_pool2d", {"kernel_size": [2, 2]}, [x], "float32", [1, 3, 5, 5])
        g.add_output(g.add_node("sig", "sigmoid", {}, [pool], "float32", [1, 3, 5, 5]))
        for order in (["VgfBackend"], ["VulkanBackend"], ["cpu"]):
            with self.subTest(order=order):
                with self.assertRaisesRegex(RuntimeError, r"InvalidArgument.*node 'pool' \(avg_pool2d\).*"
                                                          r"\[1,3,5,5\].*\[1,3,4,4\]"):
                    _univk.compile(g, order, {})

    def test_zero_size_tensor_is_refused_at_export_naming_the_value(self):
        with self.assertRaisesRegex(RuntimeError, r"InvalidArgument.*input 'x' has the zero-size shape \[0,3\]"):
            univk.export(Lambda(lambda x: x + 1.0), (torch.zeros(0, 3),))
        with self.assertRaisesRegex(RuntimeError,
                                    r"InvalidArgument.*node 'slice\w*' \(slice\) result has the zero-size shape"):
            univk.export(Lambda(lambda x: x[:, 3:] * 2.0), (torch.zeros(2, 3),))

    def test_untraceable_module_is_an_export_error_with_its_source_line(self):
        line = inspect.getsourcelines(DataDependentBranch.forward)[1] + 1
        with self.assertRaises(univk.ExportError) as caught:
            univk.export(DataDependentBranch(), (torch.randn(2, 3),))
        message = str(caught.exception)
        self.assertRegex(message, "(make_fx|torch.export) cannot capture module DataDependentBranch")
        self.assertIn(f"{__file__}:{line} (in forward): if x.sum() > 0:", message)
        self.assertIn("data-dependent", message)

    def test_module_failing_on_the_example_inputs_is_an_export_error(self):
        with self.assertRaisesRegex(univk.ExportError, r"cannot capture module Linear at .*linear.py:\d+ \(in forward\): "
                                                       r"return F.linear\(.*\): RuntimeError: mat1 and mat2"):
            univk.export(nn.Linear(4, 2).eval(), (torch.randn(3, 5),))

    def test_pin_key_matching_no_node_or_op_type_is_an_error_listing_the_known_ones(self):
        module = Lambda(lambda x: torch.sigmoid(x) * 2.0)
        with self.assertRaisesRegex(RuntimeError, r"pin 'sigmod' matches no node name or op type.*"
                                                  r"op types: mul sigmoid; node names: sigmoid mul"):
            univk.export(module, (torch.randn(2, 3),), pin={"sigmod": "VulkanBackend"})

    def test_cpu_pin_appears_in_program_warnings(self):
        module = Lambda(lambda x: torch.sigmoid(x) * 2.0)
        x = torch.randn(2, 3)
        program = univk.export(module, (x,), pin={"mul": "cpu"})
        self.assertEqual(len(program.warnings), 1, program.warnings)
        self.assertIn("node 'mul' (mul) is pinned to the CPU fallback", program.warnings[0])
        self.assertEqual([c["backend"] for c in program.calls], ["VgfBackend", "cpu"])
        torch.testing.assert_close(program.load_method()(x), torch.sigmoid(x) * 2.0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
