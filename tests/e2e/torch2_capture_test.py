#!/usr/bin/env python3
"""End-to-end: univk's torch.export capture path (PyTorch 2.x), which Debian's PyTorch 1.13
cannot run. tests/torch2/record.py ran univk's own capture (python/univk) under PyTorch 2.x with
a recording stand-in for the compiled extension and saved, per model of tests/torch2/models.py,
the graph it built, its constants, the example inputs and PyTorch 2.x's outputs
(tests/torch2/recordings). This test replays each recording into the real extension's Graph,
compiles it under both partition orders with require_no_cpu_fallback=True, runs it fused on the
Vulkan device (validation on under ctest) and compares with the recorded PyTorch outputs
(atol/rtol 1e-4).

Run with PYTHONPATH=<build>/python (ctest sets it).
"""

import json
import pathlib
import unittest

import numpy as np

import univk
from univk import _univk

RECORDINGS = pathlib.Path(__file__).resolve().parents[1] / "torch2" / "recordings"
ATOL = 1e-4
RTOL = 1e-4
BOTH_ORDERS = (("VgfBackend", "VulkanBackend"), ("VulkanBackend", "VgfBackend"))


def replay(meta, arrays):
    """The recorded calls on a real _univk.Graph (ids renumbered as the extension returns them)."""
    graph = _univk.Graph()
    ids = {}
    for v in meta["inputs"]:
        ids[v["id"]] = graph.add_input(v["name"], v["dtype"], v["shape"])
    constants = {c["id"]: c["name"] for c in meta["constants"]}

    def ref(vid):
        if vid not in ids:
            ids[vid] = graph.add_constant(constants[vid], arrays[f"constant_{vid}"])
        return ids[vid]

    for n in meta["nodes"]:
        ids[n["id"]] = graph.add_node(n["name"], n["op"], n["attrs"], [ref(i) for i in n["inputs"]], n["dtype"],
                                      n["shape"])
    for vid in meta["outputs"]:
        graph.add_output(ids[vid])
    return graph


class Torch2CaptureTest(unittest.TestCase):
    def test_recordings_come_from_torch_export(self):
        names = sorted(p.stem for p in RECORDINGS.glob("*.json"))
        self.assertGreaterEqual(len(names), 8, f"recordings in {RECORDINGS}")
        for name in names:
            meta = json.loads((RECORDINGS / f"{name}.json").read_text())
            self.assertEqual(meta["capture"], "torch.export", name)
            self.assertGreaterEqual(int(meta["torch"].split(".")[0]), 2, name)
            self.assertNotIn("error", meta, f"{name}: capture failed under torch {meta['torch']}: {meta.get('error')}")

    def test_replayed_captures_match_pytorch(self):
        for path in sorted(RECORDINGS.glob("*.json")):
            meta = json.loads(path.read_text())
            if "error" in meta:
                continue  # reported by test_recordings_come_from_torch_export
            arrays = np.load(path.with_suffix(".npz"))
            inputs = [arrays[f"input_{i}"] for i in range(len(meta["inputs"]))]
            expected = [arrays[f"expected_{i}"] for i in range(len(meta["outputs"]))]
            for order in BOTH_ORDERS:
                with self.subTest(model=meta["model"], order=order[0]):
                    result = _univk.compile(replay(meta, arrays), list(order), {}, True, "forward", {})
                    program = univk.Program(result["bytes"], result["calls"], result["warnings"], "")
                    method = program.load_method(mode="fused")
                    got = method(*inputs)
                    got = list(got) if isinstance(got, (list, tuple)) else [got]
                    self.assertEqual(len(got), len(expected))
                    for g, e in zip(got, expected):
                        np.testing.assert_allclose(np.asarray(g), e, atol=ATOL, rtol=RTOL)


if __name__ == "__main__":
    unittest.main()
