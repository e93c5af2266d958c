"""The benchmark workloads of issue 7, in plain PyTorch (no univk import).

Shared by bench/export_workloads.py (runs here, with the univk Python module, to write .uvk
files) and bench/compare_pytorch.py (runs on the GPU machine, with PyTorch only). Works with
Debian's torch 1.13 and with torch 2.x.
"""

import torch
import torch.nn.functional as F


class Chain(torch.nn.Module):
    """The example: sigmoid(avg_pool2d(x, 2)), then y * y + 0.25."""

    def forward(self, x):
        y = torch.sigmoid(F.avg_pool2d(x, 2))
        return y * y + 0.25


SMALL = [1, 3, 8, 8]
MID = [16, 64, 128, 128]  # 64 MiB input: under lavapipe's 128 MiB maxStorageBufferRange
LARGE = [16, 64, 1024, 1024]  # 4 GiB input, 1 GiB output (float32)
# Half of LARGE: a 2 GiB input stays under a 4 GiB - 1 maxStorageBufferRange (NVIDIA's limit),
# which LARGE's 4 GiB input exceeds by one byte.
HALF_LARGE = [8, 64, 1024, 1024]

# The partition of the example: avg_pool2d on VgfBackend, sigmoid pinned to VulkanBackend,
# the elementwise tail back on VgfBackend (three delegate calls).
PARTITIONED = {"partition": ["VgfBackend", "VulkanBackend"], "pin": {"sigmoid": "VulkanBackend"}}
ALL_VGF = {"partition": ["VgfBackend"], "pin": {}}


def _chain(name, shape, placement, description, large=False):
    return {"name": name, "model": "chain", "inputs": [shape], "bandwidth_bound": shape != SMALL,
            "large": large, "description": description, **placement}


MODEL_TITLES = {"mobilenet_v2": "MobileNetV2", "resnet18": "ResNet18", "resnet50": "ResNet50"}


def _model(model, batch, size=224):
    suffix = "" if size == 224 else f"_{size}"
    return {"name": f"{model}_b{batch}{suffix}", "model": model, "inputs": [[batch, 3, size, size]],
            "bandwidth_bound": False, "large": False,
            "description": f"{MODEL_TITLES[model]}, batch {batch}, {size}x{size}, random weights (seed 0), eval",
            "partition": ["VgfBackend", "VulkanBackend"], "pin": {}}


WORKLOADS = [
    _chain("example", SMALL, PARTITIONED, "the example chain at [1,3,8,8]: Vgf -> Vulkan -> Vgf"),
    _chain("example_vgf", SMALL, ALL_VGF, "the chain at [1,3,8,8], all VgfBackend"),
    _chain("chain_mid", MID, PARTITIONED, "the chain at [16,64,128,128]: Vgf -> Vulkan -> Vgf (lavapipe-sized)"),
    _chain("chain_vgf_mid", MID, ALL_VGF, "the chain at [16,64,128,128], all VgfBackend (lavapipe-sized)"),
    _chain("chain_large", LARGE, PARTITIONED, "the chain at [16,64,1024,1024]: Vgf -> Vulkan -> Vgf", large=True),
    _chain("chain_vgf_large", LARGE, ALL_VGF, "the chain at [16,64,1024,1024], all VgfBackend", large=True),
    _chain("chain_half", HALF_LARGE, PARTITIONED, "the chain at [8,64,1024,1024]: Vgf -> Vulkan -> Vgf", large=True),
    _chain("chain_vgf_half", HALF_LARGE, ALL_VGF, "the chain at [8,64,1024,1024], all VgfBackend", large=True),
    _model("mobilenet_v2", 1),
    _model("mobilenet_v2", 32),
    _model("resnet18", 1),
    _model("resnet18", 32),
    _model("resnet50", 1),
    _model("resnet50", 32),
    # Sized for CPU implementations (lavapipe against single-threaded PyTorch on the CPU).
    _model("mobilenet_v2", 1, 64),
    _model("resnet18", 1, 64),
    _model("resnet50", 1, 64),
]


