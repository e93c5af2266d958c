"""univk.export: capture a PyTorch module and compile it with the C++ compiler.

Steps:
  1. capture: torch.export.export where it exists (PyTorch 2.x: a graph of ATen operators with
     shapes in node.meta["val"]); otherwise torch.fx.symbolic_trace plus ShapeProp on the
     example inputs (Debian's torch 1.13);
  2. each graph node becomes an IR operator (ops.py, aten.py); module parameters and buffers
     become constants; identity ops (eval-mode dropout, contiguous) disappear;
  3. eval-mode batch norms that directly follow a convolution are folded into its weights;
  4. the IR goes to the C++ compiler (_univk.compile): partitioning across backends, lowering
     to VGF / VulkanBackend payloads, and the program writer.
"""

import contextlib
import io
import os
import sys
import traceback

import numpy as np
import torch
import torch.fx
from torch.fx.passes.shape_prop import ShapeProp

from . import _univk
from . import aten
from .ops import FUNCTIONS, ExportError

_TORCH_TO_UNIVK = {
    torch.float32: "float32", torch.float16: "float16", torch.int8: "int8", torch.uint8: "uint8",
    torch.int32: "int32", torch.int64: "int64", torch.bool: "bool", torch.int16: "int16",
}


def _univk_dtype(dtype, what):
    if dtype not in _TORCH_TO_UNIVK:
        raise ExportError(f"{what}: dtype {dtype} is not supported")
    return _TORCH_TO_UNIVK[dtype]


class _Value:
    __slots__ = ("name", "kind", "dtype", "shape", "data")

    def __init__(self, name, kind, dtype, shape, data=None):
        self.name, self.kind, self.dtype, self.shape, self.data = name, kind, dtype, list(shape), data


class _Node:
    __slots__ = ("name", "op", "attrs", "inputs", "output")

    def __init__(self, name, op, attrs, inputs, output):
        self.name, self.op, self.attrs, self.inputs, self.output = name, op, attrs, list(inputs), output


