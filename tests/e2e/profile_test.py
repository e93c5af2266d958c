#!/usr/bin/env python3
"""Profiling from Python and the trace file: method.profile() after a call, fused and
per_delegate, on the README's example exported with both backends (outputs checked against
PyTorch), with the PyTorch node names the exporter stores in the program; the Chrome trace JSON
written by Profile.write_chrome_trace and by `univk-run --trace` (when UNIVK_RUN_PATH names it)
parses, holds one event per delegate call and per dispatch, nests every dispatch inside its
delegate call, has per-track monotonic times and names that say the backend and operator. Run
with PYTHONPATH=<build>/python (ctest sets it)."""

import json
import os
import subprocess
import tempfile
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

import univk


class Example(nn.Module):
    """avg_pool2d -> sigmoid -> x*x+0.25"""

    def forward(self, x):
        y = torch.sigmoid(F.avg_pool2d(x, 2))
        return y * y + 0.25


BACKENDS = {"VgfBackend", "VulkanBackend"}


def check_trace(test, trace, profile_events=None):
    """Validates a parsed Chrome trace; returns its complete ("X") events."""
    test.assertIsInstance(trace["traceEvents"], list)
    meta = [e for e in trace["traceEvents"] if e["ph"] == "M"]
    threads = {e["tid"]: e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    test.assertEqual(sorted(threads.values()), ["gpu", "host"])
    events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    for e in events:
        for key in ("name", "cat", "ts", "dur", "pid", "tid"):
            test.assertIn(key, e)
        test.assertGreaterEqual(e["ts"], 0, e)
        test.assertGreaterEqual(e["dur"], 0, e)
        test.assertIn(e["tid"], threads)
    # Per thread, events come in start order.
    for tid in threads:
        starts = [e["ts"] for e in events if e["tid"] == tid]
        test.assertEqual(starts, sorted(starts), threads[tid])
    calls = [e for e in events if e["cat"] == "delegate" and threads[e["tid"]] == "gpu"]
    dispatches = [e for e in events if e["cat"] == "dispatch"]
    test.assertEqual(len(calls), 3, calls)
    test.assertGreater(len(dispatches), 0)
    for c in calls:
        test.assertIn(c["args"]["backend"], BACKENDS)
        test.assertTrue(c["name"].startswith(c["args"]["backend"] + " (instruction "), c["name"])
    eps = 1e-3  # the writer prints microseconds to nanoseconds
    for d in dispatches:
        backend, _, op = d["name"].partition(": ")
        test.assertIn(backend, BACKENDS, d["name"])
        test.assertTrue(op, d["name"])
        holder = [c for c in calls if c["args"]["instruction"] == d["args"]["instruction"]]
        test.assertEqual(len(holder), 1, d)
        c = holder[0]
        test.assertEqual(c["args"]["backend"], backend)
        test.assertGreaterEqual(d["ts"] + eps, c["ts"], (d, c))
        test.assertLessEqual(d["ts"] + d["dur"], c["ts"] + c["dur"] + eps, (d, c))
    if profile_events is not None:
        test.assertEqual(len(events), len(profile_events))
        test.assertEqual(len(dispatches), len([e for e in profile_events if e["kind"] == "dispatch"]))
    return events


class ProfileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = Example().eval()
        cls.program = univk.export(cls.module, (torch.randn(1, 3, 8, 8),), partition=["VgfBackend", "VulkanBackend"],
                                   pin={"sigmoid": "VulkanBackend"})

    def tearDown(self):
        self.assertEqual(univk._univk.validation_messages(), [])

    def test_profile_both_modes(self):
        x = torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(3))
        for mode in ("fused", "per_delegate"):
            with self.subTest(mode=mode):
                method = self.program.load_method(mode=mode, profile=True)
                torch.testing.assert_close(method(x), self.module(x), rtol=1e-5, atol=1e-5)
                profile = method.profile()  # a method (it raises without a profile), mode a property
                self.assertEqual(profile.mode, method.mode)
                self.assertEqual(profile.mode, mode)
                self.assertEqual(profile.method, "forward")
                events = profile.events
                dispatches = [e for e in events if e["kind"] == "dispatch"]
                stats = {c["instruction"]: c["stats"]["dispatches"] for c in method.delegate_calls()}
                for instruction, count in stats.items():
                    self.assertEqual(len([d for d in dispatches if d["instruction"] == instruction]), count)
                for d in dispatches:
                    parent = events[d["parent"]]
                    self.assertEqual(parent["kind"], "delegate")
                    self.assertGreater(d["duration_us"], 0)
                    self.assertGreaterEqual(d["start_us"], parent["start_us"])
                    self.assertLessEqual(d["start_us"] + d["duration_us"], parent["start_us"] + parent["duration_us"])
                table = str(profile)
                self.assertIn("VulkanBackend: ", table)
                with tempfile.TemporaryDirectory() as tmp:
                    path = os.path.join(tmp, "trace.json")
                    profile.write_chrome_trace(path)
                    with open(path) as f:
                        check_trace(self, json.load(f), events)
                self.assertEqual(json.loads(profile.chrome_trace())["otherData"]["mode"], mode)

    def test_debug_metadata_names_the_pytorch_nodes(self):
        # The program records each instruction's torch.fx nodes and where this file defines them.
        self.assertIn(b"profile_test.py", self.program.bytes)
        method = self.program.load_method(profile=True)
        method(torch.randn(1, 3, 8, 8))
        calls = {e["instruction"]: e["source"] for e in method.profile().events if e["kind"] == "delegate"}
        self.assertEqual(calls, {i: ", ".join(c["nodes"]) for i, c in enumerate(self.program.calls)})
        self.assertEqual(calls[1], "sigmoid")

    def test_profile_needs_the_load_option(self):
        method = self.program.load_method()
        method(torch.randn(1, 3, 8, 8))
        with self.assertRaisesRegex(univk.InvalidArgument, "LoadOptions::profile"):
            method.profile()

    @unittest.skipUnless(os.environ.get("UNIVK_RUN_PATH"), "univk-run is not built")
    def test_univk_run_trace(self):
        with tempfile.TemporaryDirectory() as tmp:
            model = os.path.join(tmp, "model.uvk")
            self.program.save(model)
            trace = os.path.join(tmp, "trace.json")
            run = subprocess.run([os.environ["UNIVK_RUN_PATH"], model, "--random-inputs", "1", "--profile", "--trace",
                                  trace], capture_output=True, text=True, check=False)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn("profile of method 'forward'", run.stdout)
            self.assertIn("dispatch", run.stdout)
            with open(trace) as f:
                check_trace(self, json.load(f))


if __name__ == "__main__":
    unittest.main()
