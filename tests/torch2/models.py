"""Small models that exercise the capture of PyTorch 2.x's torch.export (record.py) on the
operators univk maps: convolutions with batch norm, residual blocks, depthwise + squeeze-excite
with hardswish, a transformer encoder layer, layer_norm/gelu/softmax, interpolation, shape
unpacking, an LSTM and a GRU, scaled_dot_product_attention. Plain torch.nn code (valid on
PyTorch 1.13 and 2.x, but `attention`, which needs 2.x); each builder returns (module in eval
mode, example inputs)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def _randomize_batch_norms(module, generator):
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=generator) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=generator) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=generator) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=generator) * 0.1)


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.relu6(self.conv2(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class ResidualBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.down = nn.Sequential(nn.Conv2d(8, 16, 1, stride=2, bias=False), nn.BatchNorm2d(16))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + self.down(x))


class InvertedResidual(nn.Module):
    """MobileNetV3's block: expand, depthwise, squeeze-excite, project, with hardswish."""

    def __init__(self):
        super().__init__()
        self.expand = nn.Conv2d(8, 24, 1)
        self.depthwise = nn.Conv2d(24, 24, 3, padding=1, groups=24)
        self.se_reduce = nn.Conv2d(24, 8, 1)
        self.se_expand = nn.Conv2d(8, 24, 1)
        self.project = nn.Conv2d(24, 8, 1)

    def forward(self, x):
        y = F.hardswish(self.expand(x))
        y = F.hardswish(self.depthwise(y))
        s = F.adaptive_avg_pool2d(y, 1)
        s = F.hardsigmoid(self.se_expand(F.relu(self.se_reduce(s))))
        return x + self.project(y * s)


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.norm = nn.LayerNorm(32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x):
        y = F.gelu(self.norm(self.fc1(x)))
        return F.softmax(self.fc2(y), dim=-1), F.log_softmax(y.sum(dim=1), dim=-1)


class Upsample(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        a = F.interpolate(x, scale_factor=2, mode="nearest")
        b = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        return torch.sigmoid(self.conv(torch.cat([a, b], dim=1)[:, 2:6]))


class Patches(nn.Module):
    """A ViT's front: shape unpacking, patch embedding, class token, position embedding."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Conv2d(3, 16, 4, stride=4)
        self.cls = nn.Parameter(torch.randn(1, 1, 16))
        self.pos = nn.Parameter(torch.randn(1, 17, 16))
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        n, c, h, w = x.shape
        y = self.embed(x).reshape(n, 16, (h // 4) * (w // 4)).permute(0, 2, 1)
        y = torch.cat([self.cls.expand(n, -1, -1), y], dim=1) + self.pos
        return self.head(y[:, 0] + y[:, 1:].mean(dim=1))


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y[:, -1])


class Gru(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 12, num_layers=2, batch_first=True)

    def forward(self, x):
        return self.gru(x)[0]


class Attention(nn.Module):
    """F.scaled_dot_product_attention (PyTorch 2.x only) causal, with a constant boolean mask
    and with a float mask and an explicit scale."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)
        keep = torch.rand(6, 6, generator=torch.Generator().manual_seed(5)) > 0.4
        self.register_buffer("keep", keep | torch.eye(6, dtype=torch.bool))
        self.register_buffer("bias", torch.randn(6, 6, generator=torch.Generator().manual_seed(6)))

    def forward(self, x):
        q, k, v = self.qkv(x).reshape(1, 6, 3, 2, 8).permute(2, 0, 3, 1, 4).unbind(0)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        b = F.scaled_dot_product_attention(q, k, v, attn_mask=self.keep)
        c = F.scaled_dot_product_attention(q, k, v, attn_mask=self.bias, scale=0.3)
        return (a + b + c).transpose(1, 2).reshape(1, 6, 16)


def _encoder():
    return nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)


# name: (builder, example input shapes)
MODELS = {
    "cnn": (Cnn, [(1, 3, 16, 16)]),
    "residual_block": (ResidualBlock, [(1, 8, 16, 16)]),
    "inverted_residual": (InvertedResidual, [(1, 8, 12, 12)]),
    "mlp": (Mlp, [(2, 4, 16)]),
    "upsample": (Upsample, [(1, 4, 6, 6)]),
    "patches": (Patches, [(1, 3, 16, 16)]),
    "lstm": (Lstm, [(1, 5, 8)]),
    "gru": (Gru, [(1, 4, 8)]),
    "attention": (Attention, [(1, 6, 16)]),
    "transformer_encoder_layer": (_encoder, [(1, 6, 16)]),
}


def build(name, seed=0):
    """(module in eval mode, example inputs) for MODELS[name], from a fixed seed."""
    builder, shapes = MODELS[name]
    torch.manual_seed(seed)
    module = builder()
    _randomize_batch_norms(module, torch.Generator().manual_seed(seed + 1))
    module.eval()
    generator = torch.Generator().manual_seed(seed + 2)
    inputs = tuple(torch.rand(s, generator=generator) * 2 - 1 for s in shapes)
    return module, inputs