class _Context:
    """Python-side IR under construction (folded before it is handed to C++)."""

    def __init__(self, module, lifted):
        self.module = module
        self.lifted = {placeholder: tensor for placeholder, (_, tensor) in lifted.items()}
        self.values = []
        self.nodes = []
        self.inputs = []
        self.outputs = []
        # fx node -> ("tensor", value id) | ("static", python value) | ("invalid", error message)
        self.env = {}
        self.names = set()
        self.constants = {}  # id(tensor) -> value id
        self.param_names = {id(t): name for name, t in list(module.named_parameters()) + list(module.named_buffers())}
        self.param_names.update({id(tensor): name for name, tensor in lifted.values()})

    # -- names and values ------------------------------------------------------------------
    def unique(self, name):
        base, k = name.replace(".", "_"), 0
        name = base
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return name

    def add_value(self, name, kind, dtype, shape, data=None):
        self.values.append(_Value(self.unique(name), kind, dtype, shape, data))
        return len(self.values) - 1

    def shape(self, vid):
        return self.values[vid].shape

    @staticmethod
    def node_meta(node):
        """(shape, torch dtype) of a node's (first) tensor result, from ShapeProp or torch.export."""
        meta = node.meta.get("tensor_meta")
        if meta is None:
            meta = node.meta.get("val")
        if not hasattr(meta, "shape") and isinstance(meta, (tuple, list)) and meta:
            meta = meta[0]  # ATen ops returning (result, saved statistics...)
        if meta is None or not hasattr(meta, "shape") or not hasattr(meta, "dtype"):
            raise ExportError(f"node '{node.name}': no tensor shape was recorded (is its result a tensor?)")
        return list(meta.shape), meta.dtype

    @classmethod
    def node_shape(cls, node):
        return cls.node_meta(node)[0]

    # -- argument resolution ---------------------------------------------------------------
    def is_static(self, arg):
        if isinstance(arg, torch.fx.Node):
            return self.env[arg][0] == "static"
        if isinstance(arg, (list, tuple)):
            return all(self.is_static(a) for a in arg)
        return not isinstance(arg, torch.Tensor)

    def static(self, arg):
        if isinstance(arg, torch.fx.Node):
            kind, value = self.env[arg]
            if kind != "static":
                raise ExportError(f"node '{arg.name}' is a tensor where a constant Python value is needed")
            return value
        if isinstance(arg, (list, tuple)):
            return type(arg)(self.static(a) for a in arg)
        if isinstance(arg, slice):
            return slice(self.static(arg.start), self.static(arg.stop), self.static(arg.step))
        return arg

    def static_or_none(self, arg):
        try:
            return self.static(arg)
        except ExportError:
            return None

    def tensor(self, arg):
        if isinstance(arg, torch.fx.Node):
            kind, value = self.env[arg]
            if kind == "invalid":
                raise ExportError(value)
            if kind != "tensor":
                raise ExportError(f"node '{arg.name}' is a Python value where a tensor is needed")
            return value
        if isinstance(arg, torch.Tensor):
            key = id(arg)
            if key not in self.constants:
                data = arg.detach().cpu().contiguous()
                name = self.param_names.get(key, "constant")
                self.constants[key] = self.add_value(name, "constant", _univk_dtype(data.dtype, name),
                                                     data.shape, data.numpy().copy())
            return self.constants[key]
        raise ExportError(f"expected a tensor, got {type(arg).__name__}")

    # -- node emission -----------------------------------------------------------------------
    def emit(self, node, op, attrs, inputs):
        shape, dtype = self.node_meta(node)
        vid = self.add_value(node.name, "node", _univk_dtype(dtype, f"node '{node.name}'"), shape)
        self.nodes.append(_Node(self.values[vid].name, op, attrs, inputs, vid))
        return vid

    def emit_internal(self, node, op, attrs, inputs, shape):
        vid = self.add_value(f"{node.name}_{op}", "node", self.values[inputs[0]].dtype, shape)
        self.nodes.append(_Node(self.values[vid].name, op, attrs, inputs, vid))
        return vid

    def alias(self, arg):
        return self.tensor(arg)


# ----- modules -------------------------------------------------------------------------------

def _module_call(ctx, node, mod, args, kwargs):
    nn = torch.nn
    x = args[0] if args else kwargs.get("input")
    if isinstance(mod, nn.Conv2d):
        if mod.padding_mode != "zeros":
            raise ExportError(f"node '{node.name}' (Conv2d): padding_mode '{mod.padding_mode}' is not supported")
        return FUNCTIONS["conv2d"](ctx, node, [x, mod.weight, mod.bias, mod.stride, mod.padding, mod.dilation,
                                               mod.groups], {})
    if isinstance(mod, (nn.BatchNorm1d, nn.BatchNorm2d)):
        if mod.training:
            raise ExportError(f"node '{node.name}' (BatchNorm): training mode (call module.eval())")
        return FUNCTIONS["batch_norm"](ctx, node, [x, mod.running_mean, mod.running_var, mod.weight, mod.bias,
                                                   False, 0.0, mod.eps], {})
    if isinstance(mod, nn.Linear):
        return FUNCTIONS["linear"](ctx, node, [x, mod.weight, mod.bias], {})
    simple = {nn.ReLU: "relu", nn.ReLU6: "relu6", nn.Sigmoid: "sigmoid", nn.Tanh: "tanh", nn.SiLU: "silu",
              nn.Hardswish: "hardswish", nn.Hardsigmoid: "hardsigmoid"}
    for cls, name in simple.items():
        if type(mod) is cls:
            return FUNCTIONS[name](ctx, node, [x], {})
    if type(mod) is nn.Hardtanh:
        return FUNCTIONS["hardtanh"](ctx, node, [x, mod.min_val, mod.max_val], {})
    if isinstance(mod, nn.GELU):
        return FUNCTIONS["gelu"](ctx, node, [x, mod.approximate], {})
    if isinstance(mod, nn.AvgPool2d):
        return FUNCTIONS["avg_pool2d"](ctx, node, [x, mod.kernel_size, mod.stride, mod.padding, mod.ceil_mode,
                                                   mod.count_include_pad, mod.divisor_override], {})
    if isinstance(mod, nn.MaxPool2d):
        return FUNCTIONS["max_pool2d"](ctx, node, [x, mod.kernel_size, mod.stride, mod.padding, mod.dilation,
                                                   mod.ceil_mode, mod.return_indices], {})
    if isinstance(mod, nn.AdaptiveAvgPool2d):
        return FUNCTIONS["adaptive_avg_pool2d"](ctx, node, [x, mod.output_size], {})
    if isinstance(mod, nn.Flatten):
        return FUNCTIONS["flatten"](ctx, node, [x, mod.start_dim, mod.end_dim], {})
    if isinstance(mod, (nn.Dropout, nn.Dropout2d)):
        return FUNCTIONS["dropout"](ctx, node, [x, mod.p, mod.training], {})
    if isinstance(mod, nn.Identity):
        return ctx.alias(x)
    if isinstance(mod, (nn.Softmax, nn.LogSoftmax)):
        name = "softmax" if isinstance(mod, nn.Softmax) else "log_softmax"
        return FUNCTIONS[name](ctx, node, [x, mod.dim], {})
    if isinstance(mod, nn.LayerNorm):
        return FUNCTIONS["layer_norm"](ctx, node, [x, mod.normalized_shape, mod.weight, mod.bias, mod.eps], {})
    raise ExportError(f"node '{node.name}': module {type(mod).__name__} ('{node.target}') is not supported")


