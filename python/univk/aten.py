"""Mapping of ATen operators to the handlers of ops.py.

Both capture paths (torch.export on PyTorch 2.x, make_fx on 1.13: exporter.py) record
`call_function` nodes whose targets are ATen overloads (`aten.conv2d.default`,
`aten.add.Tensor`, ...). Their arguments are bound by the overload's schema, renamed to the
PyTorch-API names the handlers of ops.py take, and handed to them.

A handler returns the IR value id of the node's result. Operators with several results return
("results", pick): `pick(ctx, getitem_node, index)` gives the env entry of one result, built only
when a getitem uses it.
"""

import operator

import torch

from .aten_index import ATEN_INDEX, integer_operator
from .ops import FUNCTIONS, ExportError

_INT_MAX = 2 ** 63 - 1


def bind_schema(node):
    """The node's arguments as {schema argument name: value}, with `self` renamed to `input`."""
    schema = node.target._schema
    bound = {}
    for arg, value in zip(schema.arguments, node.args):
        bound[arg.name] = value
    bound.update(node.kwargs)
    if "self" in bound:
        bound["input"] = bound.pop("self")
    return schema.name.split("::")[-1], bound


def _call(name, keep):
    """Calls FUNCTIONS[name] with the bound arguments named in `keep` (others are dropped)."""
    def handler(ctx, node, a):
        return FUNCTIONS[name](ctx, node, [], {k: a[k] for k in keep if k in a})
    return handler


def _div(ctx, node, a):
    """True division (ops.py), or with rounding_mode "floor"/"trunc" the integer divisions."""
    mode = a.get("rounding_mode")
    if mode is not None:
        return integer_operator(ctx, node, f"{mode}_divide", a["input"], a["other"])
    return FUNCTIONS["div"](ctx, node, [], {k: a[k] for k in ("input", "other") if k in a})


def _convolution(ctx, node, a):
    rank = len(ctx.shape(ctx.tensor(a["input"])))
    if rank == 5 and not a.get("transposed"):
        return _conv3d(ctx, node, a)
    if rank != 4:
        kind = "transposed convolution" if a.get("transposed") else "convolution"
        raise ExportError(f"node '{node.name}': only 2-d {kind} and 3-d convolution are supported")
    if a.get("transposed"):
        return FUNCTIONS["conv_transpose2d"](ctx, node, [], {k: a[k] for k in (
            "input", "weight", "bias", "stride", "padding", "output_padding", "groups", "dilation")})
    return FUNCTIONS["conv2d"](ctx, node, [], {k: a[k] for k in ("input", "weight", "bias", "stride", "padding",
                                                                   "dilation", "groups")})


def _conv3d(ctx, node, a):
    """conv3d (nn.Conv3d): NCDHW input, [OC, C/groups, KD, KH, KW] weight, ints or 'valid' padding."""
    def triple(value):
        return [int(v) for v in value] * (3 if len(value) == 1 else 1) if isinstance(value, (list, tuple)) \
            else [int(value)] * 3
    padding = a.get("padding", 0)
    if isinstance(padding, str) and padding != "valid":
        raise ExportError(f"node '{node.name}': conv3d padding '{padding}' is not supported (ints and 'valid' are)")
    attrs = {"stride": triple(a.get("stride", 1)), "dilation": triple(a.get("dilation", 1)),
             "groups": int(a.get("groups", 1)), "padding": padding if isinstance(padding, str) else triple(padding)}
    inputs = [ctx.tensor(a["input"]), ctx.tensor(a["weight"])]
    if a.get("bias") is not None:
        inputs.append(ctx.tensor(a["bias"]))
    return ctx.emit(node, "conv3d", attrs, inputs)


def _batch_norm_no_training(ctx, node, a):
    return FUNCTIONS["batch_norm"](ctx, node, [], {"input": a["input"], "running_mean": a["running_mean"],
                                                   "running_var": a["running_var"], "weight": a["weight"],
                                                   "bias": a["bias"], "training": False, "eps": a["eps"]})


def _reshape(ctx, node, a):
    return FUNCTIONS["reshape"](ctx, node, [a["input"]], {"shape": a["size"] if "size" in a else a["shape"]})


