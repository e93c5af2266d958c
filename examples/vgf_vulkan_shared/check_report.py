#!/usr/bin/env python3
"""Checks a univk-run --json report of the mixed VGF/Vulkan example.

Verifies: three delegate calls in the order VgfBackend, VulkanBackend, VgfBackend; no CPU
operator; every delegate call on the same VkDevice and the same VkQueue (non-null handles);
every output compared with its reference and within tolerance. Exits non-zero naming the
first failed check.
"""

import json
import sys

EXPECTED_BACKENDS = ["VgfBackend", "VulkanBackend", "VgfBackend"]


def check(report):
    calls = report["delegate_calls"]
    backends = [c["backend"] for c in calls]
    if backends != EXPECTED_BACKENDS:
        return f"delegate calls are {backends}, expected {EXPECTED_BACKENDS}"
    if report["cpu_operators"] != 0 or any(i["on_cpu"] for i in report["instructions"]):
        return f"{report['cpu_operators']} CPU operator(s) ran"
    devices = {c["vk_device"] for c in calls}
    queues = {c["vk_queue"] for c in calls}
    if len(devices) != 1 or len(queues) != 1 or "0x0" in devices | queues:
        return f"delegates ran on VkDevices {sorted(devices)} and VkQueues {sorted(queues)}, expected one of each"
    if any(c["standalone_device"] for c in calls):
        return "a delegate ran on a standalone device"
    if not report["outputs"] or not all(o["compared"] for o in report["outputs"]):
        return "not every output was compared with a reference"
    for o in report["outputs"]:
        if not o["match"]:
            return f"output {o['index']} differs from {o['reference']}: {o['problem'] or o['mismatches']} " \
                   f"(max abs error {o['max_abs_error']})"
    return None


def main():
    if len(sys.argv) != 2:
        print("usage: check_report.py REPORT.json", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        report = json.load(f)
    problem = check(report)
    if problem:
        print(f"check_report: FAILED ({report['mode']} mode): {problem}", file=sys.stderr)
        return 1
    c = report["delegate_calls"][0]
    print(f"check_report: OK ({report['mode']} mode): {' -> '.join(EXPECTED_BACKENDS)}, no CPU operator, "
          f"one VkDevice {c['vk_device']} and VkQueue {c['vk_queue']} ({c['device_key']}), outputs match "
          f"within atol {report['atol']} rtol {report['rtol']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
