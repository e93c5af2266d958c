"""Capture of PyTorch FX post-training-quantized models (torch.ao.quantization.quantize_fx).

make_fx cannot trace quantized tensors, so this module reads quantize_fx's torch.fx graph
directly, in either of its forms:
  - `convert_to_reference_fx` (the "Q/DQ" form, PT2E's shape too): float values pass through
    quantize_per_tensor -> dequantize pairs, and each operator between a dequantize and the next
    quantize_per_tensor runs in float (reference modules hold the float weight with its
    quantization parameters): each "dequantize -> op [-> relu] -> quantize" pattern becomes one
    int8 IR operator;
  - `convert_fx` (the quantized-kernel form): quantized modules (nnq.Conv2d, nniq.ConvReLU2d,
    nnq.Linear, nniq.LinearReLU, with their output scale and zero point), quantized.add/mul
    (and their _relu forms), cat, activations and pools/reshapes run on quantized values; each
    becomes the same int8 IR operator (output parameters the module's, or those ShapeProp
    records for the quantized result). Float islands inside it (nn.Flatten) take the Q/DQ path
    above.
Elementwise activations (sigmoid, tanh, hardsigmoid, hardswish, relu6, hardtanh, ...) become
int8 tables of 256 entries: PyTorch itself runs the node on every int8 value (the float function
between dequantize and quantize, or the quantized kernel), so the table is its exact result.
The int8 IR operators (docs/OPERATORS.md, "Quantized int8 operators") keep PyTorch's scales and
zero points as attributes; the compiler derives TOSA's RESCALE multipliers and shifts.

Activations are int8: PyTorch's quint8 values become int8 by subtracting 128 from the values
and the zero point, which leaves every real value unchanged. Weights must be symmetric qint8
(zero point 0), per tensor or per output channel; a float bias becomes int32 in the accumulator's
scale (input scale x weight scale). The program's inputs and outputs stay float32: its first
quantize_per_tensor and its last dequantize are IR operators too.

Anything else (an operator on a float value inside the int8 region, a float result that is not
requantized) is an ExportError naming the node.
"""

import operator

import torch
import torch.fx
from torch.fx.passes.shape_prop import ShapeProp

from .ops import ExportError

_ReferenceConv2d = torch.ao.nn.quantized.reference.Conv2d
_ReferenceLinear = torch.ao.nn.quantized.reference.Linear
_ConvReLU2d = torch.ao.nn.intrinsic.ConvReLU2d
_LinearReLU = torch.ao.nn.intrinsic.LinearReLU
_QuantizedConv2d = torch.ao.nn.quantized.Conv2d
_QuantizedLinear = torch.ao.nn.quantized.Linear
try:
    from torch.ao.nn.intrinsic import quantized as _intrinsic_quantized  # PyTorch 2.x
except ImportError:
    from torch.nn.intrinsic import quantized as _intrinsic_quantized  # PyTorch 1.13
_QuantizedConvReLU2d = _intrinsic_quantized.ConvReLU2d
_QuantizedLinearReLU = _intrinsic_quantized.LinearReLU


def is_quantized(module):
    """True for a GraphModule with a quantize_per_tensor node (quantize_fx's graphs)."""
    return isinstance(module, torch.fx.GraphModule) and any(
        n.op == "call_function" and n.target is torch.quantize_per_tensor for n in module.graph.nodes)


class _Float:
    """A float32 program input; with quantized IO, a placeholder whose int8 IR input (`vid`, in
    input slot `slot`) its quantize_per_tensor creates."""

    def __init__(self, vid, node=None, slot=None):
        self.vid, self.node, self.slot = vid, node, slot


class _Quantized:
    """An int8 IR value with real = (q - zero_point) * scale; `dtype` is PyTorch's (quint8 values
    are the int8 ones plus 128)."""

    def __init__(self, vid, scale, zero_point, dtype=torch.qint8):
        self.vid, self.scale, self.zero_point, self.dtype = vid, scale, zero_point, dtype

    def same_params(self, other):
        return (self.scale, self.zero_point) == (other.scale, other.zero_point)


class _Dequantized:
    """The float view of a _Quantized value: what the reference graph's ops consume."""

    def __init__(self, q):
        self.q = q


