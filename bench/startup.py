#!/usr/bin/env python3
"""Start-up cost of `cargo kubeskema` runs that do little, two binaries alternating (median of N
runs each): how much a change costs every CI invocation. Run from the repository's root.

    python3 bench/startup.py BEFORE AFTER [N=100]

BEFORE and AFTER are `cargo-kubeskema` binaries (release builds of two commits).
"""
import statistics
import subprocess
import sys
import time

CASES = [
    ("--version", ["kubeskema", "--version"]),
    ("one custom resource, --crd", ["kubeskema", "validate", "--crd", "fixtures/crds", "fixtures/manifests/good-widget.json"]),
    ("one Deployment, --schemas", ["kubeskema", "validate", "--schemas", "fixtures/ci/schemas", "fixtures/ci/native/deployment.yaml"]),
    ("one Deployment, no flag", ["kubeskema", "validate", "fixtures/ci/native/deployment.yaml"]),
]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binaries = {"before": sys.argv[1], "after": sys.argv[2]}
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    for name, args in CASES:
        times = {side: [] for side in binaries}
        for _ in range(runs):
            for side, binary in binaries.items():
                started = time.perf_counter()
                subprocess.run([binary, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                times[side].append(time.perf_counter() - started)
        shown = "  ".join(f"{side} {statistics.median(t) * 1000:6.2f} ms" for side, t in times.items())
        print(f"{name:<30} {shown}")


if __name__ == "__main__":
    main()
