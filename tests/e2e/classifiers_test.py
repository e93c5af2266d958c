#!/usr/bin/env python3
"""End-to-end: torchvision's classifiers and a segmentation model that the other e2e tests do not
cover (models_test.py: MobileNetV2 and ResNet18; zoo_test.py: models needing special capture),
exported with univk.export under both partition orders with require_no_cpu_fallback=True, run
through the C++ runtime on the Vulkan device (lavapipe in CI, validation on) and compared with
PyTorch (atol/rtol 1e-4; ResNet50 and FCN, whose outputs reach the hundreds, within 1e-4 of the
largest output: fp32 summation order over 50 layers with batch norms folded into the
convolutions). Random weights (random_models.py), 1x3x64x64 inputs to keep lavapipe's two
cores quick.

Run with PYTHONPATH=<build>/python (ctest sets it).
"""

import unittest

import torch
import torchvision

import zoo_test
from random_models import randomize, torchvision_model


def fcn_resnet50_out():
    torch.manual_seed(0)
    model = torchvision.models.segmentation.fcn_resnet50(weights=None, weights_backbone=None, aux_loss=False)
    return zoo_test.SegmentationOut(randomize(model))


class ClassifiersTest(unittest.TestCase):
    check = zoo_test.ZooTest.check

    def check_model(self, name, model, relative_atol=None):
        """relative_atol: the absolute tolerance as a fraction of the largest output (models whose
        outputs reach the hundreds)."""
        torch.manual_seed(1)
        x = torch.randn(1, 3, 64, 64)
        atol = zoo_test.ATOL
        if relative_atol is not None:
            with torch.no_grad():
                atol = relative_atol * float(model(x).abs().max())
        self.check(name, model, (x,), delegate_calls=1, atol=atol)

    def test_resnet50(self):
        self.check_model("resnet50", torchvision_model("resnet50"), relative_atol=1e-4)

    def test_mobilenet_v3_small_and_large(self):
        for name in ("mobilenet_v3_small", "mobilenet_v3_large"):
            model = torchvision_model(name)
            with torch.no_grad():  # its classifier starts at N(0, 0.01): logits of ~0.02
                model.classifier[-1].weight.mul_(20)
            self.check_model(name, model)

    def test_squeezenet(self):
        self.check_model("squeezenet1_0", torchvision_model("squeezenet1_0"))

    def test_densenet121(self):
        self.check_model("densenet121", torchvision_model("densenet121"))

    def test_googlenet(self):
        self.check_model("googlenet", torchvision_model("googlenet", aux_logits=False, init_weights=False))

    def test_mnasnet(self):
        self.check_model("mnasnet0_5", torchvision_model("mnasnet0_5"))

    def test_fcn_resnet50_segmentation(self):
        self.check_model("fcn_resnet50", fcn_resnet50_out(), relative_atol=1e-4)


if __name__ == "__main__":
    unittest.main(verbosity=2)
