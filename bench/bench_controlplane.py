"""Benchmark: local control-plane start-up time and idle memory.

Starts the local control plane (etcd, kube-apiserver, kube-controller-manager,
kube-scheduler, kwok) ``--starts`` times with cached binaries and reports, per
start, the time from launch to every component ready, and after an idle
period the resident memory of each component.

Target (issue 2): at most 15 s to ready on 2 cores.

    .venv/bin/python bench/bench_controlplane.py --starts 5 --idle 20
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from fixtures.providers.local import binaries  # noqa: E402
from fixtures.profiles import Profile  # noqa: E402
from fixtures.providers.local import LocalControlPlane  # noqa: E402

TARGET_READY_S = 15.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=5, help="how many cold starts to time (default 5)")
    parser.add_argument("--idle", type=float, default=20.0, help="seconds to idle before reading memory (default 20)")
    parser.add_argument("--version", default=binaries.DEFAULT_K8S_VERSION)
    args = parser.parse_args()

    bins = binaries.ensure(args.version)
    profile = Profile.resolve("gang-beta")
    ready: list[float] = []
    rss: dict[str, list[int]] = {}
    for i in range(args.starts):
        with tempfile.TemporaryDirectory(prefix="gangconf-bench-") as run_dir:
            plane = LocalControlPlane(bins, profile, Path(run_dir))
            started = time.monotonic()
            plane.start()
            try:
                ready.append(time.monotonic() - started)
                threading.Event().wait(args.idle)  # idle on purpose: memory at rest is the figure
                for name, kib in plane.rss_kib().items():
                    rss.setdefault(name, []).append(kib)
            finally:
                plane.stop()
        print(f"start {i + 1}/{args.starts}: ready in {ready[-1]:.2f}s", flush=True)

    print()
    print(f"control plane {args.version}, {args.starts} starts, memory after {args.idle:.0f}s idle")
    print(f"{'ready (s)':<26} median {statistics.median(ready):6.2f}   min {min(ready):6.2f}   max {max(ready):6.2f}"
          f"   target <= {TARGET_READY_S:.0f}")
    total = [sum(v[i] for v in rss.values()) for i in range(args.starts)]
    for name, values in sorted(rss.items()):
        print(f"{'RSS ' + name + ' (MiB)':<26} median {statistics.median(values) / 1024:6.0f}")
    print(f"{'RSS total (MiB)':<26} median {statistics.median(total) / 1024:6.0f}")
    return 0 if statistics.median(ready) <= TARGET_READY_S else 1


if __name__ == "__main__":
    sys.exit(main())
