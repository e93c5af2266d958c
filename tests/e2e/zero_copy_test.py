#!/usr/bin/env python3
"""Zero-copy IO from Python: method.input_array(i) / output_array(i) alias the method's memory,
method.run() runs on them, and the results equal a normal call and PyTorch for the README's
example exported three ways (VGF + Vulkan, Vulkan only, VGF only), fused and per_delegate; the
arrays keep the method alive; torch tensors write into them through torch.from_numpy; caller
arrays imported with host_inputs / host_outputs. Run with PYTHONPATH=<build>/python (ctest
sets it)."""

import gc
import unittest

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import univk

PARTITIONS = {
    "vgf_vulkan_vgf": dict(partition=["VgfBackend", "VulkanBackend"], pin={"sigmoid": "VulkanBackend"}),
    "vulkan_only": dict(partition=["VulkanBackend"]),
    "vgf_only": dict(partition=["VgfBackend"]),
}


class Example(nn.Module):
    """avg_pool2d -> sigmoid -> x*x+0.25"""

    def forward(self, x):
        y = torch.sigmoid(F.avg_pool2d(x, 2))
        return y * y + 0.25


class ZeroCopyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = Example().eval()
        example = torch.randn(1, 3, 8, 8)
        cls.programs = {name: univk.export(cls.module, (example,), **kw) for name, kw in PARTITIONS.items()}

    def tearDown(self):
        self.assertEqual(univk._univk.validation_messages(), [])

    def check_views(self, method, expect_zero_copy):
        info = method.io_info
        self.assertEqual(info["zero_copy"], expect_zero_copy, info)
        x_view = method.input_array(0)
        y_view = method.output_array(0)
        self.assertEqual(x_view.shape, (1, 3, 8, 8))
        self.assertEqual(y_view.dtype, np.float32)
        self.assertFalse(y_view.flags.writeable)
        for seed in range(3):
            x = torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(seed))
            want = self.module(x)
            copied = method(x)
            torch.from_numpy(x_view).copy_(x)  # a torch tensor written straight into the view
            method.run()
            np.testing.assert_array_equal(y_view, copied.numpy())
            torch.testing.assert_close(torch.from_numpy(y_view.copy()), want, rtol=1e-5, atol=1e-5)

    def test_views_match_call_and_pytorch(self):
        for name, program in self.programs.items():
            for mode in ("fused", "per_delegate"):
                with self.subTest(program=name, mode=mode):
                    method = program.load_method(mode=mode)
                    self.check_views(method, expect_zero_copy=(mode == "fused"))

    def test_arrays_keep_the_method_alive(self):
        method = self.programs["vulkan_only"].load_method()
        x_view = method.input_array(0)
        y_view = method.output_array(0)
        inner = method._method
        del method
        gc.collect()
        x = np.random.default_rng(1).standard_normal((1, 3, 8, 8)).astype(np.float32)
        x_view[...] = x
        inner.run()
        torch.testing.assert_close(torch.from_numpy(y_view.copy()), self.module(torch.from_numpy(x)), rtol=1e-5,
                                   atol=1e-5)
        del inner
        gc.collect()
        self.assertEqual(y_view.shape, (1, 3, 4, 4))  # still readable: the array holds the method

    def test_bad_index(self):
        method = self.programs["vulkan_only"].load_method()
        with self.assertRaisesRegex(RuntimeError, "has 1 inputs, input 3"):
            method.input_array(3)
        with self.assertRaisesRegex(RuntimeError, "has 1 outputs, output 1"):
            method.output_array(1)

    def test_imported_host_memory(self):
        x_buf = univk.aligned_buffer(1 * 3 * 8 * 8 * 4)
        y_buf = univk.aligned_buffer(1 * 3 * 4 * 4 * 4)
        program = self.programs["vgf_vulkan_vgf"]
        try:
            method = program.load_method(host_inputs={0: x_buf}, host_outputs={0: y_buf})
        except RuntimeError as e:
            if "VK_EXT_external_memory_host" in str(e):
                self.skipTest(str(e))
            raise
        self.assertEqual(method.io_info, {"inputs": ["imported"], "outputs": ["imported"], "zero_copy": True})
        x = torch.randn(1, 3, 8, 8)
        x_buf.view(np.float32)[:x.numel()] = x.numpy().ravel()
        method.run()
        y = torch.from_numpy(y_buf.view(np.float32)[:48].reshape(1, 3, 4, 4).copy())
        torch.testing.assert_close(y, self.module(x), rtol=1e-5, atol=1e-5)
        self.assertEqual(method.input_array(0).ctypes.data, x_buf.ctypes.data)

    def test_imported_host_memory_errors(self):
        program = self.programs["vulkan_only"]
        buf = univk.aligned_buffer(4096)
        with self.assertRaisesRegex(RuntimeError, "minImportedHostPointerAlignment|VK_EXT_external_memory_host"):
            program.load_method(host_inputs={0: buf[64:]})
        with self.assertRaisesRegex(RuntimeError, "10 bytes for float32"):
            program.load_method(host_inputs={0: buf[:10]})
        with self.assertRaisesRegex(ValueError, "not C-contiguous"):
            program.load_method(host_inputs={0: buf[::2]})
        with self.assertRaisesRegex(RuntimeError, "need fused mode"):
            program.load_method(mode="per_delegate", host_inputs={0: buf})


if __name__ == "__main__":
    unittest.main()
