#!/usr/bin/env python3
"""Exports the benchmark workloads of issue 7 as .uvk programs plus workloads.json.

    /usr/bin/python3 bench/export_workloads.py --build-dir build [--out bench/out] [--only NAME ...]

Needs the univk Python module (built in BUILD_DIR/python) and torch (Debian's 1.13 works;
torchvision provides the classifiers; MobileNetV2 falls back to bench/mobilenet_v2.py without it). The .uvk files, the models' weights
(so bench/compare_pytorch.py runs PyTorch on the very same weights) and workloads.json go to
--out, which is git-ignored. The big [16,64,1024,1024] chains are traced on the meta device, so
exporting them allocates nothing large.
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import workloads as W  # noqa: E402


def example_input(workload):
    shape = workload["inputs"][0]
    if workload["model"] == "chain":
        # Shape propagation only needs shapes; the chain has no weights.
        return torch.empty(shape, device="meta")
    torch.manual_seed(1)
    return torch.rand(shape)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=os.path.join(HERE, "..", "build"),
                        help="univk build directory holding python/univk (default: build)")
    parser.add_argument("--out", default=os.path.join(HERE, "out"), help="output directory (default: bench/out)")
    parser.add_argument("--only", nargs="*", default=None, help="export only these workloads")
    parser.add_argument("--mantissa-bits", type=int, default=None, choices=range(1, 23), metavar="1..22",
                        help="round the models' weights to this many mantissa bits (workloads.round_mantissas): "
                             "programs that compress for the device tool's transfer limit")
    args = parser.parse_args()

    sys.path.insert(0, os.path.join(os.path.abspath(args.build_dir), "python"))
    try:
        import univk
    except ImportError as e:
        sys.exit(f"export_workloads.py: cannot import univk from {args.build_dir}/python ({e}); "
                 "build the _univk target with this python (/usr/bin/python3)")

    os.makedirs(args.out, exist_ok=True)
    def weights_path(model):
        path = os.path.join(args.out, W.weights_file(model, args.mantissa_bits))
        if not os.path.exists(path):
            module = W.build_model({"model": model})
            if args.mantissa_bits is not None:
                W.round_mantissas(module, args.mantissa_bits)
            torch.save(module.state_dict(), path)
        return path

    json_path = os.path.join(args.out, "workloads.json")
    previous = {}
    if args.only and os.path.exists(json_path):
        with open(json_path) as f:
            previous = {w["name"]: w for w in json.load(f)["workloads"]}

    entries = []
    failures = 0
    for workload in W.WORKLOADS:
        name = workload["name"]
        if args.only and name not in args.only:
            if name in previous:
                entries.append(previous[name])
            continue
        entry = dict(workload)
        entry["file"] = name + ".uvk"
        entry["input_bytes"] = sum(W.tensor_bytes(s) for s in workload["inputs"])
        weights = None
        if workload["model"] in W.MODEL_TITLES:
            entry["weights"] = W.weights_file(workload["model"], args.mantissa_bits)
            weights = weights_path(workload["model"])
        model = W.build_model(workload, weights)
        start = time.time()
        try:
            program = univk.export(model, (example_input(workload),), partition=workload["partition"],
                                   pin=workload["pin"])
        except Exception as e:  # report and go on with the other workloads
            print(f"{name}: export failed: {e}", file=sys.stderr)
            entry["export_error"] = str(e)
            entries.append(entry)
            failures += 1
            continue
        program.save(os.path.join(args.out, entry["file"]))
        entry["calls"] = [{"backend": c["backend"], "nodes": list(c["nodes"])} for c in program.calls]
        entry["cpu_fallback_warnings"] = list(program.warnings)
        entries.append(entry)
        backends = " -> ".join(c["backend"] for c in program.calls)
        print(f"{name}: {len(program.bytes)} bytes, {backends}, {len(program.warnings)} CPU operators "
              f"({time.time() - start:.1f} s)")

    with open(json_path, "w") as f:
        json.dump({"torch_version": torch.__version__, "workloads": entries}, f, indent=1)
    print(f"wrote {json_path}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
