"""univk.export: capture a PyTorch module and compile it with the C++ compiler.

Steps:
  1. capture: torch.export.export where it exists (PyTorch 2.x: a graph of ATen operators with
     shapes in node.meta["val"]); otherwise make_fx on the example inputs (aten_trace.py,
     Debian's torch 1.13: the same kind of ATen graph, shapes in node.meta["tensor_meta"]);
  2. each graph node becomes an IR operator (ops.py, aten.py); module parameters and buffers
     become constants; identity ops (eval-mode dropout, contiguous) disappear;
  3. eval-mode batch norms that directly follow a convolution are folded into its weights;
  4. the IR goes to the C++ compiler (_univk.compile): partitioning across backends, lowering
     to VGF / VulkanBackend payloads, and the program writer.
"""

import inspect
import linecache
import os
import re
import traceback
import warnings

import numpy as np
import torch
import torch.fx

from . import _univk
from . import aten
from . import aten_trace
from . import quantized
from .ops import ExportError, ExportLimitWarning

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

    def __init__(self, module, lifted, input_names):
        self.module = module
        self.input_names = input_names
        self.lifted = {placeholder: tensor for placeholder, (_, tensor) in lifted.items()}
        self.values = []
        self.nodes = []
        self.inputs = []
        self.outputs = []
        # fx node -> ("tensor", value id) | ("static", python value) | ("invalid", error message)
        self.env = {}
        self.names = set()
        # id(tensor) -> (tensor, value id): the tensor is held so that a temporary (a constant a
        # handler builds) keeps its id unique for the whole export
        self.constants = {}
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
        """(shape, torch dtype) of a node's (first) tensor result, from make_fx or torch.export."""
        meta = node.meta.get("tensor_meta")
        if meta is None:
            meta = node.meta.get("val")
        if meta is None:  # make_fx records a multi-result op's shapes on its getitem users
            first = [u for u in node.users if aten.is_getitem(u) and u.args[1] == 0]
            meta = first[0].meta.get("tensor_meta") if first else None
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
                self.constants[key] = (arg, self.add_value(name, "constant", _univk_dtype(data.dtype, name),
                                                           data.shape, data.numpy().copy()))
            return self.constants[key][1]
        raise ExportError(f"expected a tensor, got {type(arg).__name__}")

    def constant_tensor(self, arg):
        """The value of a tensor known at export (a tensor object, or a graph constant such as a
        lifted buffer) as a torch tensor; None for a tensor the model computes."""
        if isinstance(arg, torch.Tensor):
            return arg.detach().cpu()
        if isinstance(arg, torch.fx.Node) and self.env.get(arg, (None,))[0] == "tensor":
            value = self.values[self.env[arg][1]]
            if value.kind == "constant":
                return torch.from_numpy(np.array(value.data))
        return None

    # -- node emission -----------------------------------------------------------------------
    def emit(self, node, op, attrs, inputs):
        shape, dtype = self.node_meta(node)
        vid = self.add_value(node.name, "node", _univk_dtype(dtype, f"node '{node.name}'"), shape)
        self.nodes.append(_Node(self.values[vid].name, op, attrs, inputs, vid))
        return vid

    def add_node(self, name, op, attrs, inputs, dtype, shape):
        """A node computing a new value of `dtype` and `shape`; returns the value id."""
        vid = self.add_value(name, "node", dtype, shape)
        self.nodes.append(_Node(self.values[vid].name, op, attrs, inputs, vid))
        return vid

    def emit_internal(self, node, op, attrs, inputs, shape):
        vid = self.add_value(f"{node.name}_{op}", "node", self.values[inputs[0]].dtype, shape)
        self.nodes.append(_Node(self.values[vid].name, op, attrs, inputs, vid))
        return vid

    def alias(self, arg):
        return self.tensor(arg)


def _target_name(target):
    return getattr(target, "__name__", str(target)).strip("_")


def _convert(ctx, gm, node):
    if node.op == "placeholder":
        if node.name in ctx.lifted:  # torch.export: a parameter, buffer or constant tensor
            return ("tensor", ctx.tensor(ctx.lifted[node.name]))
        shape, dtype = ctx.node_meta(node)
        name = ctx.input_names[len(ctx.inputs)] if len(ctx.inputs) < len(ctx.input_names) else node.name
        vid = ctx.add_value(name, "input", _univk_dtype(dtype, f"input '{name}'"), shape)
        ctx.inputs.append(vid)
        return ("tensor", vid)
    if node.op == "get_attr":
        obj = gm
        for part in node.target.split("."):
            obj = getattr(obj, part)
        if isinstance(obj, torch.Tensor):
            return ("tensor", ctx.tensor(obj))
        return ("static", obj)
    if node.op != "call_function":
        raise ExportError(f"node '{node.name}': fx op '{node.op}' is not supported")
    args = node.args
    kwargs = dict(node.kwargs)
    # Operators on Python values alone (sizes, constant factories such as aten.ones) run now.
    if ctx.is_static(list(args)) and ctx.is_static(list(kwargs.values())):
        value = node.target(*ctx.static(list(args)), **{k: ctx.static(v) for k, v in kwargs.items()})
        return ("tensor", ctx.tensor(value)) if isinstance(value, torch.Tensor) else ("static", value)
    if aten.is_aten(node.target):
        folded = _fold_constant(ctx, node)
        return folded if folded is not None else aten.convert_aten(ctx, node)
    if aten.is_getitem(node):
        kind, value = ctx.env[args[0]]
        if kind == "invalid":
            raise ExportError(value)
        if kind != "results":
            raise ExportError(f"node '{node.name}': indexing a tensor with getitem is not supported")
        return value(ctx, node, args[1])
    raise ExportError(f"node '{node.name}': function '{_target_name(node.target)}' is not supported")


