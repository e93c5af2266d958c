"""Handlers that turn one PyTorch operator call into univk graph IR operators (PyTorch semantics).

Each handler receives the exporter context, the fx node and its arguments under PyTorch-API
names (aten.py binds ATen schemas to them) and returns the IR value of the node's result. Op and attribute names are those of univk's CPU reference
kernels (docs/OPERATORS.md): the IR keeps PyTorch's meaning, the C++ lowerings translate it.
"""

import torch

from .errors import Error

_NO_DEFAULT = object()


class ExportError(Error):
    """A model construct univk cannot export; the message names the fx node."""


class ExportLimitWarning(UserWarning):
    """A tensor or weight over the binding limit of common devices (warned at export)."""


def bind(node, signature, args, kwargs):
    """Binds positional args and kwargs to `signature` [(name, default), ...] like Python does."""
    bound = {}
    names = [name for name, _ in signature]
    if len(args) > len(signature):
        raise ExportError(f"node '{node.name}': {len(args)} positional arguments, expected at most {len(signature)}")
    for (name, _), value in zip(signature, args):
        bound[name] = value
    for key, value in kwargs.items():
        if key not in names:
            raise ExportError(f"node '{node.name}': unsupported argument '{key}'")
        bound[key] = value
    for name, default in signature:
        if name not in bound:
            if default is _NO_DEFAULT:
                raise ExportError(f"node '{node.name}': missing argument '{name}'")
            bound[name] = default
    return bound


def _pair(value):
    if isinstance(value, (list, tuple)):
        return [int(v) for v in value]
    return [int(value)] * 2


def _ints(value):
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(_ints(v))
        return out
    return [int(value)]


def _is_scalar(value):
    return isinstance(value, (int, float, bool)) and not isinstance(value, torch.Tensor)


# ----- handlers: (ctx, node, a) -> IR value id ---------------------------------------------

def _unary(op, extra=()):
    signature = [("input", _NO_DEFAULT)] + [(name, default) for name, default in extra] + [("inplace", False)]

    def handler(ctx, node, args, kwargs):
        a = bind(node, signature, args, kwargs)
        attrs = {name: ctx.static(a[name]) for name, _ in extra if a[name] is not None}
        return ctx.emit(node, op, attrs, [ctx.tensor(a["input"])])

    return handler


def _clamp(ctx, node, args, kwargs):
    a = bind(node, [("input", _NO_DEFAULT), ("min", None), ("max", None)], args, kwargs)
    if a["min"] is None and a["max"] is None:
        raise ExportError(f"node '{node.name}': clamp needs min or max")
    if any(a[name] is not None and not ctx.is_static(a[name]) for name in ("min", "max")):
        return _clamp_by_tensors(ctx, node, a)
    attrs = {}
    for name in ("min", "max"):
        if a[name] is not None:
            if not _is_scalar(ctx.static(a[name])):
                raise ExportError(f"node '{node.name}': clamp with a non-scalar '{name}' is not supported")
            attrs[name] = float(ctx.static(a[name]))
    return ctx.emit(node, "clamp", attrs, [ctx.tensor(a["input"])])


def _clamp_by_tensors(ctx, node, a):
    """clamp with a tensor bound: maximum with min, then minimum with max (broadcasting). Equal
    to torch.clamp: NaN propagates from any operand and min > max gives max."""
    x = ctx.tensor(a["input"])
    for name, op in (("min", "maximum"), ("max", "minimum")):
        bound = a[name]
        if bound is None:
            continue
        if ctx.is_static(bound):
            attrs, inputs = {"other": float(ctx.static(bound))}, [x]
        else:
            attrs, inputs = {}, [x, ctx.tensor(bound)]
        if name == "max" or a["max"] is None:
            return ctx.emit(node, op, attrs, inputs)
        shape = list(torch.broadcast_shapes(*(tuple(ctx.shape(i)) for i in inputs)))
        x = ctx.emit_internal(node, op, attrs, inputs, shape)
    return x


