"""MobileNetV2 (Sandler et al. 2018) for machines without torchvision.

bench/workloads.py uses torchvision.models.mobilenet_v2 when torchvision is importable, and this
definition otherwise. Its modules are laid out so that its state_dict keys and shapes equal
torchvision's (features.N..., classifier.1), so the weights saved by bench/export_workloads.py
load into either. Written from the paper's architecture table: inverted residual blocks
(1x1 expansion, 3x3 depthwise, 1x1 linear projection) with the (t, c, n, s) settings below.
"""

import torch
from torch import nn

# expansion t, output channels c, repeats n, first stride s
_SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
             (6, 320, 1, 1)]


def _conv_bn_relu6(cin, cout, kernel, stride=1, groups=1):
    return nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU6(inplace=True))


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expansion):
        super().__init__()
        hidden = int(round(cin * expansion))
        self.use_residual = stride == 1 and cin == cout
        layers = [] if expansion == 1 else [_conv_bn_relu6(cin, hidden, 1)]
        layers += [_conv_bn_relu6(hidden, hidden, 3, stride, groups=hidden),
                   nn.Conv2d(hidden, cout, 1, 1, 0, bias=False), nn.BatchNorm2d(cout)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_residual else self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        features = [_conv_bn_relu6(3, 32, 3, 2)]
        cin = 32
        for t, c, n, s in _SETTINGS:
            for i in range(n):
                features.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        features.append(_conv_bn_relu6(cin, 1280, 1))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = nn.functional.adaptive_avg_pool2d(x, (1, 1))
        x = torch.flatten(x, 1)
        return self.classifier(x)