class _Pending:
    """A float op on dequantized values (and a ReLU applied to its result), lowered once its
    result's quantize_per_tensor is seen."""

    def __init__(self, node, inputs, relu=False):
        self.node, self.inputs, self.relu = node, inputs, relu


def _int8_zero_point(node, dtype, zero_point):
    if dtype == torch.quint8:
        return int(zero_point) - 128
    if dtype == torch.qint8:
        return int(zero_point)
    raise ExportError(f"node '{node.name}': quantize_per_tensor to {dtype} (quint8 and qint8 only)")


def _pair(v):
    return [int(x) for x in v] if isinstance(v, (list, tuple)) else [int(v), int(v)]


def _weight(node, wq):
    """(int8 weight tensor, list of weight scales) of a quantized weight tensor."""
    if wq.dtype != torch.qint8:
        raise ExportError(f"node '{node.name}': weights quantized to {wq.dtype} (qint8 only)")
    if wq.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
        scales, zero_points = [float(wq.q_scale())], [int(wq.q_zero_point())]
    elif wq.qscheme() in (torch.per_channel_affine, torch.per_channel_symmetric) and wq.q_per_channel_axis() == 0:
        scales = [float(s) for s in wq.q_per_channel_scales()]
        zero_points = [int(z) for z in wq.q_per_channel_zero_points()]
    else:
        raise ExportError(f"node '{node.name}': weight quantization scheme {wq.qscheme()} is not supported "
                          "(per tensor, or per channel along the output channels)")
    if any(z != 0 for z in zero_points):
        raise ExportError(f"node '{node.name}': weight zero points must be 0 (symmetric weights)")
    return wq.int_repr().contiguous(), scales


def _bias(bias, input_scale, weight_scales):
    """The float bias in the int32 accumulator's scale, rounded to nearest even."""
    if bias is None:
        return None
    scale = torch.tensor(weight_scales, dtype=torch.float64) * input_scale
    q = torch.round(bias.detach().double() / scale)
    return q.clamp(-2 ** 31, 2 ** 31 - 1).to(torch.int32)