def _slice(ctx, node, a):
    x = ctx.tensor(a["input"])
    step = int(a.get("step", 1))
    if step < 1:
        raise ExportError(f"node '{node.name}': slicing with step {step} is not supported")
    start = a.get("start") or 0
    end = a.get("end")
    attrs = {"dim": int(a.get("dim", 0)), "start": int(start), "end": _INT_MAX if end is None else min(int(end), _INT_MAX)}
    if step != 1:
        attrs["step"] = step
    return ctx.emit(node, "slice", attrs, [x])


def _select(ctx, node, a):
    x = ctx.tensor(a["input"])
    shape = list(ctx.shape(x))
    dim = a["dim"] % len(shape)
    index = a["index"] % shape[dim]
    shape[dim] = 1
    sliced = ctx.emit_internal(node, "slice", {"dim": dim, "start": index, "end": index + 1}, [x], shape)
    return ctx.emit(node, "reshape", {"shape": list(ctx.node_shape(node))}, [sliced])


def _t(ctx, node, a):
    return FUNCTIONS["transpose"](ctx, node, [a["input"], 0, 1], {})


def _addmm(ctx, node, a):
    attrs = {"beta": float(a.get("beta", 1)), "alpha": float(a.get("alpha", 1))}
    return ctx.emit(node, "addmm", attrs, [ctx.tensor(a["input"]), ctx.tensor(a["mat1"]), ctx.tensor(a["mat2"])])


def _baddbmm(ctx, node, a):
    # beta * input + alpha * bmm(batch1, batch2), as PyTorch computes it (input ignored for beta 0)
    b1, b2 = ctx.tensor(a["batch1"]), ctx.tensor(a["batch2"])
    beta, alpha = float(a.get("beta", 1)), float(a.get("alpha", 1))
    shape = list(ctx.node_shape(node))
    product = ctx.emit_internal(node, "bmm", {}, [b1, b2], shape)
    if beta == 0:
        return ctx.emit(node, "mul", {"other": alpha}, [product])
    bias = ctx.tensor(a["input"])
    if beta != 1:
        bias = ctx.emit_internal(node, "mul", {"other": beta}, [bias], list(ctx.shape(bias)))
    return ctx.emit(node, "add", {} if alpha == 1 else {"alpha": alpha}, [bias, product])


def _softmax(name):
    def handler(ctx, node, a):
        return FUNCTIONS[name](ctx, node, [a["input"], a["dim"]], {})
    return handler


def _rsub(ctx, node, a):
    # rsub(x, other, alpha) = other - alpha * x
    return FUNCTIONS["sub"](ctx, node, [a["other"], a["input"]], {"alpha": a.get("alpha", 1)})


def _identity(ctx, node, a):
    return ctx.alias(a["input"])


def _dropout(ctx, node, a):
    if a.get("train", a.get("training", False)):
        raise ExportError(f"node '{node.name}': dropout in training mode")
    return ctx.alias(a["input"])


def _scaled_dot_product_attention(ctx, node, a):
    """softmax(query @ key^T * scale + mask) @ value, PyTorch's math definition: the causal mask
    and a boolean mask become additive -inf constants (a boolean mask must be a constant; a float
    mask is added as it is)."""
    if a.get("dropout_p", 0.0) != 0.0:
        raise ExportError(f"node '{node.name}': scaled_dot_product_attention with dropout_p > 0 (training)")
    if a.get("enable_gqa"):
        raise ExportError(f"node '{node.name}': scaled_dot_product_attention with enable_gqa is not supported")
    query, key, value = (ctx.tensor(a[k]) for k in ("query", "key", "value"))
    q_shape, k_shape = list(ctx.shape(query)), list(ctx.shape(key))
    if len(q_shape) < 2 or len(k_shape) != len(q_shape):
        raise ExportError(f"node '{node.name}': scaled_dot_product_attention needs query and key of equal rank >= 2")
    length, source = q_shape[-2], k_shape[-2]
    scores_shape = q_shape[:-1] + [source]
    scale = a.get("scale")
    scale = 1.0 / float(q_shape[-1]) ** 0.5 if scale is None else float(scale)
    key_t = ctx.emit_internal(node, "transpose", {"dim0": len(k_shape) - 2, "dim1": len(k_shape) - 1}, [key],
                              k_shape[:-2] + [k_shape[-1], source])
    scores = ctx.emit_internal(node, "matmul", {}, [query, key_t], scores_shape)
    scores = ctx.emit_internal(node, "mul", {"other": scale}, [scores], scores_shape)
    masks = []
    if a.get("is_causal"):
        masks.append(torch.ones(length, source, dtype=torch.bool).tril())
    mask = a.get("attn_mask")
    if mask is not None:
        constant = ctx.constant_tensor(mask)
        if constant is not None:
            masks.append(constant)
        elif ctx.node_meta(mask)[1] == torch.bool:
            raise ExportError(f"node '{node.name}': a boolean attn_mask computed by the model is not supported "
                              "(pass a constant mask, a float mask or is_causal=True)")
        else:
            scores = ctx.emit_internal(node, "add", {}, [scores, ctx.tensor(mask)], scores_shape)
    for m in masks:
        additive = torch.zeros(m.shape).masked_fill(~m, float("-inf")) if m.dtype == torch.bool else m.float()
        scores = ctx.emit_internal(node, "add", {}, [scores, ctx.tensor(additive)], scores_shape)
    weights = ctx.emit_internal(node, "softmax", {"dim": len(scores_shape) - 1}, [scores], scores_shape)
    return ctx.emit(node, "matmul", {}, [weights, value])


