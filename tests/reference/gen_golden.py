#!/usr/bin/python3
"""Writes golden_torch.inc: PyTorch (torch 1.13) outputs for reference-kernel test cases.

Run with Debian's python (it has torch): /usr/bin/python3 tests/reference/gen_golden.py
The output is checked in; the build and the tests never run this script.
"""
import os

import torch
import torch.nn.functional as F

torch.manual_seed(1234)
cases = []


def rnd(*shape):
    # Values on a 1/8 grid keep sums exact-ish and the literals short.
    return (torch.randint(-24, 25, shape).float() / 8.0)


def add(op, attrs, inputs, output):
    cases.append((op, attrs, inputs, output))


def fmt_attr(name, v):
    if isinstance(v, bool):
        return '{"%s", AttrValue(int64_t{%d})}' % (name, int(v))
    if isinstance(v, int):
        return '{"%s", AttrValue(int64_t{%d})}' % (name, v)
    if isinstance(v, float):
        return '{"%s", AttrValue(double{%r})}' % (name, v)
    if isinstance(v, str):
        return '{"%s", AttrValue(std::string("%s"))}' % (name, v)
    if isinstance(v, (list, tuple)) and any(isinstance(x, float) for x in v):
        return '{"%s", AttrValue(std::vector<double>{%s})}' % (name, ", ".join(repr(float(x)) for x in v))
    if isinstance(v, (list, tuple)):
        return '{"%s", AttrValue(std::vector<int64_t>{%s})}' % (name, ", ".join(str(int(x)) for x in v))
    raise TypeError(v)


def fmt_float(v):
    text = "%.9g" % v
    if "." not in text and "e" not in text:
        text += ".0"
    return text + "f"


def fmt_tensor(t):
    t = t.detach().contiguous()
    vals = ", ".join(fmt_float(float(x)) for x in t.flatten().tolist())
    return "GoldenTensor{{%s}, {%s}}" % (", ".join(str(d) for d in t.shape), vals)


# Pools: ceil_mode, count_include_pad, divisor_override, odd sizes.
x = rnd(1, 2, 5, 7)
for k, s, p, ceil, cip, div in [(3, 2, 1, True, True, None), (3, 2, 1, True, False, None), (2, 2, 0, True, True, None),
                                (3, 2, 1, False, False, None), (3, 3, 1, True, True, 5), ([2, 3], [1, 2], [1, 1], False, True, None),
                                ([3, 2], [2, 3], [1, 0], True, False, None)]:
    attrs = dict(kernel_size=k if isinstance(k, list) else [k, k], stride=s if isinstance(s, list) else [s, s],
                 padding=p if isinstance(p, list) else [p, p], ceil_mode=ceil, count_include_pad=cip)
    if div:
        attrs["divisor_override"] = div
    out = F.avg_pool2d(x, attrs["kernel_size"], attrs["stride"], attrs["padding"], ceil, cip, div)
    add("avg_pool2d", attrs, [x], out)
for k, s, p, d, ceil in [(3, 2, 1, 1, True), (2, 2, 0, 1, True), (3, 1, 1, 2, False), (2, 3, 1, 2, True)]:
    out = F.max_pool2d(x, k, s, p, d, ceil)
    add("max_pool2d", dict(kernel_size=[k, k], stride=[s, s], padding=[p, p], dilation=[d, d], ceil_mode=ceil), [x], out)
for size in [[3, 4], [1, 1], [5, 7], [2, 5]]:
    add("adaptive_avg_pool2d", dict(output_size=size), [x], F.adaptive_avg_pool2d(x, size))

