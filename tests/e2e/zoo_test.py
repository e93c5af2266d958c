#!/usr/bin/env python3
"""End-to-end: models whose code the torch.fx symbolic tracer could not capture (shape
unpacking, library modules with Python checks, eval-mode stochastic depth, recurrent layers), exported with
univk.export, run through the C++ runtime on the Vulkan device (lavapipe in CI) with the
validation layer and compared with PyTorch.

Also UNet-style decoders (conv, upsample nearest and bilinear, pad, cat; conv_transpose2d),
lraspp's bilinear segmentation head, grouped convolutions (regnet, resnext) and torch.roll.

Models: random weights from torch.manual_seed(0), eval mode; batch norm parameters and statistics
and zero-initialised classifier heads are drawn at random too, so that outputs are of a meaningful
size. Inputs are small (64x64 images, ViT at 32x32, 5-token sequences) to keep the test quick on a
2-core lavapipe machine. Tolerance: atol 1e-4, rtol 1e-4 (fp32 summation order).

Each model runs under both partition orders with require_no_cpu_fallback=True (VgfBackend first:
the operators the VgfBackend lacks go to the VulkanBackend; softmax, log_softmax, layer_norm and
both gelu forms lower to TOSA decompositions, so transformer blocks are one VGF delegate, and
grouped convolutions to one TOSA CONV2D per group that the VgfBackend runs as one grouped kernel,
so regnet and resnext are one VGF delegate; VulkanBackend first: one VulkanBackend delegate).

Run with PYTHONPATH=<build>/python (ctest sets it).
"""

import time
import unittest

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

import univk
from random_models import randomize, torchvision_model

ATOL = 1e-4
RTOL = 1e-4
BOTH_ORDERS = (("VgfBackend", "VulkanBackend"), ("VulkanBackend", "VgfBackend"))


def small_vit():
    torch.manual_seed(0)
    return randomize(torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                                          hidden_dim=32, mlp_dim=64, num_classes=10))


class RecurrentOutput(nn.Module):
    """A recurrent layer's output sequence (univk programs return tensors, not nested tuples)."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)[0]


class UNetDecoder(nn.Module):
    """A two-level UNet on an odd-sized image: upsampled features are padded to the skip
    connection's size before the cat (bilinear with align_corners at the bottom, nearest above),
    and the head resizes to a fixed size (bilinear, half-pixel)."""

    def __init__(self):
        super().__init__()
        self.enc1 = nn.Conv2d(3, 8, 3, padding=1)
        self.enc2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bottom = nn.Conv2d(16, 16, 3, padding=1)
        self.dec2 = nn.Conv2d(32, 8, 3, padding=1)
        self.dec1 = nn.Conv2d(16, 8, 3, padding=1)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        e1 = F.relu(self.enc1(x))                                   # 15x15
        e2 = F.relu(self.enc2(F.max_pool2d(e1, 2)))                 # 7x7
        b = F.relu(self.bottom(F.max_pool2d(e2, 2)))                # 3x3
        u2 = F.interpolate(b, scale_factor=2, mode="bilinear", align_corners=True)  # 6x6
        d2 = F.relu(self.dec2(torch.cat([F.pad(u2, (0, 1, 0, 1)), e2], 1)))
        u1 = F.interpolate(d2, scale_factor=2, mode="nearest")      # 14x14
        d1 = F.relu(self.dec1(torch.cat([F.pad(u1, (1, 0, 0, 1)), e1], 1)))
        return F.interpolate(self.head(d1), size=(20, 20), mode="bilinear", align_corners=False)


class UNetTransposedDecoder(nn.Module):
    """A two-level UNet whose decoder upsamples with nn.ConvTranspose2d (stride 2, and stride 2
    with output_padding to reach an odd skip size) before each skip cat."""

    def __init__(self):
        super().__init__()
        self.enc1 = nn.Conv2d(3, 8, 3, padding=1)
        self.enc2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bottom = nn.Conv2d(16, 32, 3, padding=1)
        self.up2 = nn.ConvTranspose2d(32, 16, 3, stride=2)                  # 3 -> 7
        self.dec2 = nn.Conv2d(32, 16, 3, padding=1)
        self.up1 = nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1)  # 7 -> 14
        self.dec1 = nn.Conv2d(16, 8, 3, padding=1)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        e1 = F.relu(self.enc1(x))                                    # 14x14
        e2 = F.relu(self.enc2(F.max_pool2d(e1, 2)))                  # 7x7
        b = F.relu(self.bottom(F.max_pool2d(e2, 2)))                 # 3x3
        d2 = F.relu(self.dec2(torch.cat([self.up2(b), e2], 1)))      # 7x7
        d1 = F.relu(self.dec1(torch.cat([self.up1(d2), e1], 1)))     # 14x14
        return self.head(d1)


class Rolled(nn.Module):
    """torch.roll as swin's shifted windows use it (both spatial dims, shifts of both signs),
    and a roll of the flattened tensor (no dims)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        y = torch.roll(F.relu(self.conv(x)), shifts=(3, -2), dims=(2, 3))
        return torch.roll(y, 5) * 2.0


