#!/usr/bin/env python3
"""End-to-end: torchvision MobileNetV2 and ResNet18 exported with univk.export, run through the
C++ runtime on the Vulkan device (lavapipe in CI) and compared with PyTorch.

Models: random weights from torch.manual_seed(0), eval mode. torchvision initialises batch norms
to the identity, which makes MobileNetV2's logits vanish (~1e-9) and the comparison meaningless,
so the batch norm parameters and running statistics are drawn at random too (same seed). Input
1x3x224x224 (about 10 s for MobileNetV2 and 25 s for ResNet18 on lavapipe). Tolerance: atol 1e-4 and rtol
1e-4 on the logits (measured: max abs error ~2e-7 for MobileNetV2, ~1.5e-5 for ResNet18 with
logits up to ~9); the difference comes from fp32 summation order over deep convolution chains
and from batch norms folded into the convolution weights.

Each model runs with the default partition (VgfBackend first: one VGF delegate); MobileNetV2
also runs mixed, with its residual adds pinned to the VulkanBackend (21 alternating delegate
calls in fused mode), and VulkanBackend first with its convolutions pinned to the VgfBackend (90
calls in per_delegate mode; values between calls travel channels-last).

Run with PYTHONPATH=<build>/python (ctest sets it).
"""

import time
import unittest

import numpy as np
import torch

import univk
from random_models import torchvision_model

ATOL = 1e-4
RTOL = 1e-4
INPUT_SHAPE = (1, 3, 224, 224)


class ModelsTest(unittest.TestCase):
    def check_model(self, name, partition=univk.DEFAULT_PARTITION, pin=None, mode="auto"):
        model = torchvision_model(name)
        torch.manual_seed(1)
        x = torch.randn(*INPUT_SHAPE)
        with torch.no_grad():
            expected = model(x)
        start = time.time()
        program = univk.export(model, (x,), partition=partition, pin=pin, require_no_cpu_fallback=True)
        exported = time.time()
        method = program.load_method(mode=mode)
        loaded = time.time()
        actual = method(x)
        done = time.time()
        backends = [c["backend"] for c in program.calls]
        print(f"{name} {list(partition)} pin {pin} ({method.mode}): {len(program.calls)} delegate call(s), "
              f"{backends.count('VgfBackend')} on VgfBackend, "
              f"export {exported - start:.1f}s, load {loaded - exported:.1f}s, run {done - loaded:.1f}s, "
              f"max abs error {float((actual - expected).abs().max()):.3g}", flush=True)
        self.assertEqual(program.warnings, [])
        self.assertTrue(all(not i["on_cpu"] for i in method.instructions))
        calls = method.delegate_calls()
        self.assertEqual(len({(c["device"], c["queue"]) for c in calls}), 1)
        self.assertEqual(tuple(actual.shape), (1, 1000))
        self.assertGreater(float(expected.abs().max()), 0.1)  # logits of a meaningful size
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), atol=ATOL, rtol=RTOL)
        self.assertEqual(univk._univk.validation_messages(), [])
        return program

    def test_mobilenet_v2(self):
        self.check_model("mobilenet_v2")

    def test_resnet18(self):
        self.check_model("resnet18")

    def test_mobilenet_v2_mixed(self):
        # Residual adds on the VulkanBackend, everything else on the VgfBackend: 21 delegate
        # calls alternating between the backends, fused into one submission on one device.
        program = self.check_model("mobilenet_v2", pin={"add": "VulkanBackend"}, mode="fused")
        backends = [c["backend"] for c in program.calls]
        self.assertEqual(backends.count("VulkanBackend"), 10)
        self.assertEqual(len(backends), 21)

    def test_mobilenet_v2_convs_on_vgf(self):
        # VulkanBackend first with every convolution pinned to the VgfBackend: 90 calls, the
        # VGF convolutions and the elementwise VulkanBackend calls between them pass NHWC
        # values (docs/ARCHITECTURE.md, "Layouts between delegate calls"), per_delegate here.
        program = self.check_model("mobilenet_v2", partition=("VulkanBackend", "VgfBackend"),
                                   pin={"conv2d": "VgfBackend"}, mode="per_delegate")
        self.assertEqual(len(program.calls), 90)


if __name__ == "__main__":
    unittest.main(verbosity=2)