# Convolutions: stride, padding, dilation, groups, depthwise, bias.
xc = rnd(2, 4, 6, 5)
for oc, groups, k, s, p, d, bias in [(3, 1, 3, 1, 1, 1, True), (4, 2, 3, 2, 0, 1, False), (4, 4, 3, 1, 2, 2, True),
                                     (8, 4, [2, 3], [2, 1], [1, 0], [1, 2], True)]:
    kk = k if isinstance(k, list) else [k, k]
    w = rnd(oc, 4 // groups, *kk)
    b = rnd(oc) if bias else None
    out = F.conv2d(xc, w, b, s, p, d, groups)
    attrs = dict(stride=s if isinstance(s, list) else [s, s], padding=p if isinstance(p, list) else [p, p],
                 dilation=d if isinstance(d, list) else [d, d], groups=groups)
    add("conv2d", attrs, [xc, w] + ([b] if bias else []), out)

# Unary ops on values that cover the interesting ranges.
xu = torch.tensor([-7.0, -3.5, -3.0, -1.25, -0.5, 0.0, 0.375, 1.0, 2.5, 3.0, 4.75, 6.5])
add("gelu", {}, [xu], F.gelu(xu))
add("gelu", dict(approximate="tanh"), [xu], F.gelu(xu, approximate="tanh"))
add("silu", {}, [xu], F.silu(xu))
add("hardswish", {}, [xu], F.hardswish(xu))
add("hardsigmoid", {}, [xu], F.hardsigmoid(xu))
add("sigmoid", {}, [xu], torch.sigmoid(xu))
add("relu6", {}, [xu], F.relu6(xu))
add("hardtanh", dict(min_val=-2.0, max_val=3.0), [xu], F.hardtanh(xu, -2.0, 3.0))

# Normalisation and reductions.
xn = rnd(2, 3, 4)
add("softmax", dict(dim=1), [xn], torch.softmax(xn, 1))
add("log_softmax", dict(dim=-1), [xn], torch.log_softmax(xn, -1))
add("mean", dict(dim=[0, 2], keepdim=True), [xn], xn.mean([0, 2], keepdim=True))
add("sum", dict(dim=[-1], keepdim=False), [xn], xn.sum(-1))
wn, bn = rnd(3, 4), rnd(3, 4)
add("layer_norm", dict(normalized_shape=[3, 4], eps=1e-5), [xn, wn, bn], F.layer_norm(xn, [3, 4], wn, bn))
add("layer_norm", dict(normalized_shape=[4]), [xn], F.layer_norm(xn, [4]))
rm, rv, g, be = rnd(3), rnd(3).abs() + 0.5, rnd(3), rnd(3)
add("batch_norm", dict(eps=1e-3), [xn, g, be, rm, rv], F.batch_norm(xn, rm, rv, g, be, False, 0.1, 1e-3))

# Matrix products.
for sa, sb in [([3], [3]), ([3], [3, 2]), ([2, 4, 3], [3]), ([2, 1, 2, 3], [3, 3, 2]), ([4, 3], [3, 5])]:
    a, b = rnd(*sa), rnd(*sb)
    add("matmul", {}, [a, b], torch.matmul(a, b))
bias, m1, m2 = rnd(4), rnd(2, 3), rnd(3, 4)
add("addmm", dict(beta=0.5, alpha=2.0), [bias, m1, m2], torch.addmm(bias, m1, m2, beta=0.5, alpha=2.0))
xl, wl, bl = rnd(2, 3, 5), rnd(4, 5), rnd(4)
add("linear", {}, [xl, wl, bl], F.linear(xl, wl, bl))

# Broadcasting binaries and scalar operands.
a, b = rnd(2, 1, 3), rnd(4, 1)
add("add", dict(alpha=0.5), [a, b], torch.add(a, b, alpha=0.5))
add("sub", {}, [a, b], a - b)
add("div", {}, [a, b.abs() + 1.0], a / (b.abs() + 1.0))
add("sub", dict(other=0.25, scalar_first=1), [a], 0.25 - a)
add("pow", dict(other=2.0, scalar_first=1), [a], 2.0 ** a)

# Slicing with PyTorch clamping.
xs = rnd(3, 7)
for start, end, step in [(-5, 100, 2), (-100, -2, 3), (2, 2, 1), (6, -10, 1)]:
    add("slice", dict(dim=1, start=start, end=end, step=step), [xs], xs[:, start:end:step])

# Padding in each mode.
xp = rnd(1, 2, 4, 5)
for pad, mode, value in [((1, 2, 3, 0), "constant", 0.5), ((0, 0, 1, 1, 2, 0), "constant", 0.0),
                         ((2, 1, 3, 0), "reflect", 0.0), ((4, 4, 3, 3), "reflect", 0.0), ((3, 1, 2, 4), "replicate", 0.0)]:
    attrs = dict(pad=list(pad), mode=mode)
    if mode == "constant":
        attrs["value"] = value
    add("pad", attrs, [xp], F.pad(xp, pad, mode=mode, value=value) if mode == "constant" else F.pad(xp, pad, mode=mode))

# Upsampling: output sizes, scale factors (PyTorch indexes with 1/scale_factor), align_corners.
xu = rnd(1, 2, 3, 4)
for size, scales in [((6, 8), None), ((7, 5), None), ((4, 9), (1.5, 2.3)), ((2, 3), None)]:
    sf = None if scales is None else list(scales)
    attrs = dict(output_size=list(size))
    if sf is not None:
        attrs["scales"] = sf
    near = torch.ops.aten.upsample_nearest2d.default(xu, list(size), *(sf or [None, None]))
    add("upsample_nearest2d", attrs, [xu], near)
    for align in (False, True):
        if align and sf is not None:
            continue
        bil = torch.ops.aten.upsample_bilinear2d.default(xu, list(size), align, *(sf or [None, None]))
        add("upsample_bilinear2d", dict(attrs, align_corners=align), [xu], bil)

# Transposed convolutions: stride, padding, output_padding, dilation, groups, bias.
for oc, groups, k, s, p, op, d, bias in [(3, 1, 2, 2, 0, 0, 1, True), (2, 2, 3, 2, 1, 1, 1, False),
                                         (4, 4, 3, 1, 1, 0, 2, True), (6, 2, [3, 2], [3, 2], [1, 0], [2, 1], 1, True)]:
    kk = k if isinstance(k, list) else [k, k]
    w = rnd(4, oc // groups, *kk)
    b = rnd(oc) if bias else None
    out = F.conv_transpose2d(xc, w, b, s, p, op, groups, d)
    pair = lambda v: v if isinstance(v, list) else [v, v]
    attrs = dict(stride=pair(s), padding=pair(p), output_padding=pair(op), dilation=pair(d), groups=groups)
    add("conv_transpose2d", attrs, [xc, w] + ([b] if bias else []), out)

# Adaptive max pooling: divisible, non-divisible and larger-than-input sizes.
for size in [[3, 4], [1, 1], [5, 7], [2, 5], [6, 6]]:
    add("adaptive_max_pool2d", dict(output_size=size), [x], F.adaptive_max_pool2d(x, size))

# amax/amin over dims (keepdim).
xr = rnd(2, 3, 4)
for op, fn in (("amax", torch.amax), ("amin", torch.amin)):
    for dim, keep in (([1], False), ([0, 2], True), ([], False), ([-1], True)):
        add(op, dict(dim=dim, keepdim=keep), [xr], fn(xr, dim, keep))

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_torch.inc")
with open(path, "w") as f:
    f.write("// Generated by gen_golden.py with torch %s. Do not edit.\n" % torch.__version__)
    for op, attrs, inputs, out in cases:
        f.write("GoldenCase{\"%s\",\n  {%s},\n  {%s},\n  %s},\n" % (
            op, ", ".join(fmt_attr(k, v) for k, v in attrs.items()),
            ",\n   ".join(fmt_tensor(t) for t in inputs), fmt_tensor(out)))
print("wrote %d cases to %s" % (len(cases), path))