def _target_name(target):
    return getattr(target, "__name__", str(target)).strip("_")


def _convert(ctx, gm, node):
    if node.op == "placeholder":
        if node.name in ctx.lifted:  # torch.export: a parameter, buffer or constant tensor
            return ("tensor", ctx.tensor(ctx.lifted[node.name]))
        shape, dtype = ctx.node_meta(node)
        vid = ctx.add_value(node.name, "input", _univk_dtype(dtype, f"input '{node.name}'"), shape)
        ctx.inputs.append(vid)
        return ("tensor", vid)
    if node.op == "get_attr":
        obj = gm
        for part in node.target.split("."):
            obj = getattr(obj, part)
        if isinstance(obj, torch.Tensor):
            return ("tensor", ctx.tensor(obj))
        return ("static", obj)
    args = node.args
    kwargs = dict(node.kwargs)
    # Python-level computations on static values (x.size(0) * 2, shape tuples) run now.
    if node.op in ("call_function", "call_method") and ctx.is_static(list(args)) and ctx.is_static(
            list(kwargs.values())):
        sargs, skw = ctx.static(list(args)), {k: ctx.static(v) for k, v in kwargs.items()}
        if node.op == "call_function":
            value = node.target(*sargs, **skw)
        else:
            value = getattr(sargs[0], node.target)(*sargs[1:], **skw)
        # A tensor made from Python values alone (torch.ones(3)) is a constant.
        return ("tensor", ctx.tensor(value)) if isinstance(value, torch.Tensor) else ("static", value)
    if node.op == "call_method" and node.target == "size":
        shape = ctx.shape(ctx.tensor(args[0]))
        dim = ctx.static(args[1]) if len(args) > 1 else kwargs.get("dim")
        return ("static", torch.Size(shape) if dim is None else shape[dim])
    if node.op == "call_module":
        mod = gm.get_submodule(node.target)
        return ("tensor", _module_call(ctx, node, mod, list(args), kwargs))
    if node.op == "call_function" and aten.is_aten(node.target):
        return ("tensor", aten.convert_aten(ctx, node))
    if node.op == "call_function" and aten.getitem_of_multi_output(node):
        if args[1] == 0:
            return ("tensor", ctx.tensor(args[0]))
        # Extra results (batch norm statistics, pooling indices): an error only if used.
        return ("invalid", f"node '{node.name}': result {args[1]} of '{args[0].name}' is not supported")
    if node.op in ("call_function", "call_method"):
        name = node.target if node.op == "call_method" else _target_name(node.target)
        handler = FUNCTIONS.get(name)
        if handler is None:
            raise ExportError(f"node '{node.name}': {node.op} '{name}' is not supported")
        # Static arguments of tensor ops are resolved here; tensor arguments stay fx nodes.
        def resolve(a):
            return a if not isinstance(a, torch.fx.Node) or ctx.env[a][0] == "tensor" else ctx.static(a)

        resolved_kwargs = {k: resolve(v) for k, v in kwargs.items()}
        return ("tensor", handler(ctx, node, [resolve(a) for a in args], resolved_kwargs))
    raise ExportError(f"node '{node.name}': fx op '{node.op}' is not supported")


