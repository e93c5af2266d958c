"""ATen comparison, logical, selection, indexing and scan operators (docs/OPERATORS.md,
"Comparison, selection and indexing"), mapped onto univk's IR operators of the same meaning.

Token ids reach the program as PyTorch gives them (int64); constant indices are checked against
the indexed dim here, so a model whose constant index is out of range fails at export naming the
node.
"""

import numpy as np
import torch

from .ops import ExportError

_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
# x OP s == s SWAPPED x: a scalar on the left becomes the right operand of the mirrored op.
_MIRRORED = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}


def _scalar_tensor(ctx, node, value, like):
    """A 0-d constant holding `value` in the dtype of IR value `like`."""
    dtype = {"float32": torch.float32, "int32": torch.int32, "int64": torch.int64,
             "bool": torch.bool}.get(ctx.values[like].dtype)
    if dtype is None:
        raise ExportError(f"node '{node.name}': a scalar operand next to a {ctx.values[like].dtype} tensor "
                          f"is not supported")
    return ctx.tensor(torch.tensor(value, dtype=dtype))


_INTEGER_DTYPES = ("int8", "int16", "int32", "int64")


def integer_operator(ctx, node, op, lhs, rhs=None):
    """An integer operator (bitwise, shifts, floor/trunc division) of an integer tensor and a
    tensor or Python int (a 0-d constant of the tensor's dtype)."""
    if ctx.is_static(lhs):
        raise ExportError(f"node '{node.name}': {op} of a scalar and a tensor in this order is not supported")
    x = ctx.tensor(lhs)
    dtype = ctx.values[x].dtype
    if dtype not in _INTEGER_DTYPES:
        raise ExportError(f"node '{node.name}': {op} of {dtype} tensors is not supported (integer tensors are)")
    inputs = [x]
    if op != "bitwise_not" and ctx.is_static(rhs):
        # A constant of x's rank with every dim 1 (the VgfBackend takes no rank-0 tensors).
        torch_dtype = {"int8": torch.int8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64}[dtype]
        inputs.append(ctx.tensor(torch.full([1] * len(ctx.shape(x)), int(ctx.static(rhs)), dtype=torch_dtype)))
    elif op != "bitwise_not":
        inputs.append(ctx.tensor(rhs))
    return ctx.emit(node, op, {}, inputs)


def _integer(op):
    return lambda ctx, node, a: integer_operator(ctx, node, op, a["input"], a.get("other"))


def _compare(op):
    def handler(ctx, node, a):
        lhs, rhs = a["input"], a["other"]
        if ctx.is_static(lhs):
            raise ExportError(f"node '{node.name}': {op} of a scalar and a tensor in this order is not supported")
        x = ctx.tensor(lhs)
        if ctx.is_static(rhs):
            value = ctx.static(rhs)
            if isinstance(value, torch.Tensor) or not isinstance(value, (int, float, bool)):
                raise ExportError(f"node '{node.name}': {op} with a {type(value).__name__} operand is not supported")
            return ctx.emit(node, op, {"other": float(value)}, [x])
        return ctx.emit(node, op, {}, [x, ctx.tensor(rhs)])
    return handler


def _logical(op):
    def handler(ctx, node, a):
        inputs = [ctx.tensor(a["input"])]
        if op != "logical_not":
            inputs.append(ctx.tensor(a["other"]))
        return ctx.emit(node, op, {}, inputs)
    return handler


def _where(ctx, node, a):
    cond = ctx.tensor(a["condition"])
    if ctx.values[cond].dtype != "bool":
        raise ExportError(f"node '{node.name}': where needs a bool condition, got {ctx.values[cond].dtype}")
    x, y = a["input"], a["other"]
    if ctx.is_static(x) and ctx.is_static(y):
        raise ExportError(f"node '{node.name}': where with two scalar values is not supported")
    xs = None if ctx.is_static(x) else ctx.tensor(x)
    ys = None if ctx.is_static(y) else ctx.tensor(y)
    if xs is None:
        xs = _scalar_tensor(ctx, node, ctx.static(x), ys)
    if ys is None:
        ys = _scalar_tensor(ctx, node, ctx.static(y), xs)
    return ctx.emit(node, "where", {}, [cond, xs, ys])