def _binary(op):
    def handler(ctx, node, args, kwargs):
        names = [("input", _NO_DEFAULT), ("other", _NO_DEFAULT)]
        if op in ("add", "sub"):
            names.append(("alpha", 1))
        if op == "div":
            names.append(("rounding_mode", None))
        if op == "pow":
            names = [("input", _NO_DEFAULT), ("exponent", _NO_DEFAULT)]
        a = bind(node, names, args, kwargs)
        lhs, rhs = a["input"], a["exponent" if op == "pow" else "other"]
        if a.get("rounding_mode") is not None:
            raise ExportError(f"node '{node.name}': div with rounding_mode='{a['rounding_mode']}' is not supported")
        attrs = {}
        if a.get("alpha", 1) != 1:
            attrs["alpha"] = float(ctx.static(a["alpha"]))
        lhs_scalar, rhs_scalar = ctx.is_static(lhs), ctx.is_static(rhs)
        if lhs_scalar and rhs_scalar:
            raise ExportError(f"node '{node.name}': {op} of two scalars produces no tensor")
        if rhs_scalar:
            attrs["other"] = float(ctx.static(rhs))
            return ctx.emit(node, op, attrs, [ctx.tensor(lhs)])
        if lhs_scalar:
            attrs["other"] = float(ctx.static(lhs))
            attrs["scalar_first"] = True
            return ctx.emit(node, op, attrs, [ctx.tensor(rhs)])
        return ctx.emit(node, op, attrs, [ctx.tensor(lhs), ctx.tensor(rhs)])

    return handler


def _avg_pool2d(ctx, node, args, kwargs):
    a = bind(node, [("input", _NO_DEFAULT), ("kernel_size", _NO_DEFAULT), ("stride", None), ("padding", 0),
                    ("ceil_mode", False), ("count_include_pad", True), ("divisor_override", None)], args, kwargs)
    attrs = {"kernel_size": _pair(a["kernel_size"]), "padding": _pair(a["padding"]),
             "ceil_mode": bool(a["ceil_mode"]), "count_include_pad": bool(a["count_include_pad"])}
    if a["stride"] is not None and a["stride"] != []:
        attrs["stride"] = _pair(a["stride"])
    if a["divisor_override"] is not None:
        attrs["divisor_override"] = int(a["divisor_override"])
    return ctx.emit(node, "avg_pool2d", attrs, [ctx.tensor(a["input"])])


def _max_pool2d(ctx, node, args, kwargs):
    a = bind(node, [("input", _NO_DEFAULT), ("kernel_size", _NO_DEFAULT), ("stride", None), ("padding", 0),
                    ("dilation", 1), ("ceil_mode", False), ("return_indices", False)], args, kwargs)
    if a["return_indices"]:
        raise ExportError(f"node '{node.name}': max_pool2d with return_indices=True is not supported")
    attrs = {"kernel_size": _pair(a["kernel_size"]), "padding": _pair(a["padding"]),
             "dilation": _pair(a["dilation"]), "ceil_mode": bool(a["ceil_mode"])}
    if a["stride"] is not None and a["stride"] != []:
        attrs["stride"] = _pair(a["stride"])
    return ctx.emit(node, "max_pool2d", attrs, [ctx.tensor(a["input"])])


def _adaptive_pool2d(op):
    def handler(ctx, node, args, kwargs):
        a = bind(node, [("input", _NO_DEFAULT), ("output_size", _NO_DEFAULT)], args, kwargs)
        x = ctx.tensor(a["input"])
        in_shape = ctx.shape(x)
        size = a["output_size"]
        size = list(size) if isinstance(size, (list, tuple)) else [size, size]
        size = [in_shape[-2 + i] if s is None else int(s) for i, s in enumerate(size)]
        return ctx.emit(node, op, {"output_size": size}, [x])
    return handler


def _conv_attrs(node, stride, padding, dilation, groups):
    attrs = {"stride": _pair(stride), "dilation": _pair(dilation), "groups": int(groups)}
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ExportError(f"node '{node.name}': conv2d padding '{padding}' is not supported")
        attrs["padding"] = padding
    else:
        attrs["padding"] = _pair(padding)
    return attrs


def _conv2d(ctx, node, args, kwargs):
    a = bind(node, [("input", _NO_DEFAULT), ("weight", _NO_DEFAULT), ("bias", None), ("stride", 1),
                    ("padding", 0), ("dilation", 1), ("groups", 1)], args, kwargs)
    inputs = [ctx.tensor(a["input"]), ctx.tensor(a["weight"])]
    if a["bias"] is not None:
        inputs.append(ctx.tensor(a["bias"]))
    return ctx.emit(node, "conv2d", _conv_attrs(node, a["stride"], a["padding"], a["dilation"], a["groups"]), inputs)