def _native_batch_norm(ctx, node, a):
    if a["training"]:
        raise ExportError(f"node '{node.name}': batch_norm in training mode (call module.eval())")
    return _batch_norm_no_training(ctx, node, a)


def _native_layer_norm(ctx, node, a):
    return FUNCTIONS["layer_norm"](ctx, node, [], {k: a[k] for k in ("input", "normalized_shape", "weight", "bias",
                                                                       "eps")})


def _broadcast_to(ctx, node, x, target):
    """x broadcast to `target` (PyTorch's expand rules, already checked by the trace): float32
    as x + (-0.0) with a -0.0 constant spanning the expanded dims, IEEE's identity for addition
    (x bit for bit, NaN and -0.0 included) in one broadcasting dispatch; other dtypes as cats."""
    shape = list(ctx.shape(x))
    if shape == target:
        return x
    if len(shape) < len(target):
        shape = [1] * (len(target) - len(shape)) + shape
        x = ctx.emit_internal(node, "reshape", {"shape": list(shape)}, [x], list(shape))
    if ctx.values[x].dtype == "float32":
        fill = torch.full([t if s != t else 1 for s, t in zip(shape, target)], -0.0)
        return ctx.emit(node, "add", {}, [x, ctx.tensor(fill)])
    for d, (s, t) in enumerate(zip(shape, target)):
        if s != t:
            shape[d] = t
            x = ctx.emit_internal(node, "cat", {"dim": d}, [x] * t, list(shape))
    return x


def _expand(ctx, node, a):
    return _broadcast_to(ctx, node, ctx.tensor(a["input"]), list(ctx.node_shape(node)))


def _repeat(ctx, node, a):
    """repeat: the input tiled along each dim, one cat of copies per repeated dim."""
    x = ctx.tensor(a["input"])
    repeats = [int(r) for r in a["repeats"]]
    shape = list(ctx.shape(x))
    if len(shape) < len(repeats):
        shape = [1] * (len(repeats) - len(shape)) + shape
        x = ctx.emit_internal(node, "reshape", {"shape": list(shape)}, [x], list(shape))
    if 0 in repeats:
        raise ExportError(f"node '{node.name}': repeat with a count of 0 (an empty tensor) is not supported")
    for d, r in enumerate(repeats):
        if r != 1:
            shape[d] *= r
            x = ctx.emit_internal(node, "cat", {"dim": d}, [x] * r, list(shape))
    return x


def _extremum(op, arg_op):
    """max/min over all dims (.default) as amax/amin; over one dim (.dim) the values as amax/amin
    and the indices as argmax/argmin (each built only when a getitem uses it)."""
    def handler(ctx, node, a):
        if "other" in a:
            raise ExportError(f"node '{node.name}': '{node.target}' is not supported (use torch.maximum/minimum)")
        kwargs = {k: a[k] for k in ("input", "dim", "keepdim") if k in a}
        if len(node.target._schema.returns) == 1:
            return ("tensor", FUNCTIONS[op](ctx, node, [], kwargs))

        def pick(ctx, item, index):
            if index == 0:
                return ("tensor", FUNCTIONS[op](ctx, item, [], kwargs))
            return ("tensor", ATEN_INDEX[arg_op](ctx, item, kwargs))
        return ("results", pick)
    return handler


