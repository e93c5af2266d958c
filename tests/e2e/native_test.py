#!/usr/bin/env python3
"""End-to-end on the native VgfBackend path: VGF graph segments as VK_ARM_data_graph pipelines
through Arm's ML emulation layer on lavapipe (docs/VGF_BACKEND.md, "Native path").

- The main example (avg_pool2d on the VgfBackend -> sigmoid on the VulkanBackend -> y*y+0.25 on
  the VgfBackend) natively in both execution modes: one device and queue, fused into one
  submission, against PyTorch and against the lowered path.
- MobileNetV2 (seeded random weights, 64x64 input: 105 graph constants in one VGF delegate)
  natively against PyTorch (atol/rtol 1e-4 as in models_test.py).

The layer comes from UNIVK_ARM_EMULATION_LAYER (CTest sets it to the copy extracted from
../shared/third_party); the tests enable it through VK_LAYER_PATH and UNIVK_INSTANCE_LAYERS.
Without it they skip, or fail under UNIVK_REQUIRE_EXTERNAL_TEST_DATA=1 (CI).
Run with PYTHONPATH=<build>/python (ctest sets it).
"""

import os
import unittest

import numpy as np
import torch
import torch.nn.functional as F

LAYER = os.environ.get("UNIVK_ARM_EMULATION_LAYER", "")
if LAYER and os.path.isdir(LAYER):
    # Read by the loader and by univk's RuntimeConfig at each instance creation.
    # The system folders after the layer's keep the validation layer available.
    os.environ["VK_LAYER_PATH"] = (f"{LAYER}/graph:{LAYER}/tensor:/usr/local/share/vulkan/explicit_layer.d:"
                                   "/usr/share/vulkan/explicit_layer.d:/etc/vulkan/explicit_layer.d")
    os.environ["UNIVK_INSTANCE_LAYERS"] = "VK_LAYER_ML_Graph_Emulation:VK_LAYER_ML_Tensor_Emulation"

import univk  # noqa: E402
from random_models import torchvision_model  # noqa: E402

NATIVE = {"VgfBackend": {"vgf_graph_path": "native"}}
LOWERED = {"VgfBackend": {"vgf_graph_path": "lowered"}}


class Example(torch.nn.Module):
    def forward(self, x):
        y = torch.sigmoid(F.avg_pool2d(x, 2))
        return y * y + 0.25


def require_layer(test):
    if LAYER and os.path.isdir(LAYER):
        return
    if os.environ.get("UNIVK_REQUIRE_EXTERNAL_TEST_DATA") == "1":
        test.fail(f"missing Arm's ML emulation layer ({LAYER!r}; UNIVK_REQUIRE_EXTERNAL_TEST_DATA=1)")
    test.skipTest(f"skipped: Arm's ML emulation layer is missing ({LAYER!r}, from ../shared/third_party)")


class NativeTest(unittest.TestCase):
    def setUp(self):
        require_layer(self)

    def tearDown(self):
        self.assertEqual(univk._univk.validation_messages(), [])

    def test_example_native_in_both_modes(self):
        torch.manual_seed(0)
        model = Example().eval()
        x = torch.randn(1, 3, 8, 8)
        with torch.no_grad():
            expected = model(x)
        program = univk.export(model, (x,), partition=["VgfBackend", "VulkanBackend"],
                               pin={"sigmoid": "VulkanBackend"}, require_no_cpu_fallback=True)
        self.assertEqual([c["backend"] for c in program.calls], ["VgfBackend", "VulkanBackend", "VgfBackend"])
        for mode in ("fused", "per_delegate"):
            native = program.load_method(mode=mode, backend_options=NATIVE)
            lowered = program.load_method(mode=mode, backend_options=LOWERED)
            self.assertEqual(native.mode, mode)
            got = native(x)
            np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-5, rtol=1e-5)
            np.testing.assert_allclose(got.numpy(), lowered(x).numpy(), atol=1e-6, rtol=1e-6)
            calls = native.delegate_calls()
            self.assertEqual(len({(c["device"], c["queue"]) for c in calls}), 1)
            self.assertEqual([c.get("graph_path") for c in calls], ["native", None, "native"])
            self.assertEqual([c.get("graph_path") for c in lowered.delegate_calls()], ["lowered", None, "lowered"])

    def test_auto_takes_native_under_the_layer(self):
        torch.manual_seed(0)
        x = torch.randn(1, 3, 8, 8)
        program = univk.export(Example().eval(), (x,), partition=["VgfBackend", "VulkanBackend"],
                               pin={"sigmoid": "VulkanBackend"})
        method = program.load_method()
        self.assertEqual([c.get("graph_path") for c in method.delegate_calls()], ["native", None, "native"])

    def test_mobilenet_v2_native(self):
        model = torchvision_model("mobilenet_v2")
        torch.manual_seed(1)
        x = torch.randn(1, 3, 64, 64)
        with torch.no_grad():
            expected = model(x)
        program = univk.export(model, (x,), require_no_cpu_fallback=True)
        method = program.load_method(backend_options=NATIVE)
        actual = method(x)
        calls = method.delegate_calls()
        self.assertTrue(all(c.get("graph_path") == "native" for c in calls if c["backend"] == "VgfBackend"))
        self.assertGreater(float(expected.abs().max()), 0.1)
        print(f"mobilenet_v2 native: max abs error {float((actual - expected).abs().max()):.3g}", flush=True)
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), atol=1e-4, rtol=1e-4)


if __name__ == "__main__":
    unittest.main(verbosity=2)
