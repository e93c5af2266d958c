#!/usr/bin/env python3
"""One univk Method called from 8 Python threads at once (the binding releases the GIL during
execute), 300 calls per thread, in fused and per_delegate mode: every output must be the one of
that thread's own input. The Method serialises its calls in C++ (include/univk/runtime/program.h).
Run with PYTHONPATH=<build>/python (ctest sets it)."""

import threading
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

import univk

THREADS = 8
CALLS = 300


class Example(nn.Module):
    """The README's example: avg_pool2d (VgfBackend) -> sigmoid (VulkanBackend) -> x*x+0.25."""

    def forward(self, x):
        y = torch.sigmoid(F.avg_pool2d(x, 2))
        return y * y + 0.25


class OneMethodManyThreads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = Example().eval()
        x = torch.randn(1, 3, 8, 8)
        cls.program = univk.export(cls.module, (x,), partition=["VgfBackend", "VulkanBackend"],
                                   pin={"sigmoid": "VulkanBackend"})

    def run_threads(self, mode):
        method = self.program.load_method(mode=mode)
        self.assertEqual(method.mode, mode)
        failures = []
        verified = [0] * THREADS

        def worker(t):
            generator = torch.Generator().manual_seed(t)
            try:
                for i in range(CALLS):
                    # Each thread's inputs differ, so an output handed to the wrong caller fails.
                    x = torch.randn(1, 3, 8, 8, generator=generator) + t
                    got = method(x)
                    want = self.module(x)
                    if not torch.allclose(got, want, atol=1e-5, rtol=1e-5):
                        failures.append(f"thread {t} call {i}: max error {(got - want).abs().max().item()}")
                        return
                    verified[t] += 1
            except Exception as e:  # reported on the main thread
                failures.append(f"thread {t}: {type(e).__name__}: {e}")

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(failures, [])
        self.assertEqual(sum(verified), THREADS * CALLS)

    def test_fused(self):
        self.run_threads("fused")

    def test_per_delegate(self):
        self.run_threads("per_delegate")


if __name__ == "__main__":
    unittest.main()