def _quantized(model, batch, size=224):
    """`model` quantized by PyTorch (FX post-training, qnnpack qconfig, convert_fx) as one
    VgfBackend call: int8 convolutions on univk's int8 kernels; PyTorch runs it on its quantized
    CPU kernels (qnnpack), whatever the device."""
    w = _model(model, batch, size)
    w["name"] = "q" + w["name"]
    w["quantized"] = "qnnpack"
    w["partition"] = ["VgfBackend"]
    w["description"] = (f"{MODEL_TITLES[model]} int8 (qnnpack qconfig, convert_fx), batch {batch}, {size}x{size}, "
                        "random weights (seed 0) with drawn BatchNorm statistics, calibrated on random data (seed 0)")
    return w


WORKLOADS += [
    _quantized("mobilenet_v2", 1),
    _quantized("mobilenet_v2", 32),
    _quantized("resnet18", 1),
    _quantized("resnet18", 32),
    # Sized for CPU implementations (lavapipe against PyTorch's quantized kernels on one thread).
    _quantized("mobilenet_v2", 1, 64),
    _quantized("resnet18", 1, 64),
]


def weights_file(model, mantissa_bits=None):
    """Where export_workloads.py saves a model's random weights (seed 0) for compare_pytorch.py."""
    return f"{model}_seed0.pt" if mantissa_bits is None else f"{model}_seed0_m{mantissa_bits}.pt"


def round_mantissas(model, bits):
    """Rounds every floating-point parameter and buffer of `model` to `bits` mantissa bits (to
    nearest). Timing does not depend on the values, and such weights compress several times
    (xz), so a program too large for the device tool's 64 MiB transfer still travels."""
    drop = 23 - bits
    with torch.no_grad():
        for t in list(model.parameters()) + list(model.buffers()):
            if t.dtype == torch.float32:
                i = t.view(torch.int32)
                i.add_(1 << (drop - 1)).bitwise_and_(~((1 << drop) - 1))
    return model


def mobilenet_v2():
    """torchvision's MobileNetV2 when available, else bench/mobilenet_v2.py (same state_dict keys)."""
    try:
        import torchvision
        try:
            return torchvision.models.mobilenet_v2(weights=None)
        except TypeError:  # torchvision before 0.13
            return torchvision.models.mobilenet_v2(pretrained=False)
    except ImportError:
        from mobilenet_v2 import MobileNetV2
        return MobileNetV2()


def torchvision_model(name):
    """An untrained torchvision classifier (torchvision before 0.13 takes pretrained=)."""
    import torchvision
    constructor = getattr(torchvision.models, name)
    try:
        return constructor(weights=None)
    except TypeError:
        return constructor(pretrained=False)


def randomize(model):
    """Draws batch norm parameters and statistics, and zero-initialised linear weights, at random
    (seed 0; torchvision initialises them to the identity and zero, which makes logits vanish);
    returns the model in eval mode."""
    torch.manual_seed(0)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
            elif isinstance(m, torch.nn.Linear) and not m.weight.abs().sum():
                m.weight.normal_(0, 0.2)
    return model.eval()


def build_model(workload, weights_path=None):
    """The eval-mode module of a workload. Models get random weights from seed 0, or the weights
    saved at export time when `weights_path` is given (so both sides use the same)."""
    if workload["model"] == "chain":
        return Chain().eval()
    if workload["model"] in MODEL_TITLES:
        torch.manual_seed(0)
        model = mobilenet_v2() if workload["model"] == "mobilenet_v2" else torchvision_model(workload["model"])
        if weights_path is not None:
            model.load_state_dict(torch.load(weights_path, map_location="cpu"))
        if workload.get("quantized"):
            return quantized(randomize(model), workload["quantized"], workload["inputs"][0])
        return model.eval()
    raise ValueError(f"unknown model '{workload['model']}'")


def quantized(model, qconfig_backend, shape, calibration_batches=4):
    """`model` (eval) quantized by FX post-training quantization with `qconfig_backend`'s default
    qconfig mapping, calibrated on random inputs of `shape` at batch at most 2 (seed 0), and
    converted to PyTorch's quantized modules (convert_fx). Deterministic."""
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    torch.manual_seed(0)
    calibration = [min(shape[0], 2)] + list(shape[1:])
    prepared = prepare_fx(model.eval(), get_default_qconfig_mapping(qconfig_backend), (torch.randn(calibration),))
    with torch.no_grad():
        for _ in range(calibration_batches):
            prepared(torch.randn(calibration))
    return convert_fx(prepared)


def tensor_bytes(shape, dtype_size=4):
    n = 1
    for d in shape:
        n *= d
    return n * dtype_size
