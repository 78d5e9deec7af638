"""Ctrl-C as a user gives it: SIGINT to the run's whole process group, with and without xdist.

Each child run has a process group of its own (what a terminal's foreground job is) and a
``suites/`` of its own, in a root directory of its own: two checks that wait on their recorder for
something that never happens, so that they are surely running when the signal comes. Each starts a
real local cluster. A check says it is running by writing a file; the test waits for that (never
for a time), sends SIGINT to the group, and measures from the signal.

After the run: it exited within 10 s, said which checks it interrupted, wrote a partial result
that says it was interrupted and gives those checks no outcome, and left no process running (its
xdist workers, the control plane, the reference scheduler) and neither the cluster's state file
nor its private directory. One xdist run starts with SIGINT ignored, as a script's background job
does, which is how a run used to go on to its end after a Ctrl-C.

With the checks' teardown held (it waits for a file nobody writes), a second Ctrl-C stops the run
at once, and without one the clean-up's budget stops it within the 10 s. ``make conformance``, a
matrix of pytest runs side by side under ``-n``, stops on a Ctrl-C and starts no further run.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from children import alive, wait_gone

REPO = Path(__file__).resolve().parent.parent
#: A Ctrl-C must stop a run within this many seconds of the signal.
STOP_WITHIN = 10.0
#: A second Ctrl-C must stop it at once: within this many seconds of the second signal.
AT_ONCE_WITHIN = 5.0

_SUITE = '''
import os
import time
from pathlib import Path

import pytest


@pytest.fixture
def held_cleanup():
    """With HOLD_CLEANUP set, the check's teardown lasts until that file exists (60 s at most)."""
    yield
    hold = os.environ.get("HOLD_CLEANUP")
    if hold:
        Path(hold + ".reached").touch()
        deadline = time.monotonic() + 60
        while not Path(hold).exists() and time.monotonic() < deadline:
            time.sleep(0.1)  # sleep-ok: polling for the file that ends the held clean-up


@pytest.mark.conformance(id="GANG-QUORUM-001", profile="beta")
@pytest.mark.parametrize("n", [1, 2])
def test_waits(held_cleanup, recorder, namespace, n):
    Path(os.environ["RUNNING_DIR"], str(n)).write_text(namespace)
    recorder.eventually(lambda state: False, timeout=300, describe="nothing: the run is interrupted first")