class _NotConstant(Exception):
    pass


def _fold_constant(ctx, node):
    """An operator whose tensor inputs are all constants (a causal mask built in forward, a
    weight reshaped) runs now and its result becomes a constant; None when it has other inputs
    or does not give one tensor."""
    found = []

    def value(arg):
        kind, v = ctx.env[arg]
        if kind == "static":
            return v
        if kind != "tensor" or ctx.values[v].kind != "constant":
            raise _NotConstant
        found.append(v)
        return torch.from_numpy(ctx.values[v].data)

    try:
        args = torch.fx.node.map_arg(node.args, value)
        kwargs = torch.fx.node.map_arg(node.kwargs, value)
    except _NotConstant:
        return None
    if not found:
        return None
    with torch.no_grad():
        result = node.target(*args, **kwargs)
    if not isinstance(result, torch.Tensor):
        return None
    data = result.detach().contiguous()
    what = f"node '{node.name}'"
    return ("tensor", ctx.add_value(node.name, "constant", _univk_dtype(data.dtype, what), data.shape,
                                    data.numpy().copy()))


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


def _user_frame(tb):
    """The innermost traceback frame of the model's own source (torch.nn counts as model)."""
    for frame in reversed(traceback.extract_tb(tb)):
        if not aten_trace.is_library_file(frame.filename) and not frame.filename.startswith(_NUMPY_DIR):
            return frame
    return None


_NUMPY_DIR = os.path.dirname(np.__file__) + os.sep


def _source_text(filename, lineno, function):
    text = f"{filename}:{lineno} (in {function})"
    line = linecache.getline(filename, lineno).strip()
    return f"{text}: {line}" if line else text


def _module_text(name, type_name):
    return f"module '{name}' ({type_name})" if name else f"the root module ({type_name})"


def _capture_error(what, module, error, running=None):
    """An ExportError for a tracer failure, naming the module and the model's source line."""
    frame = _user_frame(error.__traceback__)
    where = "" if running is None or not running[0] else f" in {_module_text(*running)}"
    if frame is not None:
        where += " at " + _source_text(frame.filename, frame.lineno, frame.name)
    return ExportError(f"{what} cannot capture module {type(module).__name__}{where}: {type(error).__name__}: {error}")


_STACK_LINE = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def _location(node):
    """" in module 'a.b' (Type) at file:line (in f): source" for a graph node, or ""."""
    module = node.meta.get("univk_module")  # make_fx (aten_trace.py)
    if module is None and node.meta.get("nn_module_stack"):  # torch.export
        name, type_ = list(node.meta["nn_module_stack"].values())[-1]
        module = (name, getattr(type_, "__name__", str(type_).rsplit(".", 1)[-1]))
    source = node.meta.get("univk_source")
    if source is None and node.meta.get("stack_trace"):
        frames = _STACK_LINE.findall(node.meta["stack_trace"])
        if frames:
            source = (frames[-1][0], int(frames[-1][1]), frames[-1][2])
    text = ""
    if module is not None and module[0]:
        text += f" in {_module_text(*module)}"
    if source is not None:
        text += " at " + _source_text(*source)
    return text


def _input_names(module, count):
    """The forward parameters' names for the example inputs (make_fx names them arg0_1, ...)."""
    try:
        params = list(inspect.signature(module.forward).parameters.values())
    except (TypeError, ValueError):
        return []
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return names[:count] if len(names) >= count else []


def _recurrent_decompositions():
    """For torch.export's run_decompositions: torch.export keeps recurrent layers as one ATen
    operator each (aten.lstm.input, ...), which make_fx on PyTorch 1.13 records as their cells'
    arithmetic; PyTorch's own decompositions give that arithmetic here too. (run_decompositions
    also turns export's training IR into the inference IR: eval-mode dropout disappears, batch
    norm becomes _native_batch_norm_legit_no_training.)"""
    import torch._decomp
    overloads = [getattr(torch.ops.aten, name).input for name in ("lstm", "gru", "rnn_tanh", "rnn_relu")
                 if hasattr(getattr(torch.ops.aten, name, None), "input")]
    return torch._decomp.get_decompositions(overloads)


