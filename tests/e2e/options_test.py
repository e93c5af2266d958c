#!/usr/bin/env python3
"""Runtime options from Python: an unknown key in univk.load(options=...), backend_options=... or
Program.load_method(...) raises an error that names the key and lists the known keys; known keys
load. Run with PYTHONPATH=<build>/python (ctest sets it)."""

import os
import tempfile
import unittest

import torch
import torch.nn as nn

import univk


class Relu(nn.Module):
    def forward(self, x):
        return torch.relu(x)


class UnknownOptionKeys(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.x = torch.randn(1, 3, 4, 4)
        cls.program = univk.export(Relu().eval(), (cls.x,))
        cls.dir = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.dir.name, "relu.uvk")
        cls.program.save(cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def assert_refused(self, load, *parts):
        with self.assertRaises(RuntimeError) as caught:
            load()
        for part in parts:
            self.assertIn(part, str(caught.exception))

    def test_unknown_key_for_every_backend(self):
        self.assert_refused(lambda: univk.load(self.path, options={"vulkan_shared_contxt_mode": "disabled"}),
                            "unknown runtime option 'vulkan_shared_contxt_mode'", "vulkan_shared_context_mode")
        self.assert_refused(lambda: self.program.load_method(options={"bogus_key": "1"}),
                            "'bogus_key'", "vulkan_shared_group_id")

    def test_unknown_key_for_one_backend(self):
        self.assert_refused(lambda: univk.load(self.path, backend_options={"VulkanBackend": {"fused": "yes"}}),
                            "unknown runtime option 'fused' for backend 'VulkanBackend'",
                            "vulkan_shared_context_name")

    def test_unregistered_backend(self):
        self.assert_refused(lambda: univk.load(self.path, backend_options={"VGFBackend": {}}),
                            "backend 'VGFBackend'", "not registered")

    def test_known_keys_load_and_run(self):
        method = univk.load(self.path, options={"vulkan_shared_context_mode": "disabled"},
                            backend_options={"VulkanBackend": {"vulkan_shared_group_id": "0"}})
        torch.testing.assert_close(method(self.x), torch.relu(self.x))


if __name__ == "__main__":
    unittest.main()
