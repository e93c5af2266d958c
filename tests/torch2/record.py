"""Records what univk's capture builds from PyTorch 2.x's torch.export, for the replay test.

Debian's PyTorch (1.13) has no torch.export, so univk.export there captures with make_fx; this
script exercises the other capture path on a machine with PyTorch 2.x but without univk's
compiled extension (built for Debian's Python). It puts a recording stand-in for univk._univk
in sys.modules, runs univk's own capture (python/univk, unchanged) on every model of models.py,
and writes per model `NAME.json` (the graph calls: inputs, nodes with their attributes, outputs,
plus the PyTorch version and what torch.export was) and `NAME.npz` (the constants, the example
inputs and PyTorch's outputs on the CPU in fp32). tests/e2e/torch2_capture_test.py replays them
into the real extension, compiles, runs on the Vulkan device and compares with those outputs.

    PYTHONPATH=python python3 tests/torch2/record.py --out tests/torch2/recordings

A model whose capture fails is recorded as {"error": message} so one run reports every failure.
"""

import argparse
import json
import pathlib
import sys
import traceback
import types

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import models  # noqa: E402


class RecordingGraph:
    """The calls univk's exporter makes on _univk.Graph (exporter._build_graph), recorded with
    the checks the extension applies to attribute types."""

    def __init__(self):
        self.inputs = []
        self.constants = {}
        self.nodes = []
        self.outputs = []
        self._count = 0

    def _new_id(self):
        self._count += 1
        return self._count - 1

    def add_input(self, name, dtype, shape):
        vid = self._new_id()
        self.inputs.append({"id": vid, "name": name, "dtype": dtype, "shape": [int(d) for d in shape]})
        return vid

    def add_constant(self, name, data):
        vid = self._new_id()
        self.constants[vid] = (name, np.ascontiguousarray(data))
        return vid

    def add_node(self, name, op, attrs, inputs, dtype, shape):
        vid = self._new_id()
        self.nodes.append({"id": vid, "name": name, "op": op, "attrs": {k: _attribute(name, k, v) for k, v in attrs.items()},
                           "inputs": [int(i) for i in inputs], "dtype": dtype, "shape": [int(d) for d in shape]})
        return vid

    def add_output(self, vid):
        self.outputs.append(int(vid))

    def describe(self):
        return "\n".join(f"{n['name']} = {n['op']}" for n in self.nodes)


def _attribute(node, key, value):
    """An attribute as JSON; the same types the extension takes (bool, int, float, str, lists)."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (list, tuple)):
        items = [_attribute(node, key, v) for v in value]
        if any(isinstance(v, (str, list, bool)) for v in items):
            raise TypeError(f"node '{node}': attribute '{key}' holds a list of {value!r}")
        return items
    raise TypeError(f"node '{node}': attribute '{key}' has unsupported type {type(value).__name__}")


def _stand_in_extension():
    ext = types.ModuleType("univk._univk")
    ext.__version__ = "recording"
    ext.Graph = RecordingGraph
    return ext


def _outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def record(name, out_dir, capture):
    module, inputs = models.build(name)
    meta = {"model": name, "torch": torch.__version__,
            "capture": "torch.export" if hasattr(torch, "export") else "make_fx"}
    try:
        graph, structure, _ = capture(module, inputs)
    except Exception as e:  # recorded, not raised: one run reports every model
        meta["error"] = f"{type(e).__name__}: {e}"
        meta["traceback"] = traceback.format_exc()
        (out_dir / f"{name}.json").write_text(json.dumps(meta, indent=1))
        return False
    with torch.no_grad():
        expected = [t.detach().float().numpy() for t in _outputs(module(*inputs))]
    meta.update({"structure": structure, "inputs": graph.inputs, "nodes": graph.nodes, "outputs": graph.outputs,
                 "constants": [{"id": vid, "name": n, "dtype": str(a.dtype), "shape": list(a.shape)}
                               for vid, (n, a) in graph.constants.items()]})
    arrays = {f"constant_{vid}": a for vid, (_, a) in graph.constants.items()}
    arrays.update({f"input_{i}": x.numpy() for i, x in enumerate(inputs)})
    arrays.update({f"expected_{i}": y for i, y in enumerate(expected)})
    np.savez_compressed(out_dir / f"{name}.npz", **arrays)
    (out_dir / f"{name}.json").write_text(json.dumps(meta, indent=1))
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=pathlib.Path, help="folder for NAME.json and NAME.npz")
    parser.add_argument("--only", nargs="*", default=list(models.MODELS), help="models to record")
    args = parser.parse_args()
    sys.modules["univk._univk"] = _stand_in_extension()
    import univk  # noqa: E402  (after the stand-in: univk loads univk._univk at import)

    args.out.mkdir(parents=True, exist_ok=True)
    failed = [n for n in args.only if not record(n, args.out, univk.capture_with_locations)]
    print(f"torch {torch.__version__}: recorded {len(args.only) - len(failed)} of {len(args.only)}"
          + (f"; capture failed: {', '.join(failed)}" if failed else ""))
    for n in failed:
        print(f"--- {n}:\n{json.loads((args.out / f'{n}.json').read_text())['traceback']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
