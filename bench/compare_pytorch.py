#!/usr/bin/env python3
"""univk against PyTorch on the same machine, for the workloads of bench/export_workloads.py.

    python3 bench/compare_pytorch.py --bench build/tools/univk_bench/univk-bench \
        --workloads bench/out/workloads.json --out RESULTS_DIR [--iterations N] [--warmup W] \
        [--iterations-for NAME=N ...] [--skip-large] [--only NAME ...] [--no-compile] [--device cuda|cpu]
        [--torch-threads N]

Needs only torch (CUDA when available, else CPU) and the univk-bench binary: no univk Python
module, so it runs on the GPU machine. The quantized workloads (workloads.py's "quantized")
run PyTorch's quantized CPU kernels on the CPU whatever --device says (--torch-threads sets
their threads), eager only. For every workload it
  * runs `univk-bench FILE --mode M --json -` for M in per_delegate and fused (latency host-in to
    host-out, GPU time, and the floors measured in the same run: empty submit-and-wait round
    trip and device-local copy bandwidth);
  * runs the same model in PyTorch, eager and torch.compile (where it exists and works):
    host-in to host-out (host tensor -> .to(device) -> model -> .cpu(), synchronised) and
    device-only (input already on the device; CUDA events, or host time on the CPU);
then prints a table of ratios, checks issue 7's targets, and writes results.json and table.md
into RESULTS_DIR (partial.json after each workload, so a run cut short keeps what it measured).
Timings are p50 over --iterations runs after --warmup runs.

    python3 bench/compare_pytorch.py --render A/results.json B/partial.json ... --out DIR

merges earlier runs into one table without measuring anything.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import workloads as W  # noqa: E402

MODES = ("per_delegate", "fused")


def percentile(samples, q):
    s = sorted(samples)
    if not s:
        return None
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summary_us(samples_s):
    us = [x * 1e6 for x in samples_s]
    return {"count": len(us), "min": min(us), "p50": percentile(us, 0.5), "p90": percentile(us, 0.9),
            "mean": sum(us) / len(us), "max": max(us)}


# ----- PyTorch --------------------------------------------------------------------------------

def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_host_to_host(fn, x_host, device, warmup, iterations):
    """host tensor -> device -> fn -> host, synchronised; seconds per run."""
    samples = []
    for i in range(warmup + iterations):
        sync(device)
        start = time.perf_counter()
        y = fn(x_host.to(device)).cpu()
        sync(device)
        if i >= warmup:
            samples.append(time.perf_counter() - start)
        del y
    return samples


def time_device_only(fn, x_dev, device, warmup, iterations):
    """Input already on the device: CUDA event time of fn (host time on the CPU)."""
    samples = []
    for i in range(warmup + iterations):
        if device.type == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            y = fn(x_dev)
            end.record()
            end.synchronize()
            elapsed = start.elapsed_time(end) / 1e3
        else:
            t0 = time.perf_counter()
            y = fn(x_dev)
            elapsed = time.perf_counter() - t0
        if i >= warmup:
            samples.append(elapsed)
        del y
    return samples


def run_torch(workload, weights_dir, device, warmup, iterations, use_compile, compile_mode):
    result = {}
    if workload.get("quantized"):
        # PyTorch's quantized kernels run on the CPU only; torch.compile does not take them.
        torch.backends.quantized.engine = workload["quantized"]
        device, use_compile = torch.device("cpu"), False
        result["device"] = f"cpu, quantized engine {workload['quantized']}, {torch.get_num_threads()} threads"
    model = W.build_model(workload, os.path.join(weights_dir, workload["weights"]) if "weights" in workload else None)
    model = model.to(device)
    gen = torch.Generator().manual_seed(0)
    x_host = torch.rand(workload["inputs"][0], generator=gen) * 2 - 1
    if device.type == "cuda":
        x_host = x_host.pin_memory()
    x_dev = x_host.to(device)

    variants = [("eager", model)]
    if use_compile:
        if not hasattr(torch, "compile"):
            result["compile_error"] = f"torch {torch.__version__} has no torch.compile"
        else:
            try:
                compiled = torch.compile(model, mode=compile_mode)
                with torch.no_grad():
                    compiled(x_dev)  # compiles (not timed)
                sync(device)
                variants.append(("compile", compiled))
            except Exception as e:  # report why and carry on with eager
                result["compile_error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
    with torch.no_grad():
        for name, fn in variants:
            result[name] = {
                "host_to_host_us": summary_us(time_host_to_host(fn, x_host, device, warmup, iterations)),
                "device_only_us": summary_us(time_device_only(fn, x_dev, device, warmup, iterations)),
            }
    del model, variants, x_dev
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return result


# ----- univk ------------------------------------------------------------------------------------

def run_univk(bench, path, mode, warmup, iterations, extra_args, timeout_s):
    cmd = [bench, path, "--mode", mode, "--warmup", str(warmup), "--iterations", str(iterations), "--json", "-"]
    cmd += extra_args
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout_s} s: {' '.join(cmd)}"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip() or f"exit status {done.returncode}")[-1000:]}
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError as e:
        return {"error": f"univk-bench printed no JSON ({e}): {done.stdout[-300:]}"}


# ----- table ------------------------------------------------------------------------------------

def p50(d, *keys):
    for k in keys:
        if not isinstance(d, dict) or k not in d or d[k] is None:
            return None
        d = d[k]
    return d


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def fmt(x, suffix="", digits=2):
    return "n/a" if x is None else f"{x:.{digits}f}{suffix}"


def fmt_us(x):
    if x is None:
        return "n/a"
    return f"{x / 1e3:.2f} ms" if x >= 1e4 else f"{x:.1f} us"


def pct(fraction):
    return f"{fraction * 100:.0f}%" if fraction >= 0.1 else f"{fraction * 100:.2g}%"


def kernel_fractions(u):
    gpu = u.get("gpu") if isinstance(u, dict) else None
    if not gpu:
        return None
    return [(d["backend"], d["fraction_of_copy"]) for d in gpu["delegates"]]


def rows_for(entry):
    name = entry["name"]
    u = entry.get("univk", {})
    fused, per = u.get("fused", {}), u.get("per_delegate", {})
    t = entry.get("torch", {})
    fused_p50 = p50(fused, "latency_us", "p50")
    per_p50 = p50(per, "latency_us", "p50")
    eager_p50 = p50(t, "eager", "host_to_host_us", "p50")
    compile_p50 = p50(t, "compile", "host_to_host_us", "p50")
    eager_dev = p50(t, "eager", "device_only_us", "p50")
    compile_dev = p50(t, "compile", "device_only_us", "p50")
    gpu_p50 = p50(fused, "gpu", "total_us", "p50") or p50(per, "gpu", "total_us", "p50")
    round_trip = p50(fused, "floors", "round_trip_us", "p50") or p50(per, "floors", "round_trip_us", "p50")
    kernels = kernel_fractions(fused) or kernel_fractions(per)
    return {
        "name": name, "fused_p50": fused_p50, "per_delegate_p50": per_p50, "gpu_p50": gpu_p50,
        "eager_p50": eager_p50, "compile_p50": compile_p50, "eager_device_p50": eager_dev,
        "compile_device_p50": compile_dev, "round_trip_p50": round_trip,
        "eager_over_fused": ratio(eager_p50, fused_p50), "compile_over_fused": ratio(compile_p50, fused_p50),
        "per_delegate_over_fused": ratio(per_p50, fused_p50), "fused_over_round_trip": ratio(fused_p50, round_trip),
        "compile_device_over_gpu": ratio(compile_dev, gpu_p50),
        "model_fraction_of_copy": p50(fused, "gpu", "fraction_of_copy") if entry.get("bandwidth_bound") else None,
        "kernel_fractions": kernels if entry.get("bandwidth_bound") else None,
        "copy_gb_s": p50(fused, "floors", "copy", "bandwidth_gb_s") or p50(per, "floors", "copy", "bandwidth_gb_s"),
        "errors": {k: v for k, v in [("fused", fused.get("error")), ("per_delegate", per.get("error")),
                                     ("compile", t.get("compile_error")), ("torch", t.get("error")),
                                     ("export", entry.get("export_error")), ("skipped", entry.get("skipped"))] if v},
    }


def table_markdown(rows, device_note):
    head = ("| workload | univk fused p50 | univk per_delegate p50 | univk GPU p50 | eager p50 | compile p50 "
            "| eager / fused | compile / fused | per_delegate / fused | fused / round trip | round trip p50 "
            "| % of copy (model; per kernel) |")
    lines = [device_note, "", "Latencies host-in to host-out; GPU = timestamp queries (univk) and CUDA events "
             "(PyTorch device-only). Ratios > 1 in the 'x / fused' columns mean univk fused is faster.", "",
             head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        kernels = r["kernel_fractions"]
        bw = "n/a"
        if r["model_fraction_of_copy"] is not None:
            bw = pct(r["model_fraction_of_copy"])
            if kernels:
                bw += "; " + ", ".join(f"{b[:-len('Backend')] if b.endswith('Backend') else b} {pct(f)}"
                                        for b, f in kernels)
        lines.append(
            f"| {r['name']} | {fmt_us(r['fused_p50'])} | {fmt_us(r['per_delegate_p50'])} | {fmt_us(r['gpu_p50'])} "
            f"| {fmt_us(r['eager_p50'])} | {fmt_us(r['compile_p50'])} | {fmt(r['eager_over_fused'], 'x')} "
            f"| {fmt(r['compile_over_fused'], 'x')} | {fmt(r['per_delegate_over_fused'], 'x')} "
            f"| {fmt(r['fused_over_round_trip'], 'x')} | {fmt_us(r['round_trip_p50'])} | {bw} |")
    errors = [(r["name"], k, v) for r in rows for k, v in r["errors"].items()]
    if errors:
        lines += ["", "Not measured / errors:"]
        lines += [f"- {name} ({what}): {msg}" for name, what, msg in errors]
    return "\n".join(lines)


def check_targets(rows):
    """Issue 7's targets on the measured numbers: (target, verdict, evidence)."""
    by = {r["name"]: r for r in rows}
    out = []

    def verdict(ok):
        return "n/a" if ok is None else ("met" if ok else "MISSED")

    ex = by.get("example")
    if ex:
        x = ex["fused_over_round_trip"]
        out.append(("example p50 <= 1.3 x empty submit-and-wait", verdict(None if x is None else x <= 1.3),
                    f"fused p50 {fmt_us(ex['fused_p50'])} = {fmt(x, 'x')} round trip {fmt_us(ex['round_trip_p50'])}"))
        x = ex["eager_over_fused"]
        out.append(("example >= 2x faster than PyTorch eager host-in to host-out",
                    verdict(None if x is None else x >= 2), f"eager {fmt_us(ex['eager_p50'])} / fused = {fmt(x, 'x')}"))
        x = ex["per_delegate_over_fused"]
        out.append(("fused >= 2x faster than per_delegate on the example", verdict(None if x is None else x >= 2),
                    f"per_delegate {fmt_us(ex['per_delegate_p50'])} / fused {fmt_us(ex['fused_p50'])} = {fmt(x, 'x')}"))
    for name in ("chain_large", "chain_vgf_large", "chain_half", "chain_vgf_half"):
        r = by.get(name)
        if not r:
            continue
        k = r["kernel_fractions"]
        ok = None if not k else all(f >= 0.85 for _, f in k)
        ev = ("; ".join(f"{b} {f * 100:.1f}%" for b, f in k) + f" of copy {fmt(r['copy_gb_s'])} GB/s") if k else \
            "; ".join(f"{a}: {b}" for a, b in r["errors"].items()) or "no GPU time"
        out.append((f"{name}: every pooling/elementwise kernel >= 85% of copy bandwidth", verdict(ok), ev))
    for name in ("chain_vgf_large", "chain_vgf_half"):
        r = by.get(name)
        if not r:
            continue
        host = None if r["compile_p50"] is None or r["fused_p50"] is None else r["fused_p50"] < r["compile_p50"]
        dev = None if r["compile_device_p50"] is None or r["gpu_p50"] is None else r["gpu_p50"] < r["compile_device_p50"]
        out.append((f"{name}: all-VgfBackend chain faster than torch.compile",
                    verdict(dev if dev is not None else host),
                    f"GPU {fmt_us(r['gpu_p50'])} vs compile device-only {fmt_us(r['compile_device_p50'])}; host-in to "
                    f"host-out {fmt_us(r['fused_p50'])} vs {fmt_us(r['compile_p50'])}"))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", help="path of the univk-bench binary")
    parser.add_argument("--render", nargs="+", metavar="RESULTS_JSON",
                        help="measure nothing: merge these results.json/partial.json files and print the table")
    parser.add_argument("--workloads", default=os.path.join(HERE, "out", "workloads.json"))
    parser.add_argument("--out", required=True, help="results directory")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--large-iterations", type=int, default=None,
                        help="iterations for the [16,64,1024,1024] workloads (default: --iterations)")
    parser.add_argument("--iterations-for", action="append", default=[], metavar="NAME=N",
                        help="iterations for one workload (e.g. slow ones on lavapipe); repeatable")
    parser.add_argument("--skip-large", action="store_true", help="skip the [16,64,1024,1024] workloads")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    parser.add_argument("--compile-mode", default=None, help="torch.compile mode (default: torch's default)")
    parser.add_argument("--no-tf32", action="store_true",
                        help="exact fp32 in PyTorch: TF32 off in cuDNN convolutions and CUDA matmuls "
                             "(the default allows it in convolutions)")
    parser.add_argument("--torch-threads", type=int, default=None,
                        help="torch.set_num_threads for PyTorch on the CPU (1: the single-threaded baseline)")
    parser.add_argument("--device", default=None, help="torch device (default: cuda if available, else cpu)")
    parser.add_argument("--bench-args", default="",
                        help="extra univk-bench arguments, one string (e.g. --bench-args='--copy-mib 64')")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per univk-bench run")
    args = parser.parse_args()

    if args.render:
        return render(args.render, args.out)
    if not args.bench:
        parser.error("--bench is required (unless --render)")
    per_workload = {}
    for item in args.iterations_for:
        name, _, count = item.partition("=")
        if not count.isdigit() or int(count) < 1:
            parser.error(f"--iterations-for: '{item}' is not NAME=N")
        per_workload[name] = int(count)
    with open(args.workloads) as f:
        spec = json.load(f)
    base = os.path.dirname(os.path.abspath(args.workloads))
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    if args.no_tf32:
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    if args.torch_threads is not None:
        torch.set_num_threads(args.torch_threads)
    os.makedirs(args.out, exist_ok=True)
    torch_device = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    device_note = (f"PyTorch {torch.__version__} on {device.type} ({torch_device}"
                   f"{', TF32 off' if args.no_tf32 else ''}"
                   f"{f', {torch.get_num_threads()} threads' if device.type == 'cpu' else ''}); univk-bench {args.bench}")
    print(device_note, flush=True)

    entries = []
    for w in spec["workloads"]:
        if args.only and w["name"] not in args.only:
            continue
        entry = dict(w)
        entries.append(entry)
        if w.get("export_error"):
            print(f"{w['name']}: not exported ({w['export_error']})", flush=True)
            continue
        if w.get("large") and args.skip_large:
            entry["skipped"] = "--skip-large"
            print(f"{w['name']}: skipped (--skip-large)", flush=True)
            continue
        iterations = args.large_iterations if w.get("large") and args.large_iterations else args.iterations
        warmup = min(args.warmup, 1) if w.get("large") and args.large_iterations else args.warmup
        if w["name"] in per_workload:
            iterations, warmup = per_workload[w["name"]], min(args.warmup, 1)
        entry["univk"] = {}
        for mode in MODES:
            print(f"{w['name']}: univk-bench --mode {mode} ...", flush=True)
            entry["univk"][mode] = run_univk(args.bench, os.path.join(base, w["file"]), mode, warmup, iterations,
                                             shlex.split(args.bench_args), args.timeout)
            if "error" in entry["univk"][mode]:
                print(f"  error: {entry['univk'][mode]['error']}", flush=True)
        print(f"{w['name']}: PyTorch ...", flush=True)
        try:
            entry["torch"] = run_torch(w, base, device, warmup, iterations, not args.no_compile, args.compile_mode)
        except Exception as e:  # e.g. out of memory: report and go on
            entry["torch"] = {"error": f"{type(e).__name__}: {e}".splitlines()[0][:300]}
            print(f"  error: {entry['torch']['error']}", flush=True)
        # What is measured so far survives a run that is cut short (a time limit).
        with open(os.path.join(args.out, "partial.json"), "w") as f:
            json.dump({"torch": torch.__version__, "device": device_note, "workloads": entries}, f, indent=1)

    report(entries, device_note, args.out)
    return 0


def render(paths, out_dir):
    entries, notes = [], []
    for path in paths:
        with open(path) as f:
            results = json.load(f)
        entries += results["workloads"]
        if results["device"] not in notes:
            notes.append(results["device"])
    report(entries, "; ".join(notes), out_dir)
    return 0


def report(entries, device_note, out_dir):
    rows = [rows_for(e) for e in entries]
    table = table_markdown(rows, device_note)
    targets = check_targets(rows)
    target_lines = ["", "Targets of issue 7:", ""] + [f"- {verdict}: {t} ({ev})" for t, verdict, ev in targets]
    print()
    print(table)
    print("\n".join(target_lines))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write(table + "\n" + "\n".join(target_lines) + "\n")
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"torch": torch.__version__, "device": device_note, "workloads": entries, "rows": rows,
                   "targets": [{"target": t, "verdict": v, "evidence": e} for t, v, e in targets]}, f, indent=1)
    print(f"\nwrote {out_dir}/table.md and results.json")


if __name__ == "__main__":
    sys.exit(main())