def _conv_transpose2d(ctx, node, args, kwargs):
    a = bind(node, [("input", _NO_DEFAULT), ("weight", _NO_DEFAULT), ("bias", None), ("stride", 1),
                    ("padding", 0), ("output_padding", 0), ("groups", 1), ("dilation", 1)], args, kwargs)
    inputs = [ctx.tensor(a["input"]), ctx.tensor(a["weight"])]
    if a["bias"] is not None:
        inputs.append(ctx.tensor(a["bias"]))
    attrs = {"stride": _pair(a["stride"]), "padding": _pair(a["padding"]),
             "output_padding": _pair(a["output_padding"]), "dilation": _pair(a["dilation"]),
             "groups": int(a["groups"])}
    return ctx.emit(node, "conv_transpose2d", attrs, inputs)


def _linear(ctx, node, args, kwargs):
    a = bind(node, [("input", _NO_DEFAULT), ("weight", _NO_DEFAULT), ("bias", None)], args, kwargs)
    inputs = [ctx.tensor(a["input"]), ctx.tensor(a["weight"])]
    if a["bias"] is not None:
        inputs.append(ctx.tensor(a["bias"]))
    return ctx.emit(node, "linear", {}, inputs)


def _matmul(op):
    def handler(ctx, node, args, kwargs):
        a = bind(node, [("input", _NO_DEFAULT), ("other", _NO_DEFAULT)], args, kwargs)
        return ctx.emit(node, op, {}, [ctx.tensor(a["input"]), ctx.tensor(a["other"])])

    return handler


def _reduce(op):
    def handler(ctx, node, args, kwargs):
        a = bind(node, [("input", _NO_DEFAULT), ("dim", None), ("keepdim", False), ("dtype", None)], args, kwargs)
        if a["dtype"] is not None:
            raise ExportError(f"node '{node.name}': {op} with dtype= is not supported")
        attrs = {"keepdim": bool(ctx.static(a["keepdim"]))}
        if a["dim"] is not None:
            attrs["dim"] = _ints(ctx.static(a["dim"]))
        return ctx.emit(node, op, attrs, [ctx.tensor(a["input"])])

    return handler


def _softmax(op):
    def handler(ctx, node, args, kwargs):
        a = bind(node, [("input", _NO_DEFAULT), ("dim", None), ("_stacklevel", 3), ("dtype", None)], args, kwargs)
        if a["dim"] is None or a["dtype"] is not None:
            raise ExportError(f"node '{node.name}': {op} needs dim= and no dtype=")
        return ctx.emit(node, op, {"dim": int(ctx.static(a["dim"]))}, [ctx.tensor(a["input"])])

    return handler


def _flatten(ctx, node, args, kwargs):
    a = bind(node, [("input", _NO_DEFAULT), ("start_dim", 0), ("end_dim", -1)], args, kwargs)
    return ctx.emit(node, "flatten", {"start_dim": int(a["start_dim"]), "end_dim": int(a["end_dim"])},
                    [ctx.tensor(a["input"])])


def _reshape(ctx, node, args, kwargs):
    # torch.reshape(x, shape) and the methods x.view(*shape) / x.reshape(shape)
    if "shape" in kwargs:
        shape = kwargs["shape"]
    elif len(args) == 2 and isinstance(ctx.static_or_none(args[1]), (list, tuple)):
        shape = args[1]
    else:
        shape = list(args[1:])
    shape = _ints(ctx.static(shape))
    return ctx.emit(node, "reshape", {"shape": shape}, [ctx.tensor(args[0])])


def _permute(ctx, node, args, kwargs):
    dims = kwargs.get("dims", args[1] if len(args) == 2 else list(args[1:]))
    return ctx.emit(node, "permute", {"dims": _ints(ctx.static(dims))}, [ctx.tensor(args[0])])


def _transpose(ctx, node, args, kwargs):
    a = bind(node, [("input", _NO_DEFAULT), ("dim0", _NO_DEFAULT), ("dim1", _NO_DEFAULT)], args, kwargs)
    return ctx.emit(node, "transpose", {"dim0": int(a["dim0"]), "dim1": int(a["dim1"])}, [ctx.tensor(a["input"])])


def _squeeze(op):
    def handler(ctx, node, args, kwargs):
        a = bind(node, [("input", _NO_DEFAULT), ("dim", None)], args, kwargs)
        attrs = {} if a["dim"] is None else {"dim": int(a["dim"])}
        return ctx.emit(node, op, attrs, [ctx.tensor(a["input"])])

    return handler


def _cat(ctx, node, args, kwargs):
    a = bind(node, [("tensors", _NO_DEFAULT), ("dim", 0)], args, kwargs)
    return ctx.emit(node, "cat", {"dim": int(a["dim"])}, [ctx.tensor(t) for t in a["tensors"]])


