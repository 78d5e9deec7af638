"""Complete and partial runs, and what their results may replace under reports/: pure code, no cluster."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from fixtures import conformance, results, selection

REPO = Path(__file__).resolve().parent.parent
MODULES = ["/r/suites/test_a.py", "/r/suites/test_b.py"]


def data(*, expected=("a::1", "a::2", "b::1"), selected=None, modules=MODULES, errors=()) -> dict:
    return {"expected": list(expected), "selected": list(expected if selected is None else selected),
            "modules": list(modules), "errors": list(errors)}


def test_a_run_of_everything_its_profile_selects_is_complete():
    assert selection.partial_because(data(), {"a::1", "a::2", "b::1"}, narrowing=[], modules=MODULES) == []


@pytest.mark.parametrize(("given", "reported", "expected"), [
    (data(selected=["a::1"]), {"a::1"}, "1 of the 3 tests its profile selects were selected"),
    (data(modules=MODULES[:1], expected=["a::1", "a::2"]), {"a::1", "a::2"}, "1 of the 2 suite modules not collected (test_b.py)"),
    (data(errors=["suites/test_b.py"]), {"a::1", "a::2", "b::1"}, "1 collection error"),
    (data(), {"a::1"}, "2 selected tests did not run (stopped early)"),
], ids=["deselected", "module-missing", "collection-error", "stopped-early"])
def test_each_way_of_leaving_tests_out_makes_a_run_partial_and_says_so(given, reported, expected):
    why = selection.partial_because(given, reported, narrowing=["-k 'deadlock'"], modules=MODULES)
    assert why[0] == expected and why[-1] == "narrowed by -k 'deadlock'", why


def test_an_interrupted_xdist_run_known_by_node_ids_alone_claims_nothing_about_its_modules():
    # Interrupted before a worker sent its selection, the controller knows the node IDs alone.
    known = {**data(expected=["a::1", "a::2"]), "modules": None}
    assert selection.partial_because(known, {"a::1"}, narrowing=[], modules=MODULES) == [
        "1 selected test did not run (stopped early)"]


def test_the_controller_goes_by_the_first_workers_node_ids_until_a_worker_sends_its_selection():
    known = selection.Selection(config=None)
    known.pytest_xdist_node_collection_finished(node=None, ids=["a::1", "a::2"])
    assert known.as_dict() == {"expected": ["a::1", "a::2"], "selected": ["a::1", "a::2"], "modules": None, "errors": []}
    sent = data(selected=["a::1", "a::2"])
    known.pytest_testnodedown(node=SimpleNamespace(workeroutput={selection.WORKER_KEY: sent}), error=None)
    assert known.as_dict() == sent
    known.pytest_xdist_node_collection_finished(node=None, ids=["a::1"])  # a replacement worker changes nothing
    assert known.as_dict() == sent


def test_only_profile_selects_its_checks_and_beta_the_demonstrations():
    assert selection.keeps("alpha", None) and selection.keeps(None, None)
    assert selection.keeps("alpha", "alpha") and not selection.keeps("beta", "alpha")
    assert selection.keeps(None, "beta") and not selection.keeps(None, "fault")


def run_result(name: str, outcome: str, *, why: list[str] | None = None, run: str = "r1",
               started: str = "2026-01-01T00:00:00+00:00") -> dict:
    profile, scheduler = name.split("-", 1)
    checks = [{"id": "GANG-QUORUM-001", "test": "suites/test_quorum.py::test_one", "profile": profile,
               "scheduler": scheduler, "outcome": outcome, "seconds": 1.0}]
    return {"format": conformance.FORMAT,
            "run": {"run": run, "profile": profile, "scheduler": scheduler, "started": started, "finished": started,
                    "seconds": 5.0, "complete": not why, "partial_because": why or []},
            "counts": {k: sum(1 for c in checks if c["outcome"] == k) for k in conformance.OUTCOMES},
            "checks": checks, "suite": {"checks": {}, "not_observable": {}}}


def test_a_partial_run_leaves_the_complete_result_and_the_merged_report_as_they_are(tmp_path: Path):
    told = results.write_result(tmp_path, run_result("beta-kube-scheduler", "passed"), name="beta-kube-scheduler")
    assert told[-1].endswith("rebuilt from 1 complete run: 1 passed, 0 failed, 0 not applicable"), told
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}

    told = results.write_result(tmp_path, run_result("beta-kube-scheduler", "failed", why=["-k x"], run="r2"),
                                name="beta-kube-scheduler")
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert {p: b for p, b in after.items() if p in before} == before  # nothing earlier changed
    added = sorted(p.relative_to(tmp_path).as_posix() for p in set(after) - set(before))
    assert added == ["results/partial/r2-beta-kube-scheduler.json", "results/partial/r2-beta-kube-scheduler.md"]
    assert "is unchanged" in told[-1] and "--include-partial" in told[-1], told
    summary = (tmp_path / added[1]).read_text()
    assert "partial: -k x" in summary and summary.rstrip().endswith("0 passed, 1 failed, 0 not applicable")

    merged = results.write_merged(tmp_path, include_partial=True)
    assert merged["summary"] == "0 passed, 1 failed, 0 not applicable"  # a failure anywhere decides
    assert merged["sources"] == {"complete": 1, "partial": 1, "partial_left_out": 0}
    merged = results.write_merged(tmp_path)
    assert merged["summary"] == "1 passed, 0 failed, 0 not applicable"
    text = (tmp_path / "conformance.md").read_text()
    assert "Built from 1 complete run; 1 partial run in `results/partial/` left out" in text, text


def test_a_complete_run_moves_the_earlier_complete_result_aside_and_says_so(tmp_path: Path):
    results.write_result(tmp_path, run_result("beta-kube-scheduler", "passed"), name="beta-kube-scheduler")
    told = results.write_result(tmp_path, run_result("beta-kube-scheduler", "failed", run="r2"),
                                name="beta-kube-scheduler")
    (moved,) = (tmp_path / "earlier").glob("*/results/beta-kube-scheduler.json")
    assert json.loads(moved.read_text())["run"]["run"] == "r1"
    assert told[0].startswith("the earlier complete result of beta-kube-scheduler (run r1, started ") \
        and str(moved.parent.parent) in told[0], told


def test_the_matrix_sets_every_earlier_result_aside_and_says_what(tmp_path: Path):
    assert results.set_aside_matrix(tmp_path) is None  # nothing earlier: nothing said
    results.write_result(tmp_path, run_result("beta-kube-scheduler", "passed"), name="beta-kube-scheduler")
    results.write_result(tmp_path, run_result("beta-reference", "passed", why=["-k x"]), name="beta-reference")
    (tmp_path / "junit-beta-reference.xml").write_text("<testsuites/>")
    (tmp_path / "junit-tests.xml").write_text("<testsuites/>")  # make test's own: not the matrix's
    said = results.set_aside_matrix(tmp_path)
    assert said and "1 complete and 1 partial run results, conformance.json, conformance.md, 1 JUnit file" in said, said
    left = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert [p for p in left if not p.startswith("earlier/")] == ["junit-tests.xml"], left
    assert len([p for p in left if p.startswith("earlier/")]) == 6, left


def test_merge_command_says_partial_runs_were_left_out_when_no_complete_run_exists(tmp_path: Path):
    results.write_result(tmp_path, run_result("beta-kube-scheduler", "passed", why=["-k x"]), name="beta-kube-scheduler")
    merge = [sys.executable, "-m", "fixtures.report", "merge", f"--reports-dir={tmp_path}"]
    proc = subprocess.run(merge, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "1 partial ones: add them with --include-partial" in proc.stderr, proc.stderr
    proc = subprocess.run([*merge, "--include-partial"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("1 passed, 0 failed, 0 not applicable"), proc.stdout
    assert "from 0 complete and 1 partial runs" in proc.stdout


def test_a_node_id_makes_a_run_partial_although_its_module_is_all_that_was_collected():
    why = selection.partial_because(data(expected=["a::2"], modules=MODULES[:1]), {"a::2"}, narrowing=["a.py::2"],
                                    modules=MODULES[:1], node_ids=["a.py::2"])
    assert why == ["tests named by node ID (1)", "narrowed by a.py::2"], why
