"""Capture without torch.export (Debian's PyTorch 1.13): an ATen graph from make_fx.

The module runs once on the example inputs under make_fx's proxy mode with real tensors,
functionalized so that in-place operators and views on mutated tensors become pure operators.
Python code runs for real: shape queries (`x.shape`, `x.size()`, `len`, unpacking) are ints, and
library modules' Python checks take the branch their eval-mode call takes. A value read from a
tensor that depends on the inputs (`.item()`, `if x.sum() > 0`) cannot be captured: make_fx
refuses it and the exporter reports the model's source line. The graph holds ATen operators,
the kind torch.export gives, so aten.py maps both capture paths.

Tracing runs with autograd on and every floating-point parameter requiring grad (restored
afterwards, `composite_path`): modules with an inference fast path (nn.MultiheadAttention,
nn.TransformerEncoderLayer take one fused kernel under no_grad) then take their composite path
of ordinary operators, which univk's backends run.

Each node records, in node.meta, the qualified name and type of the innermost module that ran
it ("univk_module") and the model source line that called it ("univk_source"), for errors.
"""

import contextlib
import os
import sys

import torch
from torch.fx.experimental.proxy_tensor import ProxyTorchDispatchMode, make_fx
from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

try:
    from torch.func import functionalize  # PyTorch 2.x
except ImportError:
    from functorch import functionalize  # PyTorch 1.13 ships it as functorch

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_NN_DIR = os.path.join(_TORCH_DIR, "nn") + os.sep
_UNIVK_DIR = os.path.dirname(__file__) + os.sep


def is_library_file(filename):
    """True for PyTorch internals, functorch and univk; torch.nn counts as model source."""
    path = os.path.abspath(filename)
    if path.startswith(_NN_DIR):
        return False
    # "<string>": the wrapper make_fx compiles to give a traced function a fixed signature.
    return path.startswith((_TORCH_DIR, _UNIVK_DIR)) or os.sep + "functorch" + os.sep in path or \
        filename == "<string>"


def _source_line():
    """(file, line, function) of the innermost model frame on the current Python stack."""
    frame = sys._getframe(2)
    while frame is not None and is_library_file(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return None
    return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name


class _ModuleRecorder:
    """Forward hooks on every submodule keep a stack of the running modules; the proxy tracer's
    create_node is wrapped so each new node records the top of that stack and the source line."""

    def __init__(self, module):
        self.module = module
        self.stack = []
        self.handles = []
        self.tracer = None

    def __enter__(self):
        for name, mod in self.module.named_modules():
            self.handles.append(mod.register_forward_pre_hook(self._pre_hook(name)))
            self.handles.append(mod.register_forward_hook(self._post_hook))
        return self

    def __exit__(self, *exc):
        for handle in self.handles:
            handle.remove()
        if self.tracer is not None:
            del self.tracer.create_node  # the instance attribute set in _attach
        return False

    def _pre_hook(self, name):
        def hook(mod, inputs):
            if self.tracer is None:
                self._attach()
            self.stack.append((name, type(mod).__name__))
        return hook

    def _post_hook(self, mod, inputs, output):
        self.stack.pop()

    def _attach(self):
        modes = [m for m in _get_current_dispatch_mode_stack() if isinstance(m, ProxyTorchDispatchMode)]
        if not modes:
            return
        self.tracer = modes[-1].tracer
        create_node = self.tracer.create_node

        def recording_create_node(*args, **kwargs):
            node = create_node(*args, **kwargs)
            if self.stack:
                node.meta["univk_module"] = self.stack[-1]
            source = _source_line()
            if source is not None:
                node.meta["univk_source"] = source
            return node

        self.tracer.create_node = recording_create_node

    def current(self):
        return self.stack[-1] if self.stack else None


@contextlib.contextmanager
def composite_path(module):
    """Autograd on and every floating-point parameter requiring grad (restored afterwards), so
    that modules with a no-grad inference fast path take their composite path; torch.export
    traces under it too. The module's flags change while it runs: do not run the same module
    on another thread during an export."""
    changed = [p for p in module.parameters() if p.is_floating_point() and not p.requires_grad]
    for p in changed:
        p.requires_grad_(True)
    try:
        with torch.enable_grad():
            yield
    finally:
        for p in changed:
            p.requires_grad_(False)


class CaptureFailure(Exception):
    """make_fx failed; `module` is the innermost module that was running ((name, type) or None)."""

    def __init__(self, error, module):
        super().__init__(str(error))
        self.error = error
        self.module = module


def trace(module, example_inputs):
    """A torch.fx GraphModule of ATen operators with tensor_meta on every tensor node."""
    recorder = _ModuleRecorder(module)
    fn = functionalize(module, remove="mutations")
    try:
        with recorder, composite_path(module):
            gm = make_fx(fn)(*example_inputs)
    except Exception as e:
        raise CaptureFailure(e, recorder.current()) from e
    _fuse_linear(gm)
    gm.graph.eliminate_dead_code()
    return gm


def _shape(gm, node):
    if not isinstance(node, torch.fx.Node):
        return None
    if node.op == "get_attr":
        return list(getattr(gm, node.target).shape)
    meta = node.meta.get("tensor_meta")
    return None if meta is None else list(meta.shape)


def _fuse_linear(gm):
    """Rewrites the decomposition of nn.Linear, addmm(bias, x, t(w)) and mm(x, t(w)), back into
    aten.linear, which both backends take as one operator (the VgfBackend has no addmm)."""
    aten = torch.ops.aten
    graph = gm.graph
    for node in list(graph.nodes):
        if node.op != "call_function" or node.kwargs:
            continue
        if node.target is aten.addmm.default and len(node.args) == 3:
            bias, x, weight_t = node.args
        elif node.target is aten.mm.default:
            bias, (x, weight_t) = None, node.args
        else:
            continue
        if not isinstance(weight_t, torch.fx.Node) or weight_t.target is not aten.t.default:
            continue
        weight_shape = _shape(gm, weight_t.args[0])
        if bias is not None and (weight_shape is None or _shape(gm, bias) != weight_shape[:1]):
            continue  # linear's bias is [out_features]; addmm's may broadcast from other shapes
        args = (x, weight_t.args[0]) if bias is None else (x, weight_t.args[0], bias)
        with graph.inserting_before(node):
            linear = graph.create_node("call_function", aten.linear.default, args, name="linear")
        linear.meta = dict(node.meta)
        node.replace_all_uses_with(linear)
        graph.erase_node(node)
