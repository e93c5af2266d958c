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
    method has one output, else a tuple)."""

    def __init__(self, program, name="forward", mode="auto", require_no_cpu_fallback=False, options=None,
                 backend_options=None):
        self._program = program  # keeps the C++ Program alive (the Method also holds it)
        self._method = program.load_method(name, mode, require_no_cpu_fallback, options or {},
                                           backend_options or {})

    @property
    def name(self):
        return self._method.name

    @property
    def mode(self):
        """The resolved execution mode: 'per_delegate' or 'fused'."""
        return self._method.mode

    def __call__(self, *inputs):
        arrays = [_to_numpy(x, i) for i, x in enumerate(inputs)]
        outputs = [torch.from_numpy(a) for a in self._method.execute(arrays)]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def delegate_calls(self):
        """Per delegate call: backend, device_key, device and queue (VkDevice/VkQueue handles as
        integers), standalone_device and the delegate's stats."""
        return self._method.delegate_calls()

    def instructions(self):
        """Per instruction: {'on_cpu': bool, 'name': backend id or CPU operator}."""
        return self._method.instructions()

    def input_infos(self):
        return self._method.input_infos()

    def output_infos(self):
        return self._method.output_infos()


def load(path, method="forward", mode="auto", require_no_cpu_fallback=False, options=None, backend_options=None):
    """Loads a .uvk file and returns its method `method` ready to call.

    mode: 'auto' (fused when possible), 'per_delegate' or 'fused'. options: runtime options
    given to every backend (e.g. {'vulkan_shared_context_mode': 'disabled'}); backend_options:
    per backend id."""
    program = _univk.Program.load(str(path))
    return Method(program, method, mode, require_no_cpu_fallback, options, backend_options)