class _Capture:
    def __init__(self, ctx, gm, quantized_io):
        self.ctx, self.gm, self.quantized_io = ctx, gm, quantized_io
        self.io_quantization = {}  # quantized IO: IR value name -> (scale, int8 zero point)
        # A module called from several places (ResNet's shared ReLU) keeps all its names.
        self.modules = dict(gm.named_modules(remove_duplicate=False))

    def constant(self, name, tensor):
        data = tensor.detach().contiguous()
        dtype = {torch.int8: "int8", torch.int32: "int32"}[data.dtype]
        return self.ctx.add_value(name, "constant", dtype, data.shape, data.numpy().copy())

    def emit(self, node, op, attrs, inputs, dtype, shape):
        return self.ctx.add_node(node.name, op, attrs, inputs, dtype, shape)

    def static(self, arg):
        kind = self.ctx.env.get(arg) if isinstance(arg, torch.fx.Node) else ("static", arg)
        if kind is None or kind[0] != "static":
            raise ExportError(f"'{arg}' is a tensor where a constant is needed")
        value = kind[1]
        if isinstance(value, torch.Tensor):
            if value.numel() != 1:
                raise ExportError(f"'{arg}' holds {value.numel()} values where one scalar is needed")
            return value.item()
        return value

    def value(self, arg, node):
        if not isinstance(arg, torch.fx.Node):
            raise ExportError(f"node '{node.name}': argument {arg!r} is not a tensor")
        kind, v = self.ctx.env[arg]
        if kind != "value":
            raise ExportError(f"node '{node.name}': argument '{arg.name}' is not a tensor")
        return v

    # -- nodes -----------------------------------------------------------------------------
    def convert(self, node):
        if node.op == "placeholder":
            shape, dtype = _meta(node)
            if dtype != torch.float32:
                raise ExportError(f"input '{node.name}' is {dtype} (float32 inputs only)")
            if self.quantized_io:  # the int8 input is created by its quantize_per_tensor
                self.ctx.inputs.append(None)
                return ("value", _Float(None, node, len(self.ctx.inputs) - 1))
            vid = self.ctx.add_value(node.name, "input", "float32", shape)
            self.ctx.inputs.append(vid)
            return ("value", _Float(vid))
        if node.op == "get_attr":
            obj = self.gm
            for part in node.target.split("."):
                obj = getattr(obj, part)
            return ("static", obj)
        if node.op == "call_function" and node.target is torch.quantize_per_tensor:
            return ("value", self.quantize(node))
        if node.op == "call_method" and node.target == "dequantize":
            q = self.value(node.args[0], node)
            if not isinstance(q, _Quantized):
                raise ExportError(f"node '{node.name}': dequantize of a value that is not quantized")
            return ("value", _Dequantized(q))
        if node.op == "call_function" and node.target in _QUANTIZED_ADDS + _QUANTIZED_MULS:
            return ("value", self.kernel_binary(node))
        if _is_identity(self, node):  # Dropout and Identity in eval mode
            return ("value", self.value(node.args[0], node))
        if node.op == "call_function" and node.target is torch.cat:
            return ("value", self.cat(node))
        inputs = [a for a in list(node.args) + list(node.kwargs.values()) if isinstance(a, torch.fx.Node)]
        values = [self.value(a, node) for a in inputs]
        if len(values) == 1 and isinstance(values[0], _Pending) and _is_relu(self, node):
            pending = values[0]
            if pending.relu or len(pending.node.users) != 1:
                raise ExportError(f"node '{node.name}': ReLU of a float result with other uses is not supported")
            return ("value", _Pending(pending.node, pending.inputs, relu=True))
        if values and all(isinstance(v, _Dequantized) for v in values):
            return ("value", _Pending(node, [v.q for v in values]))
        if values and all(isinstance(v, _Quantized) for v in values):
            return ("value", self.kernel_op(node, values))
        raise ExportError(f"node '{node.name}': {_describe(self, node)} on values that are not dequantized int8 "
                          "is not supported (univk exports the int8 region of a quantized model)")

    def quantize(self, node):
        x, scale, zero_point, dtype = node.args
        scale, zero_point = float(self.static(scale)), int(self.static(zero_point))
        out = _Quantized(None, scale, _int8_zero_point(node, dtype, zero_point), dtype)
        source = self.value(x, node)
        shape, _ = _meta(node)
        if isinstance(source, _Float) and self.quantized_io:
            if source.vid is not None:
                raise ExportError(f"node '{node.name}': input '{source.node.name}' is quantized twice; quantized_io "
                                  "needs one quantize_per_tensor per input")
            source.vid = out.vid = self.ctx.add_value(source.node.name, "input", "int8", shape)
            self.ctx.inputs[source.slot] = out.vid
            self.io_quantization[self.ctx.values[out.vid].name] = (out.scale, out.zero_point)
        elif isinstance(source, _Float):
            attrs = {"scale": out.scale, "zero_point": out.zero_point}
            out.vid = self.emit(node, "quantize_per_tensor", attrs, [source.vid], "int8", shape)
        elif isinstance(source, _Pending):
            out.vid = self.quantized_op(source, out, shape)
        elif isinstance(source, _Dequantized):  # around an identity (Dropout) with its own observer
            out.vid = self.requantized(node, source.q, out, shape)
        else:
            raise ExportError(f"node '{node.name}': quantize_per_tensor of a value that is already quantized")
        return out

    def quantized_op(self, pending, out, shape):
        node, inputs = pending.node, pending.inputs
        module = self.modules.get(node.target) if node.op == "call_module" else None
        relu = pending.relu
        if isinstance(module, (_ConvReLU2d, _LinearReLU)):
            module, relu = module[0], True
        if isinstance(module, (_ReferenceConv2d, _ReferenceLinear)):
            (x,) = inputs
            return self.weighted_op(node, module, x, out, module.get_quantized_weight(), module.bias, relu, shape)
        if node.op == "call_function" and node.target in (operator.add, torch.add) and len(inputs) == 2 \
                and not node.kwargs:
            return self.add(node, inputs, out, relu, shape)
        if _is_mul(node) and len(inputs) == 2:
            return self.binary(node, "quantized_mul", inputs, out, relu, shape)
        if node.op == "call_function" and node.target is torch.cat and not relu:
            return self.concatenate(node, inputs, out, shape)
        if not relu and _unary_function(self, node) is not None:
            (x,) = inputs
            return self.table(node, x, out, shape, reference=True)
        if relu:
            raise ExportError(f"node '{node.name}': ReLU after {_describe(self, node)} is not supported")
        op, attrs = self.shared_params_op(node, module)
        (x,) = inputs
        if x.same_params(out):
            return self.emit(node, op, attrs, [x.vid], "int8", shape)
        # Observed separately (nn.Flatten has its own observer): the op on the input's
        # parameters, then a RESCALE to the output's.
        vid = self.ctx.add_node(f"{node.name}_int8", op, attrs, [x.vid], "int8", shape)
        return self.requantized(node, _Quantized(vid, x.scale, x.zero_point), out, shape)

    def requantized(self, node, x, out, shape, name=None):
        """The IR value of int8 `x` on `out`'s parameters: x itself when they are equal, else a
        requantize (RESCALE)."""
        if x.same_params(out):
            return x.vid
        attrs = {"input_scale": x.scale, "input_zero_point": x.zero_point, "output_scale": out.scale,
                 "output_zero_point": out.zero_point}
        return self.ctx.add_node(name or node.name, "requantize", attrs, [x.vid], "int8", shape)

    def concatenate(self, node, inputs, out, shape):
        """int8 cat: each input RESCALEd to the output's parameters where they differ (as PyTorch's
        quantized cat requantizes them), then the concatenation of the int8 values."""
        tensors, dim = _cat_args(self, node)
        parts = [self.requantized(node, x, out, _meta(t)[0], f"{node.name}_in{i}")
                 for i, (x, t) in enumerate(zip(inputs, tensors))]
        return self.emit(node, "cat", {"dim": dim}, parts, "int8", shape)

    def table(self, node, x, out, shape, reference):
        """An elementwise function of one int8 value as a 256-entry table: the node itself run by
        PyTorch on every int8 value of x's parameters (the reference form: dequantize, the float
        function, quantize with out's parameters; convert_fx: the quantized kernel)."""
        fn = _unary_function(self, node)
        offset = 128 if x.dtype == torch.quint8 else 0
        codes = torch.arange(-128, 128, dtype=torch.int32) + offset
        qx = torch._make_per_tensor_quantized_tensor(codes.to(torch.uint8 if offset else torch.int8), x.scale,
                                                     x.zero_point + offset)
        with torch.no_grad():
            if reference:
                y = fn(qx.dequantize())
                qy = torch.quantize_per_tensor(y, out.scale, out.zero_point + (128 if out.dtype == torch.quint8 else 0),
                                               out.dtype)
            else:
                qy = fn(qx)
        if not qy.is_quantized or qy.shape != qx.shape:
            raise ExportError(f"node '{node.name}': {_describe(self, node)} is not an elementwise function")
        y_offset = 128 if qy.dtype == torch.quint8 else 0
        if (float(qy.q_scale()), int(qy.q_zero_point()) - y_offset) != (out.scale, out.zero_point):
            raise ExportError(f"node '{node.name}': the quantized kernel's output parameters differ from the "
                              "graph's")
        values = (qy.int_repr().to(torch.int32) - y_offset).to(torch.int8)
        table = self.constant(f"{node.name}_table", values)
        return self.emit(node, "quantized_table", {}, [x.vid, table], "int8", shape)

    def weighted_op(self, node, module, x, out, wq, bias, relu, shape):
        """quantized_conv2d or quantized_linear of `module` (a conv or linear, float reference or
        quantized kernel) on x with output parameters `out`."""
        weight, scales = _weight(node, wq)
        attrs = {"input_scale": x.scale, "input_zero_point": x.zero_point, "weight_scale": scales,
                 "output_scale": out.scale, "output_zero_point": out.zero_point, "relu": relu}
        op = "quantized_linear"
        if isinstance(module, (_ReferenceConv2d, _QuantizedConv2d)):
            if module.padding_mode != "zeros" or isinstance(module.padding, str):
                raise ExportError(f"node '{node.name}': quantized conv2d with padding "
                                  f"{module.padding!r}/{module.padding_mode} is not supported")
            attrs.update({"stride": _pair(module.stride), "padding": _pair(module.padding),
                          "dilation": _pair(module.dilation), "groups": int(module.groups)})
            op = "quantized_conv2d"
        args = [x.vid, self.constant(f"{node.name}_weight", weight)]
        bias = _bias(bias, x.scale, scales)
        if bias is not None:
            args.append(self.constant(f"{node.name}_bias", bias))
        return self.emit(node, op, attrs, args, "int8", shape)

    def add(self, node, inputs, out, relu, shape):
        return self.binary(node, "quantized_add", inputs, out, relu, shape)

    def binary(self, node, op, inputs, out, relu, shape):
        a, b = inputs
        attrs = {"input_scale": a.scale, "input_zero_point": a.zero_point, "other_scale": b.scale,
                 "other_zero_point": b.zero_point, "output_scale": out.scale, "output_zero_point": out.zero_point,
                 "relu": relu}
        return self.emit(node, op, attrs, [a.vid, b.vid], "int8", shape)

    def kernel_binary(self, node):
        """convert_fx's torch.ops.quantized.add / add_relu / mul / mul_relu (a, b, scale, zero_point)."""
        a, b, scale, zero_point = node.args
        a, b = self.value(a, node), self.value(b, node)
        if not isinstance(a, _Quantized) or not isinstance(b, _Quantized):
            raise ExportError(f"node '{node.name}': quantized {node.target} of values that are not quantized")
        shape, dtype = _meta(node)
        out = _Quantized(None, float(self.static(scale)), _int8_zero_point(node, dtype, self.static(zero_point)), dtype)
        relu = node.target in (torch.ops.quantized.add_relu, torch.ops.quantized.mul_relu)
        op = "quantized_mul" if node.target in _QUANTIZED_MULS else "quantized_add"
        out.vid = self.binary(node, op, [a, b], out, relu, shape)
        return out

    def cat(self, node):
        """torch.cat: of dequantized values (the reference form: pending its quantize) or of int8
        values (convert_fx: the output's parameters are the quantized result's)."""
        tensors, _ = _cat_args(self, node)
        values = [self.value(t, node) for t in tensors]
        if values and all(isinstance(v, _Dequantized) for v in values):
            return _Pending(node, [v.q for v in values])
        if values and all(isinstance(v, _Quantized) for v in values):
            shape, _ = _meta(node)
            out = self.kernel_output(node)
            out.vid = self.concatenate(node, values, out, shape)
            return out
        raise ExportError(f"node '{node.name}': cat of values that are not all int8 (or all dequantized int8)")

    def kernel_output(self, node):
        """The quantization parameters of a quantized node's result (recorded by ShapeProp)."""
        meta = node.meta.get("tensor_meta")
        qparams = getattr(meta, "qparams", None) or {}
        if meta is None or meta.dtype not in (torch.quint8, torch.qint8) or \
                qparams.get("qscheme") not in (torch.per_tensor_affine, torch.per_tensor_symmetric):
            raise ExportError(f"node '{node.name}': the result of {_describe(self, node)} is not quantized per tensor")
        return _Quantized(None, float(qparams["scale"]), _int8_zero_point(node, meta.dtype, qparams["zero_point"]),
                          meta.dtype)

    def kernel_op(self, node, inputs):
        """A quantized-kernel module or a shape op of convert_fx's graph on int8 values."""
        module = self.modules.get(node.target) if node.op == "call_module" else None
        shape, dtype = _meta(node)
        (x,) = inputs
        if isinstance(module, (_QuantizedConv2d, _QuantizedLinear)):
            out = _Quantized(None, float(module.scale), _int8_zero_point(node, dtype, module.zero_point), dtype)
            relu = isinstance(module, (_QuantizedConvReLU2d, _QuantizedLinearReLU))
            out.vid = self.weighted_op(node, module, x, out, module.weight(), module.bias(), relu, shape)
            return out
        if _unary_function(self, node) is not None:
            out = self.kernel_output(node)
            out.vid = self.table(node, x, out, shape, reference=False)
            return out
        op, attrs = self.shared_params_op(node, module)
        return _Quantized(self.emit(node, op, attrs, [x.vid], "int8", shape), x.scale, x.zero_point, x.dtype)

    def shared_params_op(self, node, module):
        """(IR op, attributes) of ops computed on the int8 values directly, on the input's
        quantization parameters: max, average (TOSA rounds to nearest) and reshape commute with
        the affine map from int8 to real."""
        if isinstance(module, torch.nn.MaxPool2d):
            if module.return_indices:
                raise ExportError(f"node '{node.name}': max_pool2d with return_indices=True is not supported")
            stride = module.stride if module.stride is not None else module.kernel_size
            return "max_pool2d", {"kernel_size": _pair(module.kernel_size), "stride": _pair(stride),
                                  "padding": _pair(module.padding), "dilation": _pair(module.dilation),
                                  "ceil_mode": bool(module.ceil_mode)}
        if isinstance(module, torch.nn.AvgPool2d):
            if module.divisor_override is not None:
                raise ExportError(f"node '{node.name}': avg_pool2d with divisor_override is not supported")
            stride = module.stride if module.stride is not None else module.kernel_size
            return "avg_pool2d", {"kernel_size": _pair(module.kernel_size), "stride": _pair(stride),
                                  "padding": _pair(module.padding), "ceil_mode": bool(module.ceil_mode),
                                  "count_include_pad": bool(module.count_include_pad)}
        functional_pool = node.op == "call_function" and node.target is torch.nn.functional.adaptive_avg_pool2d
        if isinstance(module, torch.nn.AdaptiveAvgPool2d) or functional_pool:
            in_shape, _ = _meta(node.args[0])
            size = module.output_size if module is not None else self.static(
                node.args[1] if len(node.args) > 1 else node.kwargs["output_size"])
            size = list(size) if isinstance(size, (list, tuple)) else [size, size]
            size = [in_shape[-2 + i] if s is None else int(s) for i, s in enumerate(size)]
            return "adaptive_avg_pool2d", {"output_size": size}
        if isinstance(module, torch.nn.Flatten) or (node.op == "call_function" and node.target is torch.flatten):
            if module is not None:
                start, end = module.start_dim, module.end_dim
            else:
                start = int(self.static(node.args[1])) if len(node.args) > 1 else int(node.kwargs.get("start_dim", 0))
                end = int(self.static(node.args[2])) if len(node.args) > 2 else int(node.kwargs.get("end_dim", -1))
            return "flatten", {"start_dim": start, "end_dim": end}
        if node.op == "call_method" and node.target in ("reshape", "view", "flatten"):
            shape, _ = _meta(node)
            return "reshape", {"shape": list(shape)}
        raise ExportError(f"node '{node.name}': quantized {_describe(self, node)} is not supported")

    def output(self, r):
        if not isinstance(r, torch.fx.Node):
            raise ExportError(f"output {r!r} is not a tensor computed by the model")
        v = self.value(r, r)
        if isinstance(v, _Dequantized) and self.quantized_io:
            self.io_quantization[self.ctx.values[v.q.vid].name] = (v.q.scale, v.q.zero_point)
            return v.q.vid
        if isinstance(v, _Dequantized):
            shape, _ = _meta(r)
            attrs = {"scale": v.q.scale, "zero_point": v.q.zero_point}
            return self.emit(r, "dequantize_per_tensor", attrs, [v.q.vid], "float32", shape)
        if isinstance(v, _Pending):
            raise ExportError(f"output '{r.name}': the float result of {_describe(self, v.node)} is not quantized")
        raise ExportError(f"output '{r.name}' is not computed by the int8 region of the model")