def _fold_batch_norms(ctx):
    """Folds batch_norm(conv2d(x)) into the convolution when the conv result has no other use."""
    uses = {}
    for n in ctx.nodes:
        for v in n.inputs:
            uses[v] = uses.get(v, 0) + 1
    producer = {n.output: n for n in ctx.nodes}
    replaced = {}
    kept = []
    for n in ctx.nodes:
        n.inputs = [replaced.get(v, v) for v in n.inputs]
        conv = producer.get(n.inputs[0]) if n.op == "batch_norm" else None
        params = [ctx.values[v] for v in n.inputs[1:]] if conv is not None else []
        if (conv is None or conv.op != "conv2d" or uses.get(conv.output, 0) != 1 or conv.output in ctx.outputs
                or any(p.kind != "constant" for p in params)
                or any(ctx.values[v].kind != "constant" for v in conv.inputs[1:])):
            kept.append(n)
            continue
        weight, bias, mean, var = (p.data.astype(np.float64) for p in params)
        scale = weight / np.sqrt(var + n.attrs["eps"])
        w = ctx.values[conv.inputs[1]].data.astype(np.float64)
        b = ctx.values[conv.inputs[2]].data.astype(np.float64) if len(conv.inputs) == 3 else np.zeros_like(scale)
        new_w = (w * scale.reshape(-1, 1, 1, 1)).astype(np.float32)
        new_b = ((b - mean) * scale + bias).astype(np.float32)
        wid = ctx.add_value(ctx.values[conv.inputs[1]].name + "_bn", "constant", "float32", new_w.shape, new_w)
        bid = ctx.add_value(n.name + "_bias", "constant", "float32", new_b.shape, new_b)
        conv.inputs = [conv.inputs[0], wid, bid]
        replaced[n.output] = conv.output
    ctx.nodes = kept
    ctx.outputs = [replaced.get(v, v) for v in ctx.outputs]


def _build_graph(ctx):
    g = _univk.Graph()
    ids = {}

    def ref(vid):
        if vid not in ids:
            v = ctx.values[vid]
            if v.kind != "constant":
                raise ExportError(f"value '{v.name}' is used before it is defined")
            ids[vid] = g.add_constant(v.name, v.data)
        return ids[vid]

    for vid in ctx.inputs:
        v = ctx.values[vid]
        ids[vid] = g.add_input(v.name, v.dtype, v.shape)
    for n in ctx.nodes:
        out = ctx.values[n.output]
        if out.dtype is None:
            raise ExportError(f"node '{n.name}': result is not a tensor")
        ids[n.output] = g.add_node(n.name, n.op, n.attrs, [ref(v) for v in n.inputs], out.dtype, out.shape)
    for vid in ctx.outputs:
        if ctx.values[vid].kind != "node":
            raise ExportError(f"output '{ctx.values[vid].name}' is an input or constant, not computed by the model")
        g.add_output(ids[vid])
    return g


_LIBRARY_DIRS = tuple(os.path.dirname(m.__file__) + os.sep for m in (torch, np)) + (os.path.dirname(__file__) + os.sep,)


