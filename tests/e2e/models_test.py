#!/usr/bin/env python3
"""End-to-end: torchvision MobileNetV2 and ResNet18 exported with univk.export, run through the
C++ runtime on the Vulkan device (lavapipe in CI) and compared with PyTorch.

Models: random weights from torch.manual_seed(0), eval mode. Input 1x3x64x64 (not 224x224: the
CPU Vulkan driver in CI runs the full size too slowly for a test). Tolerance: atol 1e-3 and rtol
1e-3 on the logits; the difference comes from fp32 summation order over deep convolution
chains (and from batch norms folded into the convolution weights).

Run with PYTHONPATH=<build>/python (ctest sets it).
"""

import time
import unittest

import numpy as np
import torch
import torchvision

import univk

ATOL = 1e-3
RTOL = 1e-3
INPUT_SHAPE = (1, 3, 64, 64)


def make_model(name):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None)
    return model.eval()


class ModelsTest(unittest.TestCase):
    def check_model(self, name, partition=univk.DEFAULT_PARTITION):
        model = make_model(name)
        torch.manual_seed(1)
        x = torch.randn(*INPUT_SHAPE)
        with torch.no_grad():
            expected = model(x)
        start = time.time()
        program = univk.export(model, (x,), partition=partition, require_no_cpu_fallback=True)
        exported = time.time()
        method = program.load_method()
        loaded = time.time()
        actual = method(x)
        done = time.time()
        backends = [c["backend"] for c in program.calls]
        print(f"{name} {list(partition)}: {len(program.calls)} delegate call(s) {backends}, "
              f"export {exported - start:.1f}s, load {loaded - exported:.1f}s, run {done - loaded:.1f}s, "
              f"max abs error {float((actual - expected).abs().max()):.3g}", flush=True)
        self.assertEqual(program.warnings, [])
        self.assertTrue(all(not i["on_cpu"] for i in method.instructions()))
        calls = method.delegate_calls()
        self.assertEqual(len({(c["device"], c["queue"]) for c in calls}), 1)
        self.assertEqual(tuple(actual.shape), (1, 1000))
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), atol=ATOL, rtol=RTOL)
        self.assertEqual(univk._univk.validation_messages(), [])

    def test_mobilenet_v2(self):
        self.check_model("mobilenet_v2")

    def test_resnet18(self):
        self.check_model("resnet18")


if __name__ == "__main__":
    unittest.main(verbosity=2)
