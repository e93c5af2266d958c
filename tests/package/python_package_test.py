#!/usr/bin/env python3
"""The installed univk Python package (python_install_test.sh installs it into a venv and runs
this file with the venv's Python, outside the source and build trees): it is the installed
copy, its version is the one of VERSION, a small model exports and runs on both backends and
matches PyTorch, failures raise the univk.Error class of their status code, and importing the
source folder instead of a build names the mistake.
Environment: UNIVK_SOURCE_DIR (the checkout)."""

import importlib.metadata
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

import torch

import univk

SOURCE_DIR = pathlib.Path(os.environ["UNIVK_SOURCE_DIR"])


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return torch.sigmoid(torch.relu(self.fc(x))) + 0.5


def make_program():
    torch.manual_seed(0)
    model = Model().eval()
    x = torch.randn(2, 8)
    program = univk.export(model, (x,), pin={"sigmoid": "VulkanBackend"}, require_no_cpu_fallback=True)
    return model, x, program


class InstalledPackage(unittest.TestCase):

    def test_is_the_installed_copy(self):
        package = pathlib.Path(univk.__file__).resolve().parent
        self.assertTrue(package.is_relative_to(pathlib.Path(sys.prefix).resolve()), package)
        self.assertFalse(package.is_relative_to(SOURCE_DIR.resolve()), package)
        self.assertTrue(pathlib.Path(univk._univk.__file__).resolve().is_relative_to(package))

    def test_version(self):
        expected = (SOURCE_DIR / "VERSION").read_text().strip()
        self.assertEqual(univk.__version__, expected)
        self.assertEqual(importlib.metadata.version("univk"), expected)

    def test_export_and_run(self):
        model, x, program = make_program()
        self.assertEqual([c["backend"] for c in program.calls], ["VgfBackend", "VulkanBackend", "VgfBackend"])
        with torch.no_grad():
            expected = model(x)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.uvk")
            program.save(path)
            for mode in ("fused", "per_delegate"):
                torch.testing.assert_close(univk.load(path, mode=mode)(x), expected, atol=1e-5, rtol=1e-5)
        self.assertEqual(univk._univk.validation_messages(), [])


class Errors(unittest.TestCase):

    def assert_raises_code(self, cls, regex, fn):
        with self.assertRaisesRegex(cls, regex) as caught:
            fn()
        self.assertIsInstance(caught.exception, univk.Error)
        self.assertIsInstance(caught.exception, RuntimeError)  # what univk raised before univk.Error
        self.assertEqual(caught.exception.code, cls.__name__)
        self.assertTrue(str(caught.exception).startswith(cls.__name__ + ": "), str(caught.exception))

    def test_status_codes(self):
        _, x, program = make_program()
        self.assert_raises_code(univk.NotFound, "no such file", lambda: univk.load("/nonexistent/model.uvk"))
        self.assert_raises_code(univk.NotFound, "no method 'nope'", lambda: program.load_method("nope"))
        self.assert_raises_code(univk.InvalidArgument, "unknown runtime option 'no_such_option'",
                                lambda: program.load_method(options={"no_such_option": "1"}))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "junk.uvk")
            with open(path, "wb") as f:
                f.write(b"not a program")
            self.assert_raises_code(univk.InvalidArgument, "not a univk program", lambda: univk.load(path))
        self.assert_raises_code(univk.Unsupported, "fused mode",
                                lambda: program.load_method(mode="per_delegate",
                                                            host_inputs={0: univk.aligned_buffer(x.numel() * 4)}))

    def test_export_error_is_a_univk_error(self):
        self.assertTrue(issubclass(univk.ExportError, univk.Error))
        self.assertIsNone(univk.ExportError.code)
        class Sorts(torch.nn.Module):
            def forward(self, x):
                return torch.sort(x)[0]

        with self.assertRaisesRegex(univk.ExportError, "aten.sort"):
            univk.export(Sorts(), (torch.randn(2, 8),))

    def test_every_class_is_exported(self):
        for name in ("InvalidArgument", "NotFound", "AlreadyExists", "Incompatible", "OutOfMemory", "DeviceLost",
                     "Unsupported", "Internal", "Timeout"):
            cls = getattr(univk, name)
            self.assertTrue(issubclass(cls, univk.Error), name)
            self.assertEqual(cls.code, name)


class SourceFolderMistake(unittest.TestCase):

    def test_pythonpath_python_names_the_mistake(self):
        env = dict(os.environ, PYTHONPATH=str(SOURCE_DIR / "python"))
        r = subprocess.run([sys.executable, "-c", "import univk"], env=env, capture_output=True, text=True,
                           cwd=SOURCE_DIR)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("the compiled extension univk._univk is not in", r.stderr)
        self.assertIn("pip install .", r.stderr)
        self.assertNotIn("circular import", r.stderr)


if __name__ == "__main__":
    unittest.main()