def _user_frame(tb):
    """The innermost traceback frame outside torch, numpy and univk: the model's own source line."""
    for frame in reversed(traceback.extract_tb(tb)):
        if not os.path.abspath(frame.filename).startswith(_LIBRARY_DIRS):
            return frame
    return None


def _capture_error(what, module, error):
    """An ExportError for a tracer failure, naming the module and the model's source line."""
    frame = _user_frame(error.__traceback__)
    where = ""
    if frame is not None:
        where = f" at {frame.filename}:{frame.lineno} (in {frame.name})"
        if frame.line:
            where += f": {frame.line.strip()}"
    return ExportError(f"{what} cannot capture module {type(module).__name__}{where}: {type(error).__name__}: {error}")


def _trace(module, example_inputs):
    """(graph module with shapes in node.meta, {placeholder name: (qualified name, lifted tensor)})."""
    export = getattr(getattr(torch, "export", None), "export", None)
    if export is not None:
        try:
            with torch.no_grad():
                program = export(module, example_inputs)
        except Exception as e:
            raise _capture_error("torch.export", module, e) from e
        tensors = dict(program.state_dict)
        tensors.update(getattr(program, "constants", {}))
        sig = program.graph_signature
        lifted = {}
        for mapping in (sig.inputs_to_parameters, sig.inputs_to_buffers,
                        getattr(sig, "inputs_to_lifted_tensor_constants", {})):
            for placeholder, name in mapping.items():
                if name not in tensors:
                    raise ExportError(f"torch.export: no tensor for '{name}'")
                lifted[placeholder] = (name, tensors[name])
        return program.graph_module, lifted
    try:
        gm = torch.fx.symbolic_trace(module)
    except Exception as e:
        raise _capture_error("torch.fx", module, e) from e
    prop = _ShapeProp(gm)
    printed = io.StringIO()
    try:
        # ShapeProp prints the traceback of a failing node before it re-raises; the ExportError
        # below says the same, so that print is dropped (anything printed on success is kept).
        with torch.no_grad(), contextlib.redirect_stderr(printed):
            prop.propagate(*example_inputs)
    except Exception as e:
        cause = e.__context__ if e.__context__ is not None else e  # the model's own error
        node = prop.current
        at = "" if node is None else f" at node '{node.name}' ({node.op} {_target_name(node.target)})"
        raise ExportError(f"module {type(module).__name__} fails on the example inputs{at}: "
                          f"{type(cause).__name__}: {cause}") from e
    sys.stderr.write(printed.getvalue())
    return gm, {}


class _ShapeProp(ShapeProp):
    """ShapeProp that remembers the node it runs, to name it when the module fails."""

    current = None

    def run_node(self, n):
        self.current = n
        return super().run_node(n)


def capture(module, example_inputs):
    """Traces `module` and returns (graph IR, output structure) without compiling."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError("univk.export: module must be a torch.nn.Module")
    example_inputs = tuple(example_inputs)
    for i, x in enumerate(example_inputs):
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"univk.export: example input {i} is a {type(x).__name__}, not a tensor")
    gm, lifted = _trace(module, example_inputs)
    ctx = _Context(module, lifted)
    structure = None
    for node in gm.graph.nodes:
        if node.op == "output":
            result = node.args[0]
            flat = list(result) if isinstance(result, (list, tuple)) else [result]
            structure = "tuple" if isinstance(result, (list, tuple)) else "single"
            for r in flat:
                if not isinstance(r, torch.fx.Node):
                    raise ExportError(f"output {r!r} is not a tensor computed by the model")
                ctx.outputs.append(ctx.tensor(r))
            continue
        try:
            ctx.env[node] = _convert(ctx, gm, node)
        except ExportError:
            raise
        except Exception as e:  # a Python error inside a handler: name the node
            raise ExportError(f"node '{node.name}' ({node.op} {node.target}): {e}") from e
    _fold_batch_norms(ctx)
    return _build_graph(ctx), structure
