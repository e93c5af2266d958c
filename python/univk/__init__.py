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

from .exporter import capture, capture_for_export, capture_with_locations  # noqa: E402  (needs the extension first)
from .ops import ExportError  # noqa: E402
from .runner import Method, aligned_buffer, load  # noqa: E402

DEFAULT_PARTITION = ("VgfBackend", "VulkanBackend")


class Program:
    """An exported program: the .uvk bytes plus what the compiler decided."""

    def __init__(self, data, calls, warnings, graph_text, io_quantization=None):
        self.bytes = data
        self.calls = calls  # [{'backend', 'nodes', 'payload_bytes'}] in method order
        self.warnings = warnings  # one per operator on the CPU fallback (pinned there or claimed by no backend)
        self.graph_text = graph_text  # the IR, one line per operator
        # quantized_io: {"inputs": [(scale, zero_point)], "outputs": [...]} of the int8 inputs and
        # outputs (real = (q - zero_point) * scale); None otherwise
        self.quantization = io_quantization

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
           method_name="forward", quantized_io=False):
    """Captures `module` (in eval mode) on `example_inputs` and compiles it into a Program.

    partition: backend ids in claim order (the first backend that supports an operator takes
    it). pin: {node name or op type: backend id} forces operators onto a backend ("cpu" for the
    CPU fallback). Operators no backend supports run on the CPU fallback with a warning, or fail
    the export when require_no_cpu_fallback is set. quantized_io (models quantized with
    quantize_fx): the program takes and returns int8 tensors, the values of the model's first
    quantize_per_tensor and last dequantize, with the scale and zero point in
    Program.quantization and in the program file (Method.input_quantization)."""
    graph, _, locations, io_quantization = capture_for_export(module, example_inputs, quantized_io)
    result = _univk.compile(graph, list(partition), dict(pin or {}), require_no_cpu_fallback, method_name, locations,
                            io_quantization)
    quantization = None
    if quantized_io:
        quantization = {"inputs": [io_quantization[n] for n in graph.input_names()],
                        "outputs": [io_quantization[n] for n in graph.output_names()]}
    return Program(result["bytes"], result["calls"], result["warnings"], graph.describe(), quantization)


__all__ = ["export", "load", "capture", "Program", "Method", "ExportError", "DEFAULT_PARTITION", "__version__", "Error",
           "InvalidArgument", "NotFound", "AlreadyExists", "Incompatible", "OutOfMemory", "DeviceLost", "Unsupported",
           "Internal", "Timeout"]