class SegmentationOut(nn.Module):
    """The "out" entry of a torchvision segmentation model's result dict."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class ZooTest(unittest.TestCase):
    def check(self, name, model, inputs, delegate_calls=None, atol=ATOL):
        with torch.no_grad():
            expected = model(*inputs)
        self.assertGreater(float(expected.abs().max()), 0.1)  # outputs of a meaningful size
        for partition in BOTH_ORDERS:
            with self.subTest(partition=partition):
                start = time.time()
                program = univk.export(model, inputs, partition=partition, require_no_cpu_fallback=True)
                exported = time.time()
                method = program.load_method()
                actual = method(*inputs)
                backends = [c["backend"] for c in program.calls]
                print(f"{name} {list(partition)} ({method.mode}): {len(backends)} delegate call(s), "
                      f"{backends.count('VgfBackend')} on VgfBackend, export {exported - start:.1f}s, "
                      f"load+run {time.time() - exported:.1f}s, "
                      f"max abs error {float((actual - expected).abs().max()):.3g}", flush=True)
                self.assertEqual(program.warnings, [])
                self.assertTrue(all(not i["on_cpu"] for i in method.instructions))
                if delegate_calls is not None and partition == BOTH_ORDERS[0]:
                    self.assertEqual(len(backends), delegate_calls, program.summary())
                np.testing.assert_allclose(actual.numpy(), expected.numpy(), atol=atol, rtol=RTOL)
                self.assertEqual(univk._univk.validation_messages(), [])

    def test_shufflenet_v2_shape_unpacking_and_channel_shuffle(self):
        # channel_shuffle: `batchsize, num_channels, height, width = x.size()`, view, transpose;
        # chunk(2, dim=1) becomes two slices. One VGF delegate.
        torch.manual_seed(1)
        self.check("shufflenet_v2_x0_5", torchvision_model("shufflenet_v2_x0_5"), (torch.randn(1, 3, 64, 64),),
                   delegate_calls=1)

    def test_vision_transformer(self):
        # `n, c, h, w = x.shape`, the class token expand, nn.MultiheadAttention's composite path.
        torch.manual_seed(1)
        self.check("vit (2 layers, dim 32)", small_vit(), (torch.randn(1, 3, 32, 32),), delegate_calls=1)

    def test_transformer_encoder_stack(self):
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True)
        model = nn.TransformerEncoder(layer, 2).eval()
        torch.manual_seed(1)
        self.check("TransformerEncoder (2 layers, dim 16)", model, (torch.randn(1, 5, 16),), delegate_calls=1)

    def test_transformer_encoder_layer_is_one_vgf_delegate(self):
        # Attention (linear, bmm, softmax), both layer_norms and the MLP in one VGF delegate, with
        # each activation PyTorch offers (the 2-layer stack took 12 calls, 6 on the VulkanBackend,
        # before softmax and layer_norm had TOSA decompositions).
        activations = {"relu": "relu", "gelu": "gelu", "gelu_tanh": lambda x: F.gelu(x, approximate="tanh")}
        for name, activation in activations.items():
            torch.manual_seed(0)
            layer = nn.TransformerEncoderLayer(16, 2, 32, activation=activation, batch_first=True).eval()
            torch.manual_seed(1)
            self.check(f"TransformerEncoderLayer ({name})", layer, (torch.randn(1, 5, 16),), delegate_calls=1)

    def test_transformer_layers_norm_first_gelu_and_decoder(self):
        torch.manual_seed(0)
        encoder = nn.TransformerEncoderLayer(16, 2, 32, activation="gelu", norm_first=True).eval()
        decoder = nn.TransformerDecoderLayer(16, 2, 32, batch_first=True).eval()
        torch.manual_seed(1)
        self.check("TransformerEncoderLayer (norm_first, gelu)", encoder, (torch.randn(5, 1, 16),), delegate_calls=1)
        self.check("TransformerDecoderLayer", decoder, (torch.randn(1, 5, 16), torch.randn(1, 7, 16)), delegate_calls=1)

    def test_lstm_and_gru_unrolled_over_the_sequence(self):
        # PyTorch's CPU recurrent kernels are composite: the capture records each time step.
        torch.manual_seed(0)
        lstm = RecurrentOutput(nn.LSTM(8, 16, batch_first=True)).eval()
        gru = RecurrentOutput(nn.GRU(8, 16, 2, batch_first=True)).eval()
        torch.manual_seed(1)
        x = torch.randn(1, 5, 8)
        self.check("LSTM (8 -> 16, 5 steps)", lstm, (x,), delegate_calls=1)
        self.check("GRU (2 layers, 8 -> 16, 5 steps)", gru, (x,), delegate_calls=1)

    def test_unet_decoder_upsample_pad_cat(self):
        torch.manual_seed(0)
        model = UNetDecoder().eval()
        torch.manual_seed(1)
        # VgfBackend first: the nearest x2 and the half-pixel 15 -> 20 bilinear become TOSA RESIZE;
        # the align_corners 3 -> 6 bilinear steps by PyTorch's fp32 2/5, which RESIZE's exact
        # rational step does not reproduce, so it goes to the VulkanBackend between two VGF calls
        # (3 calls); VulkanBackend first: one call.
        self.check("UNet decoder (15x15)", model, (torch.randn(1, 3, 15, 15),), delegate_calls=3)

    def test_unet_decoder_conv_transpose2d(self):
        torch.manual_seed(0)
        model = UNetTransposedDecoder().eval()
        torch.manual_seed(1)
        # VgfBackend first: the transposed convolutions are TOSA TRANSPOSE_CONV2D, so the whole
        # decoder is one VGF call (5 before); VulkanBackend first: one call.
        self.check("UNet decoder with ConvTranspose2d (14x14)", model, (torch.randn(1, 3, 14, 14),),
                   delegate_calls=1)

    def test_grouped_convolutions_regnet_and_resnext_are_one_vgf_delegate(self):
        # 32x32: the smallest input their five stride-2 stages take (1x1 at the last stage).
        for name in ("regnet_y_400mf", "resnext50_32x4d"):
            torch.manual_seed(1)
            self.check(name, torchvision_model(name), (torch.randn(1, 3, 32, 32),), delegate_calls=1)

    def test_roll_is_slices_and_cat(self):
        torch.manual_seed(0)
        model = Rolled().eval()
        torch.manual_seed(1)
        self.check("roll", model, (torch.randn(1, 3, 9, 7),), delegate_calls=1)

    def test_lraspp_mobilenet_v3_large_bilinear_heads(self):
        # Its head upsamples twice with F.interpolate(mode="bilinear", align_corners=False); both
        # are power-of-two factors at 64x64, exact fp32 steps, so both are TOSA RESIZE: one VGF call.
        torch.manual_seed(0)
        model = randomize(torchvision.models.segmentation.lraspp_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=4))
        torch.manual_seed(1)
        self.check("lraspp_mobilenet_v3_large", SegmentationOut(model).eval(), (torch.randn(1, 3, 64, 64),),
                   delegate_calls=1)

    def test_efficientnet_b0_stochastic_depth_in_eval(self):
        torch.manual_seed(1)
        self.check("efficientnet_b0", torchvision_model("efficientnet_b0"), (torch.randn(1, 3, 64, 64),))

    def test_convnext_tiny_stochastic_depth_in_eval(self):
        # 32x32: the smallest input its four stride-2 stages take (1x1 at the last stage).
        torch.manual_seed(1)
        self.check("convnext_tiny", torchvision_model("convnext_tiny"), (torch.randn(1, 3, 32, 32),), delegate_calls=1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