_QUANTIZED_ADDS = (torch.ops.quantized.add, torch.ops.quantized.add_relu)
_QUANTIZED_MULS = (torch.ops.quantized.mul, torch.ops.quantized.mul_relu)

_F = torch.nn.functional
# Elementwise functions of one tensor, exported as int8 tables: float modules (the reference
# form), their quantized-kernel modules (convert_fx), functions and tensor methods.
_UNARY_MODULES = (torch.nn.ReLU, torch.nn.ReLU6, torch.nn.Hardtanh, torch.nn.Sigmoid, torch.nn.Tanh,
                  torch.nn.Hardsigmoid, torch.nn.Hardswish, torch.nn.LeakyReLU, torch.nn.ELU, torch.nn.SiLU,
                  torch.nn.GELU, torch.ao.nn.quantized.Hardswish, torch.ao.nn.quantized.ELU,
                  torch.ao.nn.quantized.LeakyReLU, torch.ao.nn.quantized.ReLU6, torch.ao.nn.quantized.Sigmoid)
_UNARY_FUNCTIONS = (torch.relu, torch.sigmoid, torch.tanh, torch.clamp, _F.relu, _F.relu6, _F.hardtanh, _F.sigmoid,
                    _F.tanh, _F.hardsigmoid, _F.hardswish, _F.leaky_relu, _F.elu, _F.silu, _F.gelu)
