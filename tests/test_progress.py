"""Live progress: the finished-check line and the heartbeat of a long wait, in a plain run.

A child pytest run of a test file of its own (no cluster: its tests carry a check's identity
the way collection gives it, and call the heartbeat as the recorder would). The same lines under
``-n``, through the xdist controller, are checked in ``tests/test_report_e2e.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fixtures import progress, report
from fixtures.timeline import Wait

from test_report import _Config, _report

REPO = Path(__file__).resolve().parent.parent

CHILD = '''
import time
import pytest
from fixtures import progress
from fixtures.timeline import Wait


@pytest.fixture
def as_a_check(request):
    request.node.user_properties += [("behaviour", "GANG-PERMIT-003"), ("profile", "fault")]


def test_long_wait(as_a_check, request):
    now = time.monotonic()
    progress.heartbeat(request.node)(Wait("eventually", "expire-0 rejected by the Permit timeout", now - 90, now + 235))
    progress.heartbeat(request.node)(Wait("never", "a member is bound", now - 30, now + 10))


def test_not_a_check():
    pass
'''


def test_a_plain_run_prints_the_heartbeats_and_one_line_per_finished_check(tmp_path: Path):
    (tmp_path / "test_child.py").write_text(CHILD)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "fixtures.plugin", "-p", "no:cacheprovider", "-p", "no:pytest-kind",
                           f"--rootdir={tmp_path}", f"--reports-dir={tmp_path / 'reports'}", str(tmp_path)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "gangconf: GANG-PERMIT-003      kube-scheduler  waiting 90 s, 235 s left: expire-0 rejected by the Permit timeout" in lines
    assert "gangconf: GANG-PERMIT-003      kube-scheduler  watching 30 s, 10 s left: never a member is bound" in lines
    finished = [line for line in lines if line.startswith("gangconf: GANG-PERMIT-003") and " passed " in line]
    assert len(finished) == 1 and finished[0].endswith(" s  test_long_wait"), lines
    # The check's own line says it passed; the test that is no check keeps pytest's dot.
    rows = [line.split("test_child.py", 1)[1].split("[")[0].strip() for line in lines
            if "test_child.py" in line and not line.startswith("gangconf")]
    assert rows == ["", "."], lines


def test_the_lines_say_who_what_and_how_long():
    wait = Wait("eventually", "all 3 members bound", start=100.0, deadline=145.0)
    assert progress.heartbeat_line("GANG-QUORUM-002", "reference", wait, now=130.4) == (
        "gangconf: GANG-QUORUM-002      reference       waiting 30 s, 15 s left: all 3 members bound")
    assert progress.heartbeat_line(None, "kube-scheduler", wait, now=200.0).endswith("waiting 100 s, 0 s left: all 3 members bound")
    line = progress.finished_line({"id": "GANG-CYCLE-003", "scheduler": "kube-scheduler", "outcome": "failed",
                                   "seconds": 37.25, "test": "suites/test_deadlock.py::test_gang_podgroups_prevent_the_deadlock"})
    assert line == ("gangconf: GANG-CYCLE-003       kube-scheduler  FAILED            37.2 s  "
                    "test_gang_podgroups_prevent_the_deadlock")


def test_a_heartbeat_report_is_no_outcome_of_the_run():
    recorder = report.RunRecorder(_Config(), report.SuiteFacts())
    beat = _report("t.py::test_wait", "setup", "passed", props=[(progress.HEARTBEAT, "gangconf: ... waiting")])
    recorder.pytest_runtest_logreport(beat)
    assert progress.is_heartbeat(beat) and recorder.checks == {} and recorder.reported == set()
    ident = [("behaviour", "GANG-A-001"), ("profile", "beta")]
    recorder.pytest_runtest_logreport(_report("t.py::test_wait", "setup", "passed", props=ident))
    recorder.pytest_runtest_logreport(beat)
    assert recorder.checks["t.py::test_wait"]["seconds"] == 1.0  # the heartbeat adds no time either


@pytest.mark.parametrize(("props", "verbosity", "letter"), [
    ([("behaviour", "GANG-A-001")], 0, ""), ([], 0, "."), ([("behaviour", "GANG-A-001")], 1, "."),
])
def test_pytests_letter_is_left_out_for_a_check_only_when_not_verbose(props, verbosity, letter):
    class Config:
        def get_verbosity(self):
            return verbosity

    hook = progress.Progress(Config(), lambda nodeid: None).pytest_report_teststatus(
        _report("t.py::t", "call", "passed", props=props), Config())
    next(hook)
    with pytest.raises(StopIteration) as done:
        hook.send(("passed", ".", "PASSED"))
    assert done.value.value == ("passed", letter, "PASSED")
