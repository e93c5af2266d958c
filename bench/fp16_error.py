"""The error of `precision=fp16` against PyTorch fp32 on the benchmark models, beside fp32's.

Each model (bench/workloads.py, seed-0 weights; --randomize draws the batch norms and
zero-initialised linear layers at random, as the e2e tests do, so activations keep a normal
magnitude) is exported with the default partition and run fused with each precision on one
random input; the line gives the largest output magnitude and the largest absolute error, also
as a fraction of that magnitude. Needs the univk package (PYTHONPATH=build/python).

    /usr/bin/python3 bench/fp16_error.py --size 64 --randomize
"""

import argparse
import os
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W  # noqa: E402
import univk  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=["resnet18", "resnet50", "mobilenet_v2"])
    parser.add_argument("--size", type=int, default=224, help="input height and width")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--randomize", action="store_true", help="random batch norms (workloads.randomize)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models:
            model = W.build_model({"model": name})
            if args.randomize:
                model = W.randomize(model)
            torch.manual_seed(1)
            x = torch.rand(args.batch, 3, args.size, args.size) * 2 - 1
            with torch.no_grad():
                want = model(x)
            path = os.path.join(tmp, f"{name}.uvk")
            univk.export(model, (x,)).save(path)
            scale = want.abs().max().item()
            for precision in ["fp32", "fp16"]:
                got = univk.load(path, mode="fused", options={"precision": precision})(x)
                error = (got - want).abs().max().item()
                print(f"{name} b{args.batch} {args.size}x{args.size} {precision}: max |y| {scale:.3g}, "
                      f"max abs error {error:.3g} ({error / scale:.2e} of max |y|)", flush=True)


if __name__ == "__main__":
    main()
