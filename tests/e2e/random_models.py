"""Seeded random models for the e2e tests.

torchvision initialises batch norms to the identity and some classifiers' last linear layer to
zero, which makes logits vanish and comparisons meaningless: `randomize` draws those at random
too (seed 0), so outputs are large enough to compare.
"""

import torch
import torch.nn as nn
import torchvision


def randomize(model):
    """Draws batch norm parameters and statistics, and zero-initialised linear weights, at random
    (seed 0); returns the model in eval mode."""
    torch.manual_seed(0)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
            elif isinstance(m, nn.Linear) and not m.weight.abs().sum():
                m.weight.normal_(0, 0.2)
    return model.eval()


def torchvision_model(name, **kwargs):
    """torchvision's `name` with seeded random weights (`randomize`)."""
    torch.manual_seed(0)
    return randomize(getattr(torchvision.models, name)(weights=None, **kwargs))