def _trace(module, example_inputs):
    """(graph module with shapes in node.meta, {placeholder name: (qualified name, lifted tensor)},
    names of the inputs or [] to keep the graph's)."""
    export = getattr(getattr(torch, "export", None), "export", None)
    if export is not None:
        try:
            with aten_trace.composite_path(module):
                program = export(module, example_inputs).run_decompositions(_recurrent_decompositions())
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
        return program.graph_module, lifted, []
    try:
        gm = aten_trace.trace(module, example_inputs)
    except aten_trace.CaptureFailure as e:
        raise _capture_error("make_fx", module, e.error, e.module) from e.error
    return gm, {}, _input_names(module, len(example_inputs))


def capture(module, example_inputs):
    """Traces `module` and returns (graph IR, output structure) without compiling."""
    graph, structure, _ = capture_with_locations(module, example_inputs)
    return graph, structure


def capture_with_locations(module, example_inputs):
    """capture(), plus {graph node name: where the model defines it} (module and source line,
    when torch records them) for the program's debug metadata."""
    graph, structure, locations, _ = capture_for_export(module, example_inputs)
    return graph, structure, locations


def capture_for_export(module, example_inputs, quantized_io=False):
    """capture_with_locations(), plus {program input/output value name: (scale, int8 zero
    point)}: with quantized_io (quantized models only), the program's inputs and outputs are
    the int8 values at the quantized region's boundary."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError("univk.export: module must be a torch.nn.Module")
    example_inputs = tuple(example_inputs)
    for i, x in enumerate(example_inputs):
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"univk.export: example input {i} is a {type(x).__name__}, not a tensor")
    if quantized.is_quantized(module):
        ctx = _Context(module, {}, [])
        structure, io_quantization = quantized.capture(ctx, module, example_inputs, quantized_io)
        _warn_limits(ctx)
        # quantize_fx's graph carries no module or source positions: no locations to record.
        return _build_graph(ctx), structure, {}, io_quantization
    if quantized_io:
        raise ExportError("quantized_io=True needs a model quantized with torch.ao.quantization.quantize_fx")
    gm, lifted, input_names = _trace(module, example_inputs)
    ctx = _Context(module, lifted, input_names)
    for node in gm.graph.nodes:
        if aten.is_random(node):
            raise ExportError(f"node '{node.name}': random operator '{node.target}' (a module in training mode? "
                              f"call module.eval()){_location(node)}")
    structure = None
    locations = {}
    for node in gm.graph.nodes:
        if node.op == "output":
            result = node.args[0]
            flat = list(result) if isinstance(result, (list, tuple)) else [result]
            structure = "tuple" if isinstance(result, (list, tuple)) else "single"
            for r in flat:
                if isinstance(r, (list, tuple)):
                    raise ExportError(f"output {r!r} is a nested tuple: return a tensor or a flat tuple of tensors")
                if not isinstance(r, torch.fx.Node):
                    raise ExportError(f"output {r!r} is not a tensor computed by the model")
                ctx.outputs.append(ctx.tensor(r))
            continue
        first_new = len(ctx.nodes)
        try:
            ctx.env[node] = _convert(ctx, gm, node)
        except ExportError as e:
            named = str(e) if f"node '{node.name}'" in str(e) else f"node '{node.name}': {e}"
            raise ExportError(f"{named}{_location(node)}") from e
        except Exception as e:  # a Python error inside a handler: name the node
            raise ExportError(f"node '{node.name}' ({node.op} {node.target}){_location(node)}: {e}") from e
        location = _location(node).strip()
        if location:
            for n in ctx.nodes[first_new:]:
                locations[n.name] = location
    _fold_batch_norms(ctx)
    _warn_limits(ctx)
    return _build_graph(ctx), structure, locations, {}


# A binding covers at most maxStorageBufferRange bytes: 4 GiB - 1 on the largest devices,
# 128 MiB on many others (lavapipe, most mobile GPUs).
_TENSOR_LIMIT = 2 ** 32 - 1
_WEIGHT_LIMIT = 128 * 2 ** 20


def _warn_limits(ctx):
    """Warns for values over the binding limits of common devices: the backends split the
    operators they can (docs/VGF_BACKEND.md, "Splitting"); others fail to load there."""
    node_of = {}  # value id -> the node that computes it, else its first user
    for n in ctx.nodes:
        node_of[n.output] = n.name
    for n in ctx.nodes:
        for v in n.inputs:
            node_of.setdefault(v, n.name)
    for vid, node in node_of.items():
        v = ctx.values[vid]
        size = int(np.prod(v.shape, dtype=np.int64)) * np.dtype(v.dtype).itemsize
        if size > _TENSOR_LIMIT:
            warnings.warn(f"node '{node}': {v.kind} '{v.name}' {v.shape} holds {size} bytes, over 4 GiB - 1 (the "
                          "largest maxStorageBufferRange): it runs only where the backend splits the operator",
                          ExportLimitWarning, stacklevel=3)
        elif size > _WEIGHT_LIMIT and v.kind == "constant":
            warnings.warn(f"node '{node}': weight '{v.name}' {v.shape} holds {size} bytes, over the 128 MiB "
                          "maxStorageBufferRange of many devices (lavapipe, most mobile GPUs): it runs there "
                          "only where the backend splits the operator", ExportLimitWarning, stacklevel=3)
