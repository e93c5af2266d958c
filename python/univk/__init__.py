"""univk: run one partitioned PyTorch model across Vulkan delegates sharing one device.

    import univk
    program = univk.export(model.eval(), (x,), partition=["VgfBackend", "VulkanBackend"],
                           pin={"sigmoid": "VulkanBackend"})
    program.save("model.uvk")
    forward = univk.load("model.uvk")
    y = forward(x)
"""

from .errors import (AlreadyExists, DeviceLost, Error, Incompatible, Internal, InvalidArgument, NotFound,
                     OutOfMemory, Timeout, Unsupported)
from ._extension import load_extension

_univk = load_extension()
__version__ = _univk.__version__

from .exporter import capture, capture_with_locations  # noqa: E402  (needs the extension loaded first)
from .ops import ExportError  # noqa: E402
from .runner import Method, aligned_buffer, load  # noqa: E402

DEFAULT_PARTITION = ("VgfBackend", "VulkanBackend")


class Program:
    """An exported program: the .uvk bytes plus what the compiler decided."""

    def __init__(self, data, calls, warnings, graph_text):
        self.bytes = data
        self.calls = calls  # [{'backend', 'nodes', 'payload_bytes'}] in method order
        self.warnings = warnings  # one per operator on the CPU fallback (pinned there or claimed by no backend)
        self.graph_text = graph_text  # the IR, one line per operator

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.bytes)

    def load_method(self, name="forward", **load_options):
        """Runs this program without a file: see univk.load for the options."""
        program = _univk.Program.load_bytes(self.bytes)
        return Method(program, name, **load_options)

    def summary(self):
        lines = []
        for i, c in enumerate(self.calls):
            lines.append(f"{i}: {c['backend']}: {', '.join(c['nodes'])}")
        return "\n".join(lines)


def export(module, example_inputs, partition=DEFAULT_PARTITION, pin=None, require_no_cpu_fallback=False,
           method_name="forward"):
    """Captures `module` (in eval mode) on `example_inputs` and compiles it into a Program.

    partition: backend ids in claim order (the first backend that supports an operator takes
    it). pin: {node name or op type: backend id} forces operators onto a backend ("cpu" for the
    CPU fallback). Operators no backend supports run on the CPU fallback with a warning, or fail
    the export when require_no_cpu_fallback is set."""
    graph, _, locations = capture_with_locations(module, example_inputs)
    result = _univk.compile(graph, list(partition), dict(pin or {}), require_no_cpu_fallback, method_name, locations)
    return Program(result["bytes"], result["calls"], result["warnings"], graph.describe())


__all__ = ["export", "load", "capture", "Program", "Method", "ExportError", "DEFAULT_PARTITION", "__version__", "Error",
           "InvalidArgument", "NotFound", "AlreadyExists", "Incompatible", "OutOfMemory", "DeviceLost", "Unsupported",
           "Internal", "Timeout"]
