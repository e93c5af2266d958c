#!/usr/bin/env python3
"""univk's capture (exporter.py, aten_trace.py): shape queries are ints at export, library
modules with Python checks take their eval-mode path, eval-mode identities vanish, capture
failures are ExportErrors naming the module and the source line, and values over common binding
limits are warned about at export. Programs are run on the Vulkan device and compared with
PyTorch (atol/rtol 1e-5). Run with PYTHONPATH=<build>/python (ctest sets it)."""

import inspect
import unittest
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

import univk
from univk import exporter
from univk.ops import ExportLimitWarning


def export_and_run(test, module, inputs, partition=univk.DEFAULT_PARTITION):
    module = module.eval()
    with torch.no_grad():
        expected = module(*inputs)
    program = univk.export(module, inputs, partition=partition, require_no_cpu_fallback=True)
    actual = program.load_method()(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    actual = actual if isinstance(actual, tuple) else (actual,)
    test.assertEqual(len(actual), len(expected))
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(a.numpy(), e.numpy(), atol=1e-5, rtol=1e-5, err_msg=program.summary())
    return program


class ShapeQueries(nn.Module):
    def forward(self, x):
        n, c, h, w = x.shape
        rows = x.size(2)
        batch, *rest = x.size()
        assert len(x) == n and len(rest) == 3
        y = x.reshape(n, c, h * w).transpose(1, 2)  # [n, h*w, c]
        return y.reshape(batch, rows, w * c) * float(c)


class PythonChecks(nn.Module):
    """Checks on shapes and training flags, as library modules do before a fast path."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        if x.dim() == 3 and not self.training and x.shape[-1] % 2 == 0:
            x = x + 1.0
        if self.training:
            x = x * 2.0
        return self.fc(x) if x.size(-1) == self.fc.in_features else x


class Inner(nn.Module):
    def forward(self, x):
        return torch.sort(x)[0]


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.ReLU(), Inner())

    def forward(self, x):
        return self.block(x) + 1.0


class CaptureTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)

    def tearDown(self):
        self.assertEqual(univk._univk.validation_messages(), [])

    def test_shape_queries_are_ints_at_export(self):
        program = export_and_run(self, ShapeQueries(), (torch.randn(2, 3, 4, 5),))
        self.assertIn("input x: float32[2,3,4,5]", program.graph_text)

    def test_python_checks_take_the_eval_mode_branch(self):
        program = export_and_run(self, PythonChecks(), (torch.randn(1, 4, 8),))
        self.assertNotIn("mul", program.graph_text)

    def test_multihead_attention_module_returns_output_and_weights(self):
        torch.manual_seed(0)
        mha = nn.MultiheadAttention(16, 2, batch_first=True)
        q, k = torch.randn(1, 5, 16), torch.randn(1, 7, 16)
        for partition in (["VgfBackend", "VulkanBackend"], ["VulkanBackend", "VgfBackend"]):
            with self.subTest(partition=partition):
                export_and_run(self, mha, (q, k, k), partition=partition)

    def test_in_place_operators_through_views(self):
        class InPlace(nn.Module):
            def forward(self, x):
                y = x * 2.0
                y.view(-1).add_(1.0)  # mutates y through a view
                y.relu_()
                return y + x

        program = export_and_run(self, InPlace(), (torch.randn(2, 3, 4),))
        self.assertNotRegex(program.graph_text, r"= \w+_\(")  # no in-place op left

    def test_split_chunk_unbind_stack_expand(self):
        class Pieces(nn.Module):
            def forward(self, x):
                a, b = x.chunk(2, dim=1)
                c, d, e = torch.split(x, [1, 2, 1], dim=1)
                rows = torch.stack([r * 2.0 for r in x.unbind(3)], dim=-1)
                same = x.expand(x.shape)
                return torch.cat([a + b, c + e, d[:, 1:]], dim=1) + rows + same

        for partition in (["VgfBackend", "VulkanBackend"], ["VulkanBackend", "VgfBackend"]):
            with self.subTest(partition=partition):
                export_and_run(self, Pieces(), (torch.randn(1, 4, 3, 5),), partition=partition)

    def test_causal_mask_built_in_forward_is_a_constant(self):
        # torch.full and torch.triu on constants run at export; the masked attention scores are
        # baddbmm(mask, q, k^T), mapped to bmm + add.
        class Causal(nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True)

            def forward(self, x):
                n = x.shape[1]
                return self.layer(x, src_mask=torch.triu(torch.full((n, n), float("-inf")), diagonal=1))

        for partition in (["VgfBackend", "VulkanBackend"], ["VulkanBackend", "VgfBackend"]):
            with self.subTest(partition=partition):
                program = export_and_run(self, Causal(), (torch.randn(1, 6, 16),), partition=partition)
                self.assertNotIn("triu", program.graph_text)

    def test_eval_mode_identities_vanish(self):
        class Identities(nn.Module):
            def forward(self, x):
                x = torchvision.ops.stochastic_depth(x, 0.5, "row", training=False)
                x = torchvision.ops.StochasticDepth(0.2, "batch").eval()(x)
                x = F.dropout(x, 0.3, training=False) + F.alpha_dropout(x, 0.3, training=False)
                x = F.dropout2d(x, 0.3, training=False) + F.feature_alpha_dropout(x, 0.1, training=False)
                return nn.AlphaDropout(0.2).eval()(nn.Dropout2d(0.2).eval()(x)) * 2.0

        program = export_and_run(self, Identities(), (torch.randn(2, 3, 4, 5),))
        self.assertNotIn("dropout", program.graph_text)

    def test_unsupported_operator_names_module_and_source_line(self):
        line = inspect.getsourcelines(Inner.forward)[1] + 1
        with self.assertRaises(univk.ExportError) as caught:
            univk.export(Outer().eval(), (torch.randn(4, 6),))
        message = str(caught.exception)
        self.assertIn("node 'sort'", message)
        self.assertIn("in module 'block.1' (Inner)", message)
        self.assertIn(f"{__file__}:{line} (in forward): return torch.sort(x)[0]", message)

    def test_torch_export_node_locations_are_named_too(self):
        # PyTorch 2.x's torch.export records nn_module_stack and stack_trace; the same message
        # comes from them (checked on a hand-made node, as this PyTorch may have no torch.export).
        graph = torch.fx.Graph()
        node = graph.placeholder("x")
        node.meta["nn_module_stack"] = {"L__self__": ("", nn.Sequential), "L__self___block_1": ("block.1", Inner)}
        line = inspect.getsourcelines(Inner.forward)[1] + 1
        node.meta["stack_trace"] = (f'  File "{__file__}", line {line - 1}, in forward\n    x\n'
                                    f'  File "{__file__}", line {line}, in forward\n    return torch.sort(x)[0]\n')
        self.assertEqual(exporter._location(node), f" in module 'block.1' (Inner) at {__file__}:{line} (in forward): "
                                                   "return torch.sort(x)[0]")

    def test_nested_tuple_output_is_an_error(self):
        with self.assertRaisesRegex(univk.ExportError, "nested tuple: return a tensor or a flat tuple"):
            univk.export(nn.LSTM(4, 8), (torch.randn(3, 1, 4),))

    def test_training_mode_dropout_is_an_error_naming_the_module(self):
        with self.assertRaisesRegex(univk.ExportError, r"random operator .*training mode.*in module '1' \(Dropout\)"):
            univk.export(nn.Sequential(nn.Linear(3, 3), nn.Dropout()).train(), (torch.randn(2, 3),))

    def test_weight_over_128_mib_warns_with_the_node(self):
        # 8193 x 4096 fp32 = 128 MiB + 16 KiB; capture only (no device run).
        module = nn.Sequential(nn.Linear(4096, 8193, bias=False)).eval()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            univk.capture(module, (torch.randn(1, 4096),))
        limits = [str(w.message) for w in caught if issubclass(w.category, ExportLimitWarning)]
        self.assertEqual(len(limits), 1, limits)
        self.assertRegex(limits[0], r"node 'linear\w*': weight '0_weight' \[8193, 4096\] holds 134234112 bytes, "
                                    "over the 128 MiB maxStorageBufferRange")

    def test_tensor_over_4_gib_warns_with_the_node(self):
        # The check alone, on an IR that is never run (a 4 GiB tensor is too large to trace here).
        ctx = exporter._Context(nn.Module(), {}, [])
        x = ctx.add_value("x", "input", "float32", [1, 1024, 1024, 1024])
        y = ctx.add_value("big_sigmoid", "node", "float32", [1, 1024, 1024, 1024])
        ctx.nodes.append(exporter._Node("big_sigmoid", "sigmoid", {}, [x], y))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exporter._warn_limits(ctx)
        messages = sorted(str(w.message) for w in caught if issubclass(w.category, ExportLimitWarning))
        self.assertEqual(len(messages), 2, messages)
        self.assertIn("node 'big_sigmoid': input 'x' [1, 1024, 1024, 1024] holds 4294967296 bytes, over 4 GiB - 1",
                      messages[0])
        self.assertIn("node 'big_sigmoid': node 'big_sigmoid' ", messages[1])

    def test_small_models_warn_nothing(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            univk.capture(nn.Linear(4, 2).eval(), (torch.randn(3, 4),))
        self.assertEqual([w for w in caught if issubclass(w.category, ExportLimitWarning)], [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