def _pad(ctx, node, args, kwargs):
    a = bind(node, [("input", _NO_DEFAULT), ("pad", _NO_DEFAULT), ("mode", "constant"), ("value", None)],
             args, kwargs)
    attrs = {"pad": _ints(a["pad"]), "mode": str(a["mode"])}
    if a["value"] is not None:
        attrs["value"] = float(a["value"])
    return ctx.emit(node, "pad", attrs, [ctx.tensor(a["input"])])


def _layer_norm(ctx, node, args, kwargs):
    a = bind(node, [("input", _NO_DEFAULT), ("normalized_shape", _NO_DEFAULT), ("weight", None), ("bias", None),
                    ("eps", 1e-5)], args, kwargs)
    inputs = [ctx.tensor(a["input"])]
    if (a["weight"] is None) != (a["bias"] is None):
        raise ExportError(f"node '{node.name}': layer_norm with only one of weight and bias is not supported")
    if a["weight"] is not None:
        inputs += [ctx.tensor(a["weight"]), ctx.tensor(a["bias"])]
    return ctx.emit(node, "layer_norm", {"normalized_shape": _ints(a["normalized_shape"]), "eps": float(a["eps"])},
                    inputs)


def _batch_norm(ctx, node, args, kwargs):
    a = bind(node, [("input", _NO_DEFAULT), ("running_mean", _NO_DEFAULT), ("running_var", _NO_DEFAULT),
                    ("weight", None), ("bias", None), ("training", False), ("momentum", 0.1), ("eps", 1e-5)],
             args, kwargs)
    if a["training"]:
        raise ExportError(f"node '{node.name}': batch_norm in training mode (call module.eval())")
    if a["running_mean"] is None or a["running_var"] is None:
        raise ExportError(f"node '{node.name}': batch_norm without running statistics is not supported")
    x = ctx.tensor(a["input"])
    channels = ctx.shape(x)[1]
    weight = a["weight"] if a["weight"] is not None else torch.ones(channels)
    bias = a["bias"] if a["bias"] is not None else torch.zeros(channels)
    inputs = [x, ctx.tensor(weight), ctx.tensor(bias), ctx.tensor(a["running_mean"]), ctx.tensor(a["running_var"])]
    return ctx.emit(node, "batch_norm", {"eps": float(a["eps"])}, inputs)


# Handlers by PyTorch operator name.
FUNCTIONS = {
    "sigmoid": _unary("sigmoid"), "tanh": _unary("tanh"), "exp": _unary("exp"), "log": _unary("log"),
    "neg": _unary("neg"), "abs": _unary("abs"), "reciprocal": _unary("reciprocal"), "rsqrt": _unary("rsqrt"),
    "sqrt": _unary("sqrt"), "relu": _unary("relu"), "relu6": _unary("relu6"), "silu": _unary("silu"),
    "hardswish": _unary("hardswish"), "hardsigmoid": _unary("hardsigmoid"),
    "floor": _unary("floor"), "ceil": _unary("ceil"), "sin": _unary("sin"), "cos": _unary("cos"),
    "hardtanh": _unary("hardtanh", [("min_val", -1.0), ("max_val", 1.0)]),
    "gelu": _unary("gelu", [("approximate", "none")]),
    "clamp": _clamp,
    "add": _binary("add"), "sub": _binary("sub"), "mul": _binary("mul"), "div": _binary("div"),
    "maximum": _binary("maximum"), "minimum": _binary("minimum"), "pow": _binary("pow"),
    "avg_pool2d": _avg_pool2d, "max_pool2d": _max_pool2d, "adaptive_avg_pool2d": _adaptive_pool2d("adaptive_avg_pool2d"),
    "adaptive_max_pool2d": _adaptive_pool2d("adaptive_max_pool2d"),
    "conv2d": _conv2d, "conv_transpose2d": _conv_transpose2d, "linear": _linear, "matmul": _matmul("matmul"), "bmm": _matmul("bmm"),
    "mean": _reduce("mean"), "sum": _reduce("sum"), "amax": _reduce("amax"), "amin": _reduce("amin"),
    "prod": _reduce("prod"), "all": _reduce("all"), "any": _reduce("any"),
    "softmax": _softmax("softmax"), "log_softmax": _softmax("log_softmax"),
    "flatten": _flatten, "reshape": _reshape, "permute": _permute, "transpose": _transpose,
    "squeeze": _squeeze("squeeze"), "unsqueeze": _squeeze("unsqueeze"),
    "cat": _cat, "pad": _pad, "batch_norm": _batch_norm, "layer_norm": _layer_norm,
}
