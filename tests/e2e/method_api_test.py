#!/usr/bin/env python3
"""univk.Method's API: properties for what load fixed (mode, mode_reason, infos, instructions,
io_info), methods for actions and what calls change (delegate_calls, profile); the auto mode's reason; a
private device shown as such; the load's info log lines. Run with PYTHONPATH=<build>/python
(ctest sets it)."""

import os
import subprocess
import sys
import tempfile
import unittest

import torch
import torch.nn.functional as F

import univk


class Example(torch.nn.Module):
    def forward(self, x):
        y = torch.sigmoid(F.avg_pool2d(x, 2))
        return y * y + 0.25


class MethodApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.x = torch.rand(1, 3, 8, 8)
        cls.expected = Example()(cls.x)
        # VgfBackend -> VulkanBackend -> VgfBackend: three delegate calls, no CPU operator.
        cls.program = univk.export(Example().eval(), (cls.x,), pin={"sigmoid": "VulkanBackend"})
        cls.dir = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.dir.name, "example.uvk")
        cls.program.save(cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_properties_are_load_time_values(self):
        method = univk.load(self.path)
        self.assertEqual(method.name, "forward")
        self.assertEqual(method.mode, "fused")
        self.assertEqual(method.mode_reason, "auto: every delegate is on one device and no operator runs on the CPU")
        self.assertEqual(method.input_infos, [("float32", [1, 3, 8, 8])])
        self.assertEqual(method.output_infos, [("float32", [1, 3, 4, 4])])
        self.assertEqual([i["name"] for i in method.instructions], ["VgfBackend", "VulkanBackend", "VgfBackend"])
        self.assertFalse(any(i["on_cpu"] for i in method.instructions))
        self.assertEqual(method.io_info["inputs"], ["mapped"])
        torch.testing.assert_close(method(self.x), self.expected, atol=1e-5, rtol=1e-5)
        calls = method.delegate_calls()  # a method: its counters change with calls
        self.assertEqual(len(calls), 3)
        for call in calls:
            self.assertEqual(call["device_key"], "default/0")
            self.assertEqual(call["device_name"], "default/0")
            self.assertFalse(call["standalone_device"])
            self.assertGreaterEqual(call["load_ms"], 0.0)
        for name in ("mode", "mode_reason", "input_infos", "output_infos", "instructions", "io_info"):
            self.assertFalse(callable(getattr(method, name)), name)
        for name in ("delegate_calls", "profile", "run", "input_array", "output_array"):
            self.assertTrue(callable(getattr(method, name)), name)

    def test_requested_mode(self):
        method = univk.load(self.path, mode="per_delegate")
        self.assertEqual((method.mode, method.mode_reason), ("per_delegate", "requested"))

    def test_private_devices_and_why_auto_did_not_fuse(self):
        method = univk.load(self.path, options={"vulkan_shared_context_mode": "disabled"})
        self.assertEqual(method.mode, "per_delegate")
        self.assertEqual(method.mode_reason, "auto: its delegates use more than one device")
        calls = method.delegate_calls()
        self.assertEqual(len({c["device"] for c in calls}), 3)
        for call in calls:
            self.assertIsNone(call["device_key"])
            self.assertEqual(call["device_name"], "private")
            self.assertTrue(call["standalone_device"])
            # A new device has an empty pipeline cache: each call compiled its own at load.
            self.assertGreater(call["pipelines_compiled"], 0, call)
        torch.testing.assert_close(method(self.x), self.expected, atol=1e-5, rtol=1e-5)

    def test_info_log_names_each_delegate_and_the_mode_reason(self):
        script = ("import sys, univk; m = univk.load(sys.argv[1], options={'vulkan_shared_context_name': 'log'}); "
                  "print(m.mode)")
        env = dict(os.environ, UNIVK_LOG_LEVEL="info")
        run = subprocess.run([sys.executable, "-c", script, self.path], env=env, capture_output=True, text=True,
                             timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.strip(), "fused")
        for i, backend in enumerate(["VgfBackend", "VulkanBackend", "VgfBackend"]):
            self.assertRegex(run.stderr, rf"\[univk I method_loader.cc:[0-9]+\] method 'forward' instruction {i} "
                             rf"\({backend}\) on device log/0: ready in [0-9.]+ s; compiled [0-9]+ pipelines? in "
                             rf"[0-9.]+ s, [0-9]+ found in the device's cache\n")
        self.assertIn("mode fused (auto: every delegate is on one device and no operator runs on the CPU)",
                      run.stderr)
        # At the default level the same load prints nothing (it takes well under a second).
        env["UNIVK_LOG_LEVEL"] = "warning"
        quiet = subprocess.run([sys.executable, "-c", script, self.path], env=env, capture_output=True, text=True,
                               timeout=300)
        self.assertEqual(quiet.returncode, 0, quiet.stderr)
        self.assertNotIn("[univk I", quiet.stderr)

    def test_unknown_log_level_is_named(self):
        env = dict(os.environ, UNIVK_LOG_LEVEL="loud")
        run = subprocess.run([sys.executable, "-c", "import sys, univk; univk.load(sys.argv[1])", self.path],
                             env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("UNIVK_LOG_LEVEL=loud is not one of error, warning, info, debug; using warning", run.stderr)


if __name__ == "__main__":
    unittest.main()