'''


#: The child runs this test started (each in a session of its own, which no Ctrl-C of ours reaches).
_started: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _no_child_run_outlives_its_test(private_runs: Path) -> Iterator[None]:
    """A child run the test did not see to its end (the test failed, or was interrupted) is killed,
    before private_runs reaps what it left."""
    yield
    while _started:
        proc = _started.pop()
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _descendants(pid: int) -> set[int]:
    """``pid``'s processes and their processes, from /proc."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _wait_for(predicate, timeout: float, what: str, log: Path, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert proc.poll() is None, f"the run ended (code {proc.returncode}) before {what}:\n{log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"no {what} within {timeout:.0f}s:\n{log.read_text()[-3000:]}"
        time.sleep(0.1)  # sleep-ok: polling the child run's files for its state


class Run:
    """A child run in a process group of its own, output to a file."""

    def __init__(self, root: Path, cache: Path, *args: str, ignore_sigint: bool = False, hold: Path | None = None):
        self.root, self.cache = root, cache
        self.running = root / "running"
        self.running.mkdir()
        self.log = root / "out.txt"
        self.reports = root / "reports"
        env = {**os.environ, "RUNNING_DIR": str(self.running), **({"HOLD_CLEANUP": str(hold)} if hold else {})}
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "pytest", "-p", "fixtures.plugin", "-p", "no:pytest-kind", "-p", "no:cacheprovider",
                 "--rootdir", str(root), "-c", os.devnull, f"--reports-dir={self.reports}", str(root / "suites"), *args],
                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
                # A script's background job (`cmd &` without job control) starts with SIGINT ignored.
                preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None)
        _started.append(self.proc)

    def wait_running(self, checks: int) -> None:
        _wait_for(lambda: len(list(self.running.iterdir())) >= checks, 240, f"{checks} check(s) running",
                  self.log, self.proc)

    def started(self) -> tuple[set[int], list[dict]]:
        """Every process of the run now, and the state files of its local cluster(s)."""
        states = [json.loads(p.read_text()) for p in (self.cache / "runs").glob("*.json")]
        pids = _descendants(self.proc.pid) | {p["pid"] for s in states for p in s["processes"]}
        assert states and pids, f"no cluster recorded under {self.cache / 'runs'}"
        return pids, states

    def interrupt(self) -> float:
        os.killpg(self.proc.pid, signal.SIGINT)
        return time.monotonic()

    def wait_exit(self, since: float) -> float:
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            pytest.fail(f"still running 120 s after SIGINT:\n{self.log.read_text()[-3000:]}")
        return time.monotonic() - since

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def partial_result(self) -> dict:
        found = sorted((self.reports / "results" / "partial").glob("*-beta-*.json"))
        assert len(found) == 1, f"expected one partial result, found {found}:\n{self.output()[-3000:]}"
        return json.loads(found[0].read_text())


def _assert_left_nothing(run: Run, pids: set[int], states: list[dict]) -> None:
    assert wait_gone(sorted(pids), timeout=3) == [], (
        f"left running: {[p for p in pids if alive(p)]}\n{run.output()[-3000:]}")
    assert not list((run.cache / "runs").glob("*.json")), "the cluster's state file is left"
    for state in states:
        assert not Path(state["secrets"]).exists(), f"the cluster's private directory {state['secrets']} is left"


XDIST = ("-n", "2", "--scheduler", "reference")


def _suite(tmp_path: Path) -> None:
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / "test_waits.py").write_text(_SUITE)


@pytest.mark.parametrize("args, checks, ignore_sigint", [
    ((), 1, False),
    (XDIST, 2, True),
], ids=["plain", "xdist-started-with-sigint-ignored"])
def test_ctrl_c_stops_the_run_reports_what_it_interrupted_and_cleans_up(tmp_path: Path, private_runs: Path,
                                                                         args, checks, ignore_sigint):
    _suite(tmp_path)
    run = Run(tmp_path, private_runs, *args, ignore_sigint=ignore_sigint)
    run.wait_running(checks)
    pids, states = run.started()
    took = run.interrupt()
    took = run.wait_exit(took)
    out = run.output()
    print(f"stopped {took:.1f} s after SIGINT, exit code {run.proc.returncode}")
    assert took < STOP_WITHIN, f"the run took {took:.1f}s to stop after SIGINT:\n{out[-3000:]}"
    # pytest's "interrupted" when the clean-up ended in time; 130 when its budget cut it short.
    assert run.proc.returncode in (2, 130), out[-3000:]
    assert run.proc.returncode == 2 or "the clean-up is still going" in out, out[-3000:]
    running = [f"suites/test_waits.py::test_waits[{n}]" for n in range(1, checks + 1)]
    line = next((l for l in out.splitlines() if l.startswith("gangconf: interrupted (Ctrl-C)")), None)
    assert line is not None and all(r in line for r in running), out[-3000:]
    assert f"{checks} test{'s' if checks > 1 else ''} running" in line, line

    result = run.partial_result()
    assert sorted(result["run"]["interrupted"]) == running, result["run"]
    assert result["run"]["partial_because"][0].startswith(f"interrupted with {checks} test"), result["run"]
    assert result["checks"] == [], "an interrupted check has no outcome"
    assert "partial: interrupted" in out, out[-3000:]
    _assert_left_nothing(run, pids, states)


@pytest.mark.parametrize("args, checks, again", [
    ((), 1, True),
    (XDIST, 2, True),
    (XDIST, 2, False),
], ids=["plain-second-ctrl-c", "xdist-second-ctrl-c", "xdist-hung-teardown"])
def test_a_second_ctrl_c_or_a_hung_clean_up_stops_at_once_and_still_kills_everything(tmp_path: Path, private_runs: Path,
                                                                                   args, checks, again):
    """The checks' teardown hangs (until killed): a second Ctrl-C then stops the run at once, and
    without one the clean-up's budget does, within 10 s of the first."""
    _suite(tmp_path)
    hold = tmp_path / "release-cleanup"  # never created: the checks' teardown lasts until killed
    run = Run(tmp_path, private_runs, *args, hold=hold)
    run.wait_running(checks)
    pids, states = run.started()
    first = run.interrupt()
    # The second Ctrl-C comes while the clean-up is surely running: a check's teardown is held.
    _wait_for(lambda: Path(f"{hold}.reached").exists() and "gangconf: interrupted (Ctrl-C)" in run.output(),
              STOP_WITHIN, "the interrupted line and a held teardown", run.log, run.proc)
    took = run.wait_exit(run.interrupt() if again else first)
    out = run.output()
    print(f"stopped {took:.1f} s after the {'second' if again else 'first'} SIGINT, exit code {run.proc.returncode}")
    bound, said = (AT_ONCE_WITHIN, "interrupted again") if again else (STOP_WITHIN, "the clean-up is still going")
    assert took < bound, f"the run took {took:.1f}s to stop after the {'second ' if again else ''}SIGINT:\n{out[-3000:]}"
    assert run.proc.returncode == 130, out[-3000:]
    assert f"gangconf: {said}" in out, out[-3000:]
    assert "partial: interrupted" in out, out[-3000:]
    assert sorted(run.partial_result()["run"]["interrupted"]) == [
        f"suites/test_waits.py::test_waits[{n}]" for n in range(1, checks + 1)]
    _assert_left_nothing(run, pids, states)


def test_ctrl_c_stops_make_conformance_and_starts_no_further_row(tmp_path: Path, private_runs: Path):
    """``make conformance`` runs the matrix's rows side by side (:mod:`fixtures.matrix`), each in a
    session of its own: a Ctrl-C reaches each running row once, through the matrix, which stops
    them as above, starts none of the rows still waiting, and copies what the rows interrupted to
    the terminal; also under ``-n``."""
    reports = tmp_path / "reports"
    log = tmp_path / "out.txt"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["make", "--no-print-directory", "conformance", "PROFILES=beta alpha", "SCHEDULERS=kube-scheduler reference",
             "WORKERS=2", "MATRIX_JOBS=2", f"REPORTS={reports}", "PYTEST_ARGS=-v -p no:cacheprovider -k test_quorum"],
            cwd=REPO, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    _started.append(proc)
    rows = [reports / "matrix" / f"beta-{scheduler}.log" for scheduler in ("kube-scheduler", "reference")]
    # xdist's -v names each test as it starts: a check of both beta rows is running.
    _wait_for(lambda: all(row.exists() and "suites/test_quorum.py::" in row.read_text(errors="replace") for row in rows),
              300, "a check running in both beta rows", log, proc)
    run = Run.__new__(Run)  # the make's process group, for the same measurements
    run.proc, run.cache, run.log, run.reports = proc, private_runs, log, reports
    pids, states = run.started()
    took = run.wait_exit(run.interrupt())
    out = run.output()
    print(f"make conformance stopped {took:.1f} s after SIGINT, exit code {proc.returncode}")
    assert took < STOP_WITHIN, f"make conformance took {took:.1f}s to stop after SIGINT:\n{out[-3000:]}"
    assert proc.returncode != 0, out[-3000:]
    for row in rows:
        text = row.read_text(errors="replace")
        assert text.count("gangconf: interrupted (Ctrl-C)") == 1, f"{row.name} was not interrupted once:\n{text[-3000:]}"
    assert out.count("gangconf: interrupted (Ctrl-C)") == 2 and out.count("partial: interrupted") == 2, out[-3000:]
    assert ("gangconf: the matrix was interrupted; not started: the alpha checks against kube-scheduler, "
            "the alpha checks against reference") in out, out[-3000:]
    assert not list((reports / "matrix").glob("alpha-*")), f"the matrix went on:\n{out[-3000:]}"
    _assert_left_nothing(run, pids, states)


def test_sigterm_to_the_controller_alone_stops_the_workers_too(tmp_path: Path, private_runs: Path):
    """What ``timeout`` or a CI runner sends: SIGTERM to the pytest process only, not to its group."""
    _suite(tmp_path)
    run = Run(tmp_path, private_runs, *XDIST)
    run.wait_running(2)
    pids, states = run.started()
    run.proc.send_signal(signal.SIGTERM)
    took = run.wait_exit(time.monotonic())
    out = run.output()
    print(f"stopped {took:.1f} s after SIGTERM to the controller, exit code {run.proc.returncode}")
    assert took < STOP_WITHIN, f"the run took {took:.1f}s to stop after SIGTERM:\n{out[-3000:]}"
    assert run.proc.returncode in (2, 130), out[-3000:]
    assert "gangconf: interrupted (SIGTERM) with 2 tests running" in out, out[-3000:]
    assert sorted(run.partial_result()["run"]["interrupted"]) == [
        "suites/test_waits.py::test_waits[1]", "suites/test_waits.py::test_waits[2]"]
    _assert_left_nothing(run, pids, states)
