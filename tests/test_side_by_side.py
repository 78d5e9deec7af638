"""Side-by-side runs (pytest-xdist): one cluster for every worker, stopped by the controller.

Each test runs the harness in a child pytest with ``-n 2`` and follows the processes: the
controller starts the control plane (its state file is named after the controller's pid), the
workers attach to it, and after the run, also an interrupted one or one whose worker crashed,
no component, worker or credential is left.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from children import alive, run_result, wait_gone
from fixtures.providers.local import binaries

REPO = Path(__file__).resolve().parent.parent


def descendants(pid: int) -> set[int]:
    """Every process below ``pid``, read from /proc (what ``ps --ppid`` would show, recursively)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            for child in children:
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def referring_to(path: str) -> list[str]:
    """Processes whose command line mentions ``path`` (a run's private directory)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if path in cmdline and alive(int(proc.name)):
                found.append(f"{proc.name}: {cmdline[:200]}")
    return found


class Child:
    """A child pytest whose output is read line by line while it runs."""

    def __init__(self, tmp_path: Path, *args: str):
        cmd = [sys.executable, "-u", "-m", "pytest", "-p", "no:cacheprovider", f"--reports-dir={tmp_path / 'reports'}",
               f"--junitxml={tmp_path / 'junit.xml'}", *args]
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.lines: list[str] = []

    def read_until(self, text: str) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            if text in line:
                return
        pytest.fail(f"the child run never printed {text!r}:\n" + "".join(self.lines[-30:]))

    def state(self) -> dict:
        """The control plane's state file: the controller's pid names it."""
        runs = Path(binaries.cache_dir()) / "runs"
        path = next(runs.glob(f"{self.proc.pid}-*.json"))
        return {"path": path, **json.loads(path.read_text())}

    def finish(self, timeout: float = 600) -> str:
        rest, _ = self.proc.communicate(timeout=timeout)
        self.lines.append(rest)
        return "".join(self.lines)


def test_workers_share_one_cluster_and_nothing_outlives_the_run(tmp_path: Path):
    child = Child(tmp_path, "suites/test_api_surface.py", "suites/test_quorum.py", "-k", "served or fewer or finalizer",
                  "-n", "2")
    child.read_until("ready in")
    state = child.state()
    pids = [p["pid"] for p in state["processes"]]
    out = child.finish()
    assert child.proc.returncode == 0, out[-4000:]
    assert out.count("local control plane") == 1 and out.count("gangconf preflight [ok]") == 1, out
    assert "2 workers" in out, out
    result = run_result(tmp_path / "reports", "beta-kube-scheduler")
    assert result["run"]["workers"] == 2 and result["run"]["server_version"].startswith("v1.37.")
    assert {c["outcome"] for c in result["checks"]} == {"passed"} and len(result["checks"]) == 3, result["checks"]
    # Two files and -k: a partial run, whose selection the controller learnt from the workers.
    why = result["run"]["partial_because"]
    assert not result["run"]["complete"] and why[-1].startswith("narrowed by -k 'served or fewer or finalizer'"), why
    assert any(w.startswith("3 of the ") and w.endswith(" tests its profile selects were selected") for w in why), why
    # Both workers ran checks, against the one cluster (one run ID, one run directory).
    assert len(list((tmp_path / "reports" / "runs").iterdir())) == 1
    assert wait_gone(pids) == [] and not state["path"].exists() and not Path(state["secrets"]).exists()
    assert referring_to(state["secrets"]) == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_interrupted_side_by_side_run_leaves_no_process(tmp_path: Path, signum: int):
    child = Child(tmp_path, "suites/test_deadlock.py", "-n", "2")
    child.read_until("ready in")
    state = child.state()
    child.read_until("workers [")  # both workers collected: the checks are starting
    below = descendants(child.proc.pid)
    assert len(below) >= len(state["processes"]) + 2, below  # the components and at least two workers
    child.proc.send_signal(signum)
    out = child.finish(timeout=180)
    assert wait_gone(below) == [], "outlived the interrupted run:\n" + "\n".join(
        Path(f"/proc/{p}/cmdline").read_text().replace("\0", " ") for p in below if alive(p)) + out[-3000:]
    assert not state["path"].exists() and referring_to(state["secrets"]) == []


_CRASHING = '''
import os

import pytest

from fixtures.pools import NodeShape


def test_uses_the_cluster(pool, gang):
    pool.add(1, NodeShape())
    gang.pod("one")


@pytest.mark.conformance(id="GANG-CYCLE-006", profile="beta")
def test_worker_dies(pool):
    os._exit(3)
'''


def test_a_crashed_worker_does_not_keep_the_cluster(tmp_path: Path):
    (tmp_path / "test_crash.py").write_text(_CRASHING)
    child = Child(tmp_path, "-p", "fixtures.plugin", "-p", "no:pytest-kind", "--rootdir", str(tmp_path),
                  "-c", os.devnull, "-n", "2", str(tmp_path / "test_crash.py"))
    child.read_until("ready in")
    state = child.state()
    pids = [p["pid"] for p in state["processes"]]
    out = child.finish()
    assert child.proc.returncode == 1, out[-3000:]
    assert "crashed" in out and "test_worker_dies" in out, out[-3000:]
    # xdist's report of the crash carries no check identity; the report still counts it as failed.
    result = run_result(tmp_path / "reports", "beta-kube-scheduler")
    assert [(c["id"], c["outcome"]) for c in result["checks"]] == [("GANG-CYCLE-006", "failed")], result["checks"]
    assert "crashed" in result["checks"][0]["reason"], result["checks"][0]
    assert wait_gone(pids) == [] and not state["path"].exists(), out[-3000:]
    assert referring_to(state["secrets"]) == []


def test_bad_input_of_a_side_by_side_run_is_one_line_and_starts_no_worker(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "suites", "-n", "2",
                           f"--reports-dir={tmp_path}", "--profile=no-such-profile"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 4, out
    lines = [line for line in out.splitlines() if "gangconf:" in line]
    assert len(lines) == 1 and "profile" in lines[0] and "does not exist" in lines[0], out
    assert "Traceback" not in out and "workers" not in out, out
