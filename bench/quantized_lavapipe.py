#!/usr/bin/env python3
"""Quantized MobileNetV2 and ResNet18 at batch 1 on lavapipe, in one run: univk's int8 programs
(workloads.py's qmobilenet_v2_b1_SIZE / qresnet18_b1_SIZE, one VgfBackend call each), univk's
fp32 programs of the same models (mobilenet_v2_b1_SIZE / resnet18_b1_SIZE), PyTorch's quantized
CPU kernels (qnnpack) and PyTorch fp32 eager, on --threads threads (docs/PERFORMANCE.md).

    PYTHONPATH=build/python /usr/bin/python3 bench/quantized_lavapipe.py --build-dir build \
        [--size 64] [--iterations 5] [--warmup 1] [--threads 1] [--out bench/out/int8]

Exports the four workloads with bench/export_workloads.py into OUT, then times them with
bench/compare_pytorch.py (univk-bench for univk, fused and per_delegate; PyTorch on the CPU),
which prints the table and writes OUT/table.md and results.json. SIZE is 64 (the workloads of
workloads.py's lavapipe rows); the 224x224 batch-1 and batch-32 quantized workloads are for
GPUs (export_workloads.py --only qresnet18_b32 ...).
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--size", type=int, default=64, choices=[64])
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="PyTorch's CPU threads (default 1)")
    parser.add_argument("--out", default=os.path.join(HERE, "out", "int8"))
    args = parser.parse_args()
    names = [f"{prefix}{model}_b1_{args.size}" for model in ("mobilenet_v2", "resnet18") for prefix in ("q", "")]
    python = sys.executable
    subprocess.run([python, os.path.join(HERE, "export_workloads.py"), "--build-dir", args.build_dir, "--out",
                    args.out, "--only", *names], check=True)
    bench = os.path.join(args.build_dir, "tools", "univk_bench", "univk-bench")
    subprocess.run([python, os.path.join(HERE, "compare_pytorch.py"), "--bench", bench, "--workloads",
                    os.path.join(args.out, "workloads.json"), "--out", args.out, "--only", *names, "--device", "cpu",
                    "--torch-threads", str(args.threads), "--no-compile", "--iterations", str(args.iterations),
                    "--warmup", str(args.warmup)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
