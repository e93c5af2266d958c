#!/usr/bin/env python3
"""Program inputs are read as the values they are, from Python and from univk-run alike: numpy
arrays of every univk dtype in either byte order, C order, Fortran order, strided, reversed and
read-only, and torch tensors of every supported dtype (contiguous or not). Dtypes univk does
not have are refused with a TypeError naming the input. univk-run reads the numpy.save files of
the same arrays (big endian, Fortran order) to the same outputs. Run with
PYTHONPATH=<build>/python and UNIVK_RUN_PATH=<univk-run> (ctest sets both)."""

import os
import subprocess
import tempfile
import unittest

import numpy as np
import torch
import torch.nn as nn

import univk

DTYPES = ["float32", "float16", "int8", "uint8", "int16", "int32", "int64", "bool"]


class Permute(nn.Module):
    """y = x.permute(1, 0): a copy that moves every element, for any dtype."""

    def forward(self, x):
        return x.permute(1, 0).contiguous()


def sample(dtype, shape=(5, 6)):
    rng = np.random.default_rng(7)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.startswith("float"):
        return rng.uniform(-100, 100, size=shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


def layouts(a):
    """name -> an array with a's values in another memory layout or byte order."""
    out = {"c_order": a, "fortran_order": np.asfortranarray(a)}
    wide = np.zeros((a.shape[0], 2 * a.shape[1]), a.dtype)
    wide[:, ::2] = a
    out["strided"] = wide[:, ::2]
    out["reversed"] = a[::-1, ::-1].copy()[::-1, ::-1]
    read_only = a.copy()
    read_only.flags.writeable = False
    out["read_only"] = read_only
    if a.dtype.itemsize > 1:
        out["big_endian"] = a.astype(a.dtype.newbyteorder(">"))
        out["big_endian_fortran"] = np.asfortranarray(a.astype(a.dtype.newbyteorder(">")))
        out["little_endian"] = a.astype(a.dtype.newbyteorder("<"))
    return out


class InputsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.methods, cls.paths = {}, {}
        for dtype in DTYPES:
            example = torch.from_numpy(sample(dtype))
            program = univk.export(Permute().eval(), (example,))
            path = os.path.join(cls.tmp.name, f"permute_{dtype}.uvk")
            program.save(path)
            cls.paths[dtype] = path
            cls.methods[dtype] = program.load_method()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def tearDown(self):
        self.assertEqual(univk._univk.validation_messages(), [])

    def check(self, dtype, x, what):
        expected = np.array(x).T  # numpy reads x by value
        actual = self.methods[dtype](x).numpy()
        self.assertEqual(actual.dtype, np.dtype(dtype), what)
        np.testing.assert_array_equal(actual, expected, err_msg=what)

    def test_numpy_arrays_of_every_dtype_layout_and_byte_order(self):
        for dtype in DTYPES:
            for name, x in layouts(sample(dtype)).items():
                with self.subTest(dtype=dtype, layout=name):
                    self.check(dtype, x, f"{dtype} {name}")

    def test_big_endian_float32_reads_its_values(self):
        a = np.array([[1.5, -2.25, 3.0]], dtype=">f4")
        method = univk.export(Permute().eval(), (torch.zeros(1, 3),)).load_method()
        np.testing.assert_array_equal(method(a).numpy(), np.array([[1.5], [-2.25], [3.0]], np.float32))

    def test_torch_tensors_of_every_dtype_contiguous_or_not(self):
        for dtype in DTYPES:
            a = sample(dtype)
            tensors = {"contiguous": torch.from_numpy(a),
                       "transposed_view": torch.from_numpy(np.ascontiguousarray(a.T)).t(),
                       "strided_view": torch.from_numpy(layouts(a)["strided"])}
            if dtype == "float32":
                tensors["requires_grad"] = torch.from_numpy(a).requires_grad_()
            for name, t in tensors.items():
                with self.subTest(dtype=dtype, tensor=name):
                    actual = self.methods[dtype](t)
                    self.assertEqual(actual.dtype, torch.from_numpy(a).dtype)
                    np.testing.assert_array_equal(actual.numpy(), a.T)

    def test_dtypes_univk_does_not_have_are_refused_naming_the_input(self):
        method = self.methods["float32"]
        bad = {"float64 array": np.zeros((5, 6), np.float64), "complex array": np.zeros((5, 6), np.complex64),
               "uint16 array": np.zeros((5, 6), np.uint16), "bfloat16 tensor": torch.zeros(5, 6, dtype=torch.bfloat16),
               "float64 tensor": torch.zeros(5, 6, dtype=torch.float64),
               "complex tensor": torch.zeros(5, 6, dtype=torch.complex64)}
        for name, x in bad.items():
            with self.subTest(input=name):
                with self.assertRaisesRegex(TypeError, "input 0"):
                    method(x)
        with self.assertRaisesRegex(TypeError, "input 0.*sparse"):
            method(torch.zeros(5, 6).to_sparse())
        with self.assertRaisesRegex(TypeError, "input 0 is a list"):
            method([[0.0] * 6] * 5)

    def test_univk_run_reads_numpy_save_files_of_every_layout(self):
        univk_run = os.environ.get("UNIVK_RUN_PATH")
        if not univk_run:
            self.skipTest("UNIVK_RUN_PATH is not set (ctest sets it)")
        for dtype in DTYPES:
            for name, x in layouts(sample(dtype)).items():
                with self.subTest(dtype=dtype, layout=name):
                    input_path = os.path.join(self.tmp.name, "input.npy")
                    reference_path = os.path.join(self.tmp.name, "reference.npy")
                    np.save(input_path, x)
                    np.save(reference_path, np.ascontiguousarray(np.array(x).T.astype(dtype)))
                    run = subprocess.run([univk_run, self.paths[dtype], "--input", input_path, "--reference",
                                          reference_path, "--atol", "0", "--rtol", "0", "--quiet"],
                                         capture_output=True, text=True, timeout=120)
                    self.assertEqual(run.returncode, 0, run.stdout + run.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
