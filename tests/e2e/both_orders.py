"""Shared by the e2e operator tests: a model exported under both partition orders with
require_no_cpu_fallback=True, run through the C++ runtime and compared with PyTorch."""

import numpy as np
import torch

import univk

BOTH_ORDERS = (("VgfBackend", "VulkanBackend"), ("VulkanBackend", "VgfBackend"))


def assert_both_orders_match_pytorch(test, model, inputs, atol, rtol, mode=None):
    """Each output's dtype, shape and values (exact for integers and bools, within atol/rtol for
    floats), no export warnings, nothing on the CPU and no validation message; with `mode`, the
    loaded method's execution mode too."""
    with torch.no_grad():
        expected = model(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for partition in BOTH_ORDERS:
        with test.subTest(partition=partition):
            program = univk.export(model, inputs, partition=partition, require_no_cpu_fallback=True)
            method = program.load_method()
            if mode is not None:
                test.assertEqual(method.mode, mode)
            actual = method(*inputs)
            actual = actual if isinstance(actual, tuple) else (actual,)
            test.assertEqual(program.warnings, [])
            test.assertTrue(all(not i["on_cpu"] for i in method.instructions))
            test.assertEqual(len(actual), len(expected))
            for i, (got, want) in enumerate(zip(actual, expected)):
                test.assertEqual(got.dtype, want.dtype, f"output {i}")
                test.assertEqual(got.shape, want.shape, f"output {i}")
                if want.dtype.is_floating_point:
                    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=atol, rtol=rtol,
                                               err_msg=f"output {i}")
                else:
                    np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=f"output {i}")
            test.assertEqual(univk._univk.validation_messages(), [])