_UNARY_METHODS = ("relu", "sigmoid", "tanh", "clamp", "hardtanh")


def _unary_function(capture, node):
    """f(tensor) -> tensor running `node` on one tensor (its other arguments constants), when the
    node is an elementwise function in the lists above; else None."""
    if node.op == "call_module":
        module = capture.modules[node.target]
        return (lambda t: module(t)) if isinstance(module, _UNARY_MODULES) else None
    function = node.op == "call_function" and node.target in _UNARY_FUNCTIONS
    if not function and not (node.op == "call_method" and node.target in _UNARY_METHODS):
        return None
    rest = [capture.static(a) for a in node.args[1:]]
    kwargs = {k: capture.static(v) for k, v in node.kwargs.items() if k != "inplace"}
    if function:
        return lambda t: node.target(t, *rest, **kwargs)
    return lambda t: getattr(t, node.target)(*rest, **kwargs)


def _is_mul(node):
    return (node.op == "call_function" and node.target in (operator.mul, torch.mul) and not node.kwargs) or \
        (node.op == "call_method" and node.target == "mul")


def _is_identity(capture, node):
    return node.op == "call_module" and isinstance(capture.modules[node.target], (torch.nn.Dropout, torch.nn.Identity))


def _cat_args(capture, node):
    """(the tensor nodes, dim) of a torch.cat node."""
    tensors = node.args[0] if node.args else node.kwargs.get("tensors")
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
    if not isinstance(tensors, (list, tuple)) or not all(isinstance(t, torch.fx.Node) for t in tensors):
        raise ExportError(f"node '{node.name}': cat of {tensors!r} (a list of tensors only)")
    return list(tensors), int(capture.static(dim))