def _masked_fill(ctx, node, a):
    x, mask, value = ctx.tensor(a["input"]), ctx.tensor(a["mask"]), a["value"]
    if ctx.values[mask].dtype != "bool":
        raise ExportError(f"node '{node.name}': masked_fill needs a bool mask, got {ctx.values[mask].dtype}")
    if not ctx.is_static(value):
        vid = ctx.tensor(value)
        if ctx.values[vid].kind != "constant" or ctx.values[vid].data.size != 1:
            raise ExportError(f"node '{node.name}': masked_fill with a computed fill value is not supported")
        value = ctx.values[vid].data.reshape(()).item()
    return ctx.emit(node, "masked_fill", {"value": float(value)}, [x, mask])


def _check_constant_index(ctx, node, index, size):
    v = ctx.values[index]
    if v.dtype not in ("int32", "int64"):
        raise ExportError(f"node '{node.name}': the index is {v.dtype}; int32 or int64 is required")
    if v.kind == "constant" and v.data.size:
        lo, hi = int(np.min(v.data)), int(np.max(v.data))
        if lo < 0 or hi >= size:
            bad = lo if lo < 0 else hi
            raise ExportError(f"node '{node.name}': constant index {bad} is out of range for a dim of size {size}")


def _index_select(ctx, node, a):
    x, index = ctx.tensor(a["input"]), ctx.tensor(a["index"])
    shape = ctx.shape(x)
    dim = int(a["dim"]) % max(len(shape), 1)
    _check_constant_index(ctx, node, index, shape[dim] if shape else 1)
    return ctx.emit(node, "index_select", {"dim": dim}, [x, index])


def _embedding(ctx, node, a):
    """weight[indices]: indices flattened to 1-d, index_select along dim 0, reshaped back."""
    weight, indices = ctx.tensor(a["weight"]), ctx.tensor(a["indices"])
    rows, width = ctx.shape(weight)
    _check_constant_index(ctx, node, indices, rows)
    count = int(np.prod(ctx.shape(indices), dtype=np.int64))
    flat = ctx.emit_internal(node, "reshape", {"shape": [count]}, [indices], [count])
    picked = ctx.add_node(f"{node.name}_index_select", "index_select", {"dim": 0}, [weight, flat],
                          ctx.values[weight].dtype, [count, width])
    return ctx.emit(node, "reshape", {"shape": list(ctx.node_shape(node))}, [picked])


def _arg_reduce(op):
    def handler(ctx, node, a):
        attrs = {"keepdim": bool(a.get("keepdim", False))}
        if a.get("dim") is not None:
            attrs["dim"] = int(a["dim"])
        return ctx.emit(node, op, attrs, [ctx.tensor(a["input"])])
    return handler


def _cumsum(ctx, node, a):
    x = ctx.tensor(a["input"])
    if a.get("dtype") is not None and a["dtype"] != torch.float32:
        raise ExportError(f"node '{node.name}': cumsum with dtype={a['dtype']} is not supported")
    if ctx.values[x].dtype != "float32":
        raise ExportError(f"node '{node.name}': cumsum of {ctx.values[x].dtype} is not supported (float32 is)")
    return ctx.emit(node, "cumsum", {"dim": int(a["dim"])}, [x])


def _flip(ctx, node, a):
    return ctx.emit(node, "flip", {"dims": [int(d) for d in a["dims"]]}, [ctx.tensor(a["input"])])


def _gather(ctx, node, a):
    raise ExportError(f"node '{node.name}': torch.gather is not supported (index_select and embedding are)")


ATEN_INDEX = {
    **{op: _compare(op) for op in _COMPARE},
    "logical_and": _logical("logical_and"), "logical_or": _logical("logical_or"),
    "logical_xor": _logical("logical_xor"), "logical_not": _logical("logical_not"),
    **{op: _integer(op) for op in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
                                   "bitwise_right_shift", "floor_divide")},
    "__lshift__": _integer("bitwise_left_shift"), "__rshift__": _integer("bitwise_right_shift"),
    "where": _where, "masked_fill": _masked_fill, "masked_fill_": _masked_fill,
    "index_select": _index_select, "embedding": _embedding,
    "argmax": _arg_reduce("argmax"), "argmin": _arg_reduce("argmin"),
    "cumsum": _cumsum, "gather": _gather, "flip": _flip,
}
