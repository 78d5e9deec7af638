"""The conformance matrix's pure parts: the rows' order, reading a row's output, what a failed row shows."""

from __future__ import annotations

import pytest

from fixtures import matrix
from fixtures.progress import finished_line, finished_outcome


def test_fault_and_upgrade_rows_start_first_and_each_profile_runs_against_every_scheduler():
    rows = matrix.rows(["beta", "alpha", "upgrade", "fault", "beta"], ["kube-scheduler", "reference"])
    assert [r.name for r in rows] == [
        "fault-kube-scheduler", "fault-reference", "upgrade-kube-scheduler", "upgrade-reference",
        "beta-kube-scheduler", "beta-reference", "alpha-kube-scheduler", "alpha-reference"]


def test_a_row_runs_its_profiles_checks_only_against_its_scheduler(tmp_path):
    args = matrix.Row("fault", "reference").pytest_args(reports=tmp_path, workers=3, extra=["-k", "x"])
    assert args[:5] == ["suites", "--profile=gang-fault", "--only-profile=fault", "--scheduler=reference",
                        f"--reports-dir={tmp_path}"]
    assert ["-n", "3"] == args[5:7] and args[-2:] == ["-k", "x"]
    assert f"--junitxml={tmp_path / 'junit-fault-reference.xml'}" in args


@pytest.mark.parametrize("outcome, counted", [("passed", "passed"), ("failed", "FAILED"),
                                              ("not applicable", "not applicable")])
def test_the_finished_line_of_a_check_is_read_back(outcome, counted):
    line = finished_line({"id": "GANG-PREEMPTPOLICY-001", "scheduler": "kube-scheduler", "outcome": outcome,
                          "seconds": 12.34, "test": "suites/test_x.py::test_y[a b]"})
    assert finished_outcome(line + "\n") == counted


@pytest.mark.parametrize("line", [
    "gangconf: GANG-PERMIT-003      reference       waiting 90 s, 235 s left: expire-0 rejected by the Permit timeout",
    "gangconf: local control plane v1.37.2 (gang-beta) ready in 4.7s",
    "[gw0] [ 11%] PASSED suites/test_quorum.py::test_a",
])
def test_other_lines_are_no_finished_check(line):
    assert finished_outcome(line) is None


def test_a_row_counts_its_total_its_finished_checks_and_its_failures():
    row = matrix.Row("beta", "kube-scheduler", started=0.0)
    check = {"id": "GANG-QUORUM-001", "scheduler": "kube-scheduler", "seconds": 1.0, "test": "t::a"}
    for line in ["created: 4/4 workers", "4 workers [115 items]", finished_line({**check, "outcome": "passed"}),
                 finished_line({**check, "outcome": "failed"}), "collected 3 items"]:
        row.read(line)
    assert (row.total, row.done, row.failed) == (115, 2, 1)
    assert row.progress_line(42.0) == "gangconf: the beta checks against kube-scheduler: 2 checks done (of 115 tests), 1 failed, 42 s"
    plain = matrix.Row("alpha", "reference")
    plain.read("collected 7 items")
    assert plain.total == 7


def test_a_failed_row_shows_its_verdict_and_what_it_interrupted():
    log = "\n".join(["noise"] * 100 + [
        "gangconf: interrupted (Ctrl-C) with 1 test running: suites/test_a.py::test_b",
        "more noise",
        "----------------------------- gangconf conformance -----------------------------",
        "this run (beta-reference, partial: interrupted with 1 test running): 3 passed",
        "1 failed in 7.83s"])
    shown = matrix.summary_of(log).splitlines()
    assert shown[0].startswith("gangconf: interrupted (Ctrl-C)")
    assert shown[1].startswith("---") and shown[-1] == "1 failed in 7.83s" and "noise" not in shown


def test_a_row_that_ended_before_its_verdict_shows_its_last_lines():
    log = "\n".join(f"line {n}" for n in range(100))
    assert matrix.summary_of(log).splitlines() == [f"line {n}" for n in range(60, 100)]


@pytest.mark.parametrize("args, value", [
    (["--provider=existing"], "existing"), (["-k", "x", "--provider", "kind"], "kind"), (["-k", "x"], None)])
def test_the_provider_is_read_from_the_rows_arguments(args, value):
    assert matrix._option(args, "--provider") == value