def _is_relu(capture, node):
    if node.op == "call_module":
        return isinstance(capture.modules[node.target], torch.nn.ReLU)
    if node.op == "call_method":
        return node.target == "relu"
    return node.op == "call_function" and node.target in (torch.relu, torch.nn.functional.relu)


def _describe(capture, node):
    if node.op == "call_module":
        return f"module '{node.target}' ({type(capture.modules[node.target]).__name__})"
    target = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", str(node.target))
    return f"{node.op} '{target}'"


def _meta(node):
    meta = node.meta.get("tensor_meta")
    if meta is None:
        raise ExportError(f"node '{node.name}': no tensor shape was recorded")
    return list(meta.shape), meta.dtype


def capture(ctx, gm, example_inputs, quantized_io=False):
    """Fills ctx (exporter._Context) from the quantize_fx GraphModule `gm`; returns (the output
    structure, "single" or "tuple"; {IR value name: (scale, int8 zero point)} of the program's
    int8 inputs and outputs, empty unless quantized_io). quantized_io: the program takes the
    values of its first quantize_per_tensor and returns those of its last dequantize (int8)."""
    try:
        ShapeProp(gm).propagate(*example_inputs)
    except Exception as e:
        raise ExportError(f"the quantized model fails on example_inputs: {type(e).__name__}: {e}") from e
    cap = _Capture(ctx, gm, quantized_io)
    structure = None
    for node in gm.graph.nodes:
        if node.op == "output":
            result = node.args[0]
            structure = "tuple" if isinstance(result, (list, tuple)) else "single"
            for r in (list(result) if isinstance(result, (list, tuple)) else [result]):
                ctx.outputs.append(cap.output(r))
            continue
        try:
            ctx.env[node] = cap.convert(node)
        except ExportError as e:
            raise ExportError(str(e) if str(e).startswith("node '") else f"node '{node.name}': {e}") from e
    for vid, node in zip(ctx.inputs, [n for n in gm.graph.nodes if n.op == "placeholder"]):
        if vid is None:
            raise ExportError(f"input '{node.name}' does not go through quantize_per_tensor: quantized_io needs "
                              "every input quantized")
    return structure, cap.io_quantization
