"""Running univk programs from Python: univk.load(path) -> Method, method(*tensors)."""

import numpy as np
import torch

from . import _univk


# The torch dtypes that have a univk (and numpy) equivalent.
_TORCH_DTYPES = (torch.float32, torch.float16, torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64,
                 torch.bool)


def _to_numpy(x, index):
    """A torch tensor or numpy array as a numpy array; the C++ side reads any numpy layout and
    byte order by value (python/src/convert.h)."""
    if isinstance(x, torch.Tensor):
        if x.layout != torch.strided:
            raise TypeError(f"univk: input {index} is a {x.layout} tensor; pass a dense (strided) tensor")
        if x.dtype not in _TORCH_DTYPES:
            names = ", ".join(str(d) for d in _TORCH_DTYPES)
            raise TypeError(f"univk: input {index} has dtype {x.dtype}; supported: {names}")
        return x.detach().cpu().resolve_conj().resolve_neg().contiguous().numpy()
    if isinstance(x, np.ndarray):
        return x
    raise TypeError(f"univk: input {index} is a {type(x).__name__}; pass torch tensors or numpy arrays")


class Method:
    """A loaded method of a program. Calling it runs the method through the C++ runtime.

    Inputs are torch tensors or numpy arrays; outputs are torch tensors (one tensor when the
    method has one output, else a tuple).

    Properties are the values fixed when the method was loaded (cheap, no side effect, the same
    on every read): name, mode, mode_reason, input_infos, output_infos, instructions, io_info.
    Methods act or read what calls change: calling the method, run(), input_array(i),
    output_array(i), delegate_calls() (whose counters change with every call), profile() (the
    last call's timings; it raises when there is none)."""

    def __init__(self, program, name="forward", mode="auto", require_no_cpu_fallback=False, options=None,
                 backend_options=None, host_inputs=None, host_outputs=None, profile=False):
        self._program = program  # keeps the C++ Program alive (the Method also holds it)
        self._method = program.load_method(name, mode, require_no_cpu_fallback, options or {},
                                           backend_options or {}, host_inputs or {}, host_outputs or {}, profile)

    @property
    def name(self):
        return self._method.name

    @property
    def mode(self):
        """The resolved execution mode: 'per_delegate' or 'fused'."""
        return self._method.mode

    @property
    def mode_reason(self):
        """Why `mode` is what it is: 'requested' when load() named the mode, else 'auto: ' and
        the reason, e.g. "auto: instruction 1 runs operator 'relu' on the CPU"."""
        return self._method.mode_reason

    @property
    def input_infos(self):
        """[(dtype, shape)] per input."""
        return self._method.input_infos

    @property
    def output_infos(self):
        """[(dtype, shape)] per output."""
        return self._method.output_infos

    @property
    def input_quantization(self):
        """Per input, (scale, zero_point) of an int8 input (a model exported with quantized_io:
        real = (q - zero_point) * scale), else None."""
        return self._method.input_quantization

    @property
    def output_quantization(self):
        """Per output, (scale, zero_point) of an int8 output, else None."""
        return self._method.output_quantization

    @property
    def instructions(self):
        """Per instruction: {'on_cpu': bool, 'name': backend id or CPU operator}."""
        return self._method.instructions

    @property
    def io_info(self):
        """{'inputs': [...], 'outputs': [...], 'zero_copy': bool}; each entry 'mapped',
        'imported' (host_inputs/host_outputs), 'staged' (a GPU copy per run) or 'host'
        (per_delegate: copies like a call)."""
        return self._method.io_info

    def __call__(self, *inputs):
        arrays = [_to_numpy(x, i) for i, x in enumerate(inputs)]
        outputs = [torch.from_numpy(a) for a in self._method.execute(arrays)]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def input_array(self, index=0):
        """A writable numpy array over input `index`'s memory in the method (no copy): fill it,
        then call run(). It keeps the method alive. Write into it from torch without an
        intermediate copy with `torch.from_numpy(arr).copy_(t)`."""
        return self._method.input_array(index)

    def output_array(self, index=0):
        """A read-only numpy array over output `index`'s memory: the outputs of the last run()
        or call, overwritten by the next one (copy it to keep it)."""
        return self._method.output_array(index)

    def run(self):
        """Runs the method on what the input arrays hold; the outputs land in the output arrays."""
        self._method.run()

    def profile(self):
        """The last call's or run()'s profile (load with profile=True): print it for the table;
        .events is a list of dicts (track 'host'/'gpu', kind, name, backend, instruction, parent,
        start_us, duration_us, source); .write_chrome_trace(path) writes Chrome trace JSON.
        Raises when the method was loaded without profile=True or has not run yet."""
        return self._method.profile()

    def delegate_calls(self):
        """Per delegate call: backend, device_key ('default/0'; None for a private device of
        vulkan_shared_context_mode=disabled), device_name ('default/0' or 'private'),
        standalone_device, device and queue (VkDevice/VkQueue handles as integers), what the
        load spent on it (load_ms, pipelines_compiled, pipelines_reused) and the delegate's
        stats, which change with every call; VgfBackend calls also give graph_path, 'native'
        (VK_ARM_data_graph pipelines) or 'lowered' (univk's kernels)."""
        return self._method.delegate_calls()


def load(path, method="forward", mode="auto", require_no_cpu_fallback=False, options=None, backend_options=None,
         host_inputs=None, host_outputs=None, profile=False):
    """Loads a .uvk file and returns its method `method` ready to call.

    mode: 'auto' (fused when possible), 'per_delegate' or 'fused'. options: runtime options
    given to every backend (e.g. {'vulkan_shared_context_mode': 'disabled'}); backend_options:
    per backend id. host_inputs / host_outputs: {index: numpy array} of caller memory the method
    uses as that input's or output's buffer (VK_EXT_external_memory_host; see aligned_buffer);
    the method keeps the arrays alive. profile: record GPU timestamps and time the host phases
    so that method.profile() returns the last call's profile (docs/RUNTIME.md, Profiling)."""
    program = _univk.Program.load(str(path))
    return Method(program, method, mode, require_no_cpu_fallback, options, backend_options, host_inputs,
                  host_outputs, profile)


def aligned_buffer(nbytes, alignment=65536):
    """A zero-filled uint8 numpy array for host_inputs / host_outputs: its memory starts on
    `alignment` and its length is `nbytes` rounded up to a multiple of it (the device's
    minImportedHostPointerAlignment, 4096 on lavapipe and NVIDIA, must divide `alignment`).
    After loading, method.input_array(i) / output_array(i) view it with the tensor's dtype and
    shape."""
    size = max(alignment, (int(nbytes) + alignment - 1) // alignment * alignment)
    raw = np.zeros(size + alignment, dtype=np.uint8)
    start = (-raw.ctypes.data) % alignment
    return raw[start:start + size]