def _constant_like(fill_key=None, value=None):
    """zeros_like/ones_like/full_like and new_zeros/new_ones/new_full: a constant of the node's
    traced shape and dtype, folded at export."""
    def handler(ctx, node, a):
        shape, dtype = ctx.node_meta(node)
        fill = a[fill_key] if fill_key else value
        return ctx.tensor(torch.full(shape, fill, dtype=dtype))
    return handler


def _pixel_shuffle(ctx, node, a):
    """[*, C*r*r, H, W] -> [*, C, H*r, W*r] as reshape, permute, reshape (data movement only)."""
    x = ctx.tensor(a["input"])
    r = int(a["upscale_factor"])
    *lead, c, h, w = ctx.shape(x)
    n = len(lead)
    split = lead + [c // (r * r), r, r, h, w]
    x = ctx.emit_internal(node, "reshape", {"shape": split}, [x], split)
    x = ctx.emit_internal(node, "permute", {"dims": list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2]}, [x],
                          lead + [c // (r * r), h, r, w, r])
    return ctx.emit(node, "reshape", {"shape": list(ctx.node_shape(node))}, [x])


def _pixel_unshuffle(ctx, node, a):
    """[*, C, H*r, W*r] -> [*, C*r*r, H, W] as reshape, permute, reshape."""
    x = ctx.tensor(a["input"])
    r = int(a["downscale_factor"])
    *lead, c, h, w = ctx.shape(x)
    n = len(lead)
    split = lead + [c, h // r, r, w // r, r]
    x = ctx.emit_internal(node, "reshape", {"shape": split}, [x], split)
    x = ctx.emit_internal(node, "permute", {"dims": list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3]}, [x],
                          lead + [c, r, r, h // r, w // r])
    return ctx.emit(node, "reshape", {"shape": list(ctx.node_shape(node))}, [x])


def _channel_shuffle(ctx, node, a):
    """[N, C, *] with g groups -> the channels of [N, g, C/g, *] transposed to [N, C/g, g, *]."""
    x = ctx.tensor(a["input"])
    g = int(a["groups"])
    n, c, *rest = ctx.shape(x)
    split = [n, g, c // g] + rest
    x = ctx.emit_internal(node, "reshape", {"shape": split}, [x], split)
    x = ctx.emit_internal(node, "transpose", {"dim0": 1, "dim1": 2}, [x], [n, c // g, g] + rest)
    return ctx.emit(node, "reshape", {"shape": list(ctx.node_shape(node))}, [x])


def _as_strided(ctx, node, a):
    # Functionalization re-creates views with as_strided; one that reads its input in place
    # (same sizes, same strides wherever a size is above 1, no offset) is the identity.
    source = a["input"]
    meta = None
    if isinstance(source, torch.fx.Node):
        meta = source.meta.get("tensor_meta", source.meta.get("val"))
    stride = getattr(meta, "stride", None)
    stride = stride() if callable(stride) else stride
    same = meta is not None and list(a["size"]) == list(meta.shape) and a.get("storage_offset") in (None, 0) and \
        all(size == 1 or s == t for size, s, t in zip(a["size"], a["stride"], stride))
    if not same:
        raise ExportError(f"node '{node.name}': as_strided other than the identity is not supported")
    return ctx.alias(source)


def _split_results(ctx, node, x, dim, sizes):
    """("results", pick) for split-like operators: result i is a slice of `sizes[i]` along `dim`."""
    shape = list(ctx.shape(x))
    dim %= len(shape)
    starts = [sum(sizes[:i]) for i in range(len(sizes))]

    def pick(ctx, item, index):
        return ("tensor", ctx.emit(item, "slice", {"dim": dim, "start": starts[index],
                                                   "end": starts[index] + sizes[index]}, [x]))

    return ("results", pick)


def _split(ctx, node, a):
    x = ctx.tensor(a["input"])
    dim = int(a.get("dim", 0))
    length = ctx.shape(x)[dim]
    if "split_sizes" in a:
        sizes = [int(s) for s in a["split_sizes"]]
    else:
        step = int(a["split_size"])
        sizes = [min(step, length - start) for start in range(0, length, step)]
    return _split_results(ctx, node, x, dim, sizes)


def _unbind(ctx, node, a):
    x = ctx.tensor(a["input"])
    shape = list(ctx.shape(x))
    dim = int(a.get("dim", 0)) % len(shape)
    sliced_shape = shape[:dim] + [1] + shape[dim + 1:]

    def pick(ctx, item, index):
        sliced = ctx.emit_internal(item, "slice", {"dim": dim, "start": index, "end": index + 1}, [x], sliced_shape)
        return ("tensor", ctx.emit(item, "reshape", {"shape": list(ctx.node_shape(item))}, [sliced]))

    return ("results", pick)


def _stack(ctx, node, a):
    tensors = [ctx.tensor(t) for t in a["tensors"]]
    shape = list(ctx.shape(tensors[0]))
    dim = int(a.get("dim", 0)) % (len(shape) + 1)
    pieces = [ctx.emit_internal(node, "unsqueeze", {"dim": dim}, [t], shape[:dim] + [1] + shape[dim:])
              for t in tensors]
    return ctx.emit(node, "cat", {"dim": dim}, pieces)


def _padding(mode):
    """reflection_pad{1,2,3}d / replication_pad{1,2,3}d: F.pad in one mode."""
    def handler(ctx, node, a):
        return FUNCTIONS["pad"](ctx, node, [a["input"], a["padding"]], {"mode": mode})
    return handler


def _upsample(op):
    """upsample_{nearest,bilinear}2d, .vec (F.interpolate: output_size or scale_factors) and
    the per-dim overload: the output size comes from the traced shape; the scale factors ATen
    received are kept, since PyTorch indexes with 1/scale_factor when it has one."""
    def handler(ctx, node, a):
        x = ctx.tensor(a["input"])
        attrs = {"output_size": [int(s) for s in ctx.node_shape(node)[-2:]]}
        scales = a.get("scale_factors") or [a.get("scales_h"), a.get("scales_w")]
        if any(s is not None for s in scales):
            attrs["scales"] = [0.0 if s is None else float(s) for s in scales]
        if op == "upsample_bilinear2d":
            attrs["align_corners"] = bool(a["align_corners"])
        return ctx.emit(node, op, attrs, [x])
    return handler


def _roll(ctx, node, a):
    """torch.roll as a cat of two slices per rolled dim (the tail moved in front); no dims: the
    flattened tensor rolled, then reshaped back."""
    x = ctx.tensor(a["input"])
    shape = list(ctx.shape(x))
    shifts, dims = list(a["shifts"]), list(a.get("dims") or [])
    if not dims:
        if len(shifts) != 1:
            raise ExportError(f"node '{node.name}': roll without dims takes one shift, got {shifts}")
        numel = 1
        for s in shape:
            numel *= s
        flat = ctx.emit_internal(node, "reshape", {"shape": [numel]}, [x], [numel])
        rolled = _roll_dims(ctx, node, flat, [numel], shifts, [0])
        return ctx.emit(node, "reshape", {"shape": shape}, [rolled])
    if len(shifts) != len(dims):
        raise ExportError(f"node '{node.name}': roll with {len(shifts)} shifts for {len(dims)} dims")
    rolled = _roll_dims(ctx, node, x, shape, shifts, dims)
    return ctx.emit(node, "reshape", {"shape": shape}, [rolled])


def _roll_dims(ctx, node, x, shape, shifts, dims):
    for shift, dim in zip(shifts, dims):
        dim %= len(shape)
        size = shape[dim]
        cut = size - int(shift) % size  # the first element of the result
        if cut == size:
            continue
        tail_shape, head_shape = list(shape), list(shape)
        tail_shape[dim], head_shape[dim] = size - cut, cut
        tail = ctx.emit_internal(node, "slice", {"dim": dim, "start": cut, "end": size}, [x], tail_shape)
        head = ctx.emit_internal(node, "slice", {"dim": dim, "start": 0, "end": cut}, [x], head_shape)
        x = ctx.emit_internal(node, "cat", {"dim": dim}, [tail, head], shape)
    return x


def _write_back(ctx, node, a):
    # Functionalization writes a mutated input back at the end: univk's programs return their
    # outputs and leave inputs alone, so the write-back has no effect on the program.
    return ("invalid", f"node '{node.name}': the write-back of a mutated input has no value")


_UNARY = ["sigmoid", "tanh", "exp", "log", "neg", "abs", "reciprocal", "rsqrt", "sqrt", "relu", "relu6", "silu",
          "hardswish", "hardsigmoid", "floor", "ceil", "sin", "cos"]

ATEN = {name: _call(name, ["input"]) for name in _UNARY}
ATEN.update({name + "_": _call(name, ["input"]) for name in _UNARY})
ATEN.update({
    "hardtanh": _call("hardtanh", ["input", "min_val", "max_val"]),
    "hardtanh_": _call("hardtanh", ["input", "min_val", "max_val"]),
    "gelu": _call("gelu", ["input", "approximate"]),
    "clamp": _call("clamp", ["input", "min", "max"]),
    "clamp_min": _call("clamp", ["input", "min"]), "clamp_max": _call("clamp", ["input", "max"]),
    "add": _call("add", ["input", "other", "alpha"]), "add_": _call("add", ["input", "other", "alpha"]),
    "sub": _call("sub", ["input", "other", "alpha"]), "rsub": _rsub, "mul": _call("mul", ["input", "other"]),
    "div": _div,
    "maximum": _call("maximum", ["input", "other"]), "minimum": _call("minimum", ["input", "other"]),
    "pow": _call("pow", ["input", "exponent"]),
    "conv2d": _call("conv2d", ["input", "weight", "bias", "stride", "padding", "dilation", "groups"]),
    "conv_transpose2d": _call("conv_transpose2d", ["input", "weight", "bias", "stride", "padding", "output_padding",
                                                   "groups", "dilation"]),
    "convolution": _convolution,
    "conv3d": _conv3d,
    "batch_norm": _call("batch_norm", ["input", "running_mean", "running_var", "weight", "bias", "training", "eps"]),
    "_native_batch_norm_legit_no_training": _batch_norm_no_training,
    "linear": _call("linear", ["input", "weight", "bias"]),
    "addmm": _addmm, "baddbmm": _baddbmm,
    "mm": lambda ctx, node, a: FUNCTIONS["matmul"](ctx, node, [a["input"], a["mat2"]], {}),
    "matmul": _call("matmul", ["input", "other"]),
    "bmm": lambda ctx, node, a: FUNCTIONS["bmm"](ctx, node, [a["input"], a["mat2"]], {}),
    "avg_pool2d": _call("avg_pool2d", ["input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                                       "divisor_override"]),
    "max_pool2d": _call("max_pool2d", ["input", "kernel_size", "stride", "padding", "dilation", "ceil_mode"]),
    "max_pool2d_with_indices": _call("max_pool2d", ["input", "kernel_size", "stride", "padding", "dilation",
                                                    "ceil_mode"]),
    "adaptive_avg_pool2d": _call("adaptive_avg_pool2d", ["input", "output_size"]),
    "_adaptive_avg_pool2d": _call("adaptive_avg_pool2d", ["input", "output_size"]),
    # (values, indices): indices are not supported (a getitem of result 1 fails at export).
    "adaptive_max_pool2d": _call("adaptive_max_pool2d", ["input", "output_size"]),
    "mean": _call("mean", ["input", "dim", "keepdim", "dtype"]),
    "sum": _call("sum", ["input", "dim", "keepdim", "dtype"]),
    "amax": _call("amax", ["input", "dim", "keepdim"]), "amin": _call("amin", ["input", "dim", "keepdim"]),
    "prod": _call("prod", ["input", "dim", "keepdim", "dtype"]),
    "all": _call("all", ["input", "dim", "keepdim"]), "any": _call("any", ["input", "dim", "keepdim"]),
    "max": _extremum("amax", "argmax"), "min": _extremum("amin", "argmin"),
    "view": _reshape, "reshape": _reshape, "_unsafe_view": _reshape,
    "flatten": _call("flatten", ["input", "start_dim", "end_dim"]),
    "permute": lambda ctx, node, a: FUNCTIONS["permute"](ctx, node, [a["input"]], {"dims": a["dims"]}),
    "transpose": _call("transpose", ["input", "dim0", "dim1"]), "t": _t,
    "squeeze": _call("squeeze", ["input", "dim"]), "unsqueeze": _call("unsqueeze", ["input", "dim"]),
    "cat": _call("cat", ["tensors", "dim"]), "stack": _stack, "concat": _call("cat", ["tensors", "dim"]),
    "slice": _slice, "select": _select, "roll": _roll,
    "constant_pad_nd": _call("pad", ["input", "pad", "value"]),
    "upsample_nearest2d": _upsample("upsample_nearest2d"), "upsample_bilinear2d": _upsample("upsample_bilinear2d"),
    **{f"reflection_pad{n}d": _padding("reflect") for n in (1, 2, 3)},
    **{f"replication_pad{n}d": _padding("replicate") for n in (1, 2, 3)},
    "_softmax": _softmax("softmax"), "softmax": _softmax("softmax"),
    "_log_softmax": _softmax("log_softmax"), "log_softmax": _softmax("log_softmax"),
    "layer_norm": _call("layer_norm", ["input", "normalized_shape", "weight", "bias", "eps"]),
    "scaled_dot_product_attention": _scaled_dot_product_attention,
    "native_batch_norm": _native_batch_norm, "native_layer_norm": _native_layer_norm,
    "_reshape_alias": _reshape, "expand": _expand, "repeat": _repeat,
    "zeros_like": _constant_like(value=0), "ones_like": _constant_like(value=1),
    "full_like": _constant_like("fill_value"), "new_zeros": _constant_like(value=0),
    "new_ones": _constant_like(value=1), "new_full": _constant_like("fill_value"),
    "pixel_shuffle": _pixel_shuffle, "pixel_unshuffle": _pixel_unshuffle, "channel_shuffle": _channel_shuffle,
    "native_channel_shuffle": _channel_shuffle, "as_strided": _as_strided,
    "split": _split, "split_with_sizes": _split, "unsafe_split": _split, "unsafe_split_with_sizes": _split, "unbind": _unbind, "copy_": _write_back,
    "dropout": _dropout, "native_dropout": _dropout, "feature_dropout": _dropout, "alpha_dropout": _dropout,
    "feature_alpha_dropout": _dropout, "clone": _identity, "contiguous": _identity, "alias": _identity, "detach": _identity,
    "lift_fresh_copy": _identity,
})
ATEN.update(ATEN_INDEX)


def is_aten(target):
    return isinstance(target, torch._ops.OpOverload)


_MULTI_RESULT = {"split", "split_with_sizes", "unsafe_split", "unsafe_split_with_sizes", "unbind", "copy_",
                 "max", "min"}


def convert_aten(ctx, node):
    """Returns the env entry of an ATen call_function node: ("tensor", IR value id) for operators
    with one result (or whose extra results are statistics), else ("results", pick) or
    ("invalid", why)."""
    name, bound = bind_schema(node)
    handler = ATEN.get(name)
    if handler is None:
        raise ExportError(f"node '{node.name}': ATen operator '{node.target}' is not supported")
    resolved = {k: (ctx.static(v) if ctx.is_static(v) else v) for k, v in bound.items()}
    result = handler(ctx, node, resolved)
    if name in _MULTI_RESULT:
        return result
    if len(node.target._schema.returns) > 1:
        return ("results", _first_result(result))
    return ("tensor", result)


def _first_result(vid):
    """pick for operators returning (result, saved statistics or indices)."""
    def pick(ctx, item, index):
        if index == 0:
            return ("tensor", vid)
        # Extra results (batch norm statistics, pooling indices): an error only if used.
        return ("invalid", f"node '{item.name}': result {index} of '{item.args[0].name}' is not supported")
    return pick


def is_random(node):
    """True for operators that draw random numbers: those PyTorch tags as seeded, unless the call
    turns the randomness off (train=False, as an eval-mode LSTM or dropout passes, or a dropout
    probability of 0, as scaled_dot_product_attention gets in eval mode)."""
    if not (node.op == "call_function" and is_aten(node.target) and
            torch.Tag.nondeterministic_seeded in getattr(node.target, "tags", ())):
        return False
    _, bound = bind_schema(node)
    for arg in node.target._schema.arguments:  # arguments left at their defaults count too
        if arg.name not in bound and arg.has_default_value():
            bound[arg.name] = arg.default_value
    if bound.get("train", bound.get("training")) is False:
        return False
    return not any(k in bound and bound[k] == 0 for k in ("dropout_p", "dropout", "p"))


def is_getitem(node):
    return node.op == "call_function" and node.target is operator.getitem
