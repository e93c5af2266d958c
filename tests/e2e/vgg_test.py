#!/usr/bin/env python3
"""End-to-end: torchvision VGG11 (random weights, eval mode, 1x3x64x64 input) exported with
univk.export, run through the C++ runtime on the Vulkan device and compared with PyTorch.

Its first classifier weight is 25088x4096 fp32 (411 MB), over lavapipe's maxStorageBufferRange
of 128 MiB: the linear layer runs as several kernel-library dispatches, each binding a block of
the weight's rows that fits (kernels/split.h). Run once with the default partition (VgfBackend
first) and once on the VulkanBackend alone. Tolerance: atol 1e-4 and rtol 1e-4 on the logits.

Slow (labelled `slow`): measured on a shared 2-core machine at load 13, export 58-75 s, load
27-29 s and the run 129-195 s per partition (the batch-1 classifier GEMMs on lavapipe's direct
tiling dominate). Run with PYTHONPATH=<build>/python (ctest sets it).
"""

import time
import unittest

import numpy as np
import torch
import torchvision

import univk

ATOL = 1e-4
RTOL = 1e-4


class VggTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.model = torchvision.models.vgg11(weights=None).eval()
        torch.manual_seed(1)
        cls.x = torch.randn(1, 3, 64, 64)
        with torch.no_grad():
            cls.expected = cls.model(cls.x)

    def check(self, partition):
        start = time.time()
        program = univk.export(self.model, (self.x,), partition=partition, require_no_cpu_fallback=True)
        exported = time.time()
        method = program.load_method()
        loaded = time.time()
        actual = method(self.x)
        done = time.time()
        backends = [c["backend"] for c in program.calls]
        print(f"vgg11 {list(partition)}: {len(program.calls)} delegate call(s) {backends}, "
              f"export {exported - start:.1f}s, load {loaded - exported:.1f}s, run {done - loaded:.1f}s, "
              f"max abs error {float((actual - self.expected).abs().max()):.3g}", flush=True)
        self.assertTrue(all(not i["on_cpu"] for i in method.instructions))
        self.assertEqual(tuple(actual.shape), (1, 1000))
        self.assertGreater(float(self.expected.abs().max()), 1e-3)
        np.testing.assert_allclose(actual.numpy(), self.expected.numpy(), atol=ATOL, rtol=RTOL)
        self.assertEqual(univk._univk.validation_messages(), [])
        return program

    def test_default_partition(self):
        self.check(univk.DEFAULT_PARTITION)

    def test_vulkan_backend(self):
        program = self.check(("VulkanBackend",))
        self.assertEqual({c["backend"] for c in program.calls}, {"VulkanBackend"})


if __name__ == "__main__":
    unittest.main(verbosity=2)
