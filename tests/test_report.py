"""The conformance report's merge, rendering, result files and command line: pure code, no cluster."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from fixtures import conformance, report
from fixtures.catalogue import CATALOGUE, Behaviour

REPO = Path(__file__).resolve().parent.parent

SMALL = {
    "GANG-A-001": Behaviour("GANG-A-001", "first", "beta", "t"),
    "GANG-A-002": Behaviour("GANG-A-002", "second", "beta", "t"),
    "GANG-A-003": Behaviour("GANG-A-003", "third", "alpha", "t"),
    "GANG-A-004": Behaviour("GANG-A-004", "fourth", "beta", "t"),
}


def check(id: str, test: str, outcome: str, scheduler: str, **extra) -> dict:
    return {"id": id, "test": f"suites/test_a.py::{test}", "profile": "beta", "scheduler": scheduler,
            "outcome": outcome, "seconds": 1.5, **extra}


def result(scheduler: str, checks: list[dict], *, profile: str = "beta", suite: dict | None = None,
           started: str = "2026-01-01T00:00:00+00:00", why: list[str] | None = None) -> dict:
    """A run's result as a run writes it; ``why`` makes it a partial run's."""
    run_id = f"run-{scheduler}"
    return {
        "format": conformance.FORMAT,
        "source": f"results/partial/{run_id}-{profile}-{scheduler}.json" if why else f"results/{profile}-{scheduler}.json",
        "run": {"run": run_id, "profile": profile, "scheduler": scheduler, "server_version": "v1.37.2",
                "feature_gates": {"GenericWorkload": True}, "runtime_config": {"scheduling.k8s.io/v1beta1": "true"},
                "started": started, "finished": started, "seconds": 10.0, "complete": not why,
                "partial_because": why or []},
        "counts": {k: sum(1 for c in checks if c["outcome"] == k) for k in conformance.OUTCOMES},
        "checks": checks,
        "suite": suite or {"checks": {}, "not_observable": {}},
    }


def test_a_failed_check_decides_the_behaviour_and_a_pass_beats_not_applicable():
    merged = conformance.merge([
        result("kube-scheduler", [
            check("GANG-A-001", "test_one", "passed", "kube-scheduler"),
            check("GANG-A-001", "test_two", "failed", "kube-scheduler", reason="AssertionError: bound 1 of 3"),
            check("GANG-A-002", "test_three", "passed", "kube-scheduler"),
            check("GANG-A-002", "test_four", "not applicable", "kube-scheduler", reason="needs 12 nodes"),
        ]),
    ], SMALL)
    cells = {b: e["outcomes"]["kube-scheduler"] for b, e in merged["behaviours"].items() if e["outcomes"]}
    assert cells["GANG-A-001"]["outcome"] == "failed"
    assert cells["GANG-A-001"]["reason"] == "test_two: AssertionError: bound 1 of 3"
    assert cells["GANG-A-002"]["outcome"] == "passed"
    assert merged["counts"] == {"passed": 1, "failed": 1, "not applicable": 0}
    assert merged["summary"] == "1 passed, 1 failed, 0 not applicable"


def test_one_column_per_scheduler_kube_scheduler_first():
    merged = conformance.merge([
        result("reference", [check("GANG-A-001", "test_one", "not applicable", "reference",
                                    reason="not applicable: a kube-scheduler profile is needed")]),
        result("kube-scheduler", [check("GANG-A-001", "test_one", "passed", "kube-scheduler")]),
    ], SMALL)
    assert merged["schedulers"] == ["kube-scheduler", "reference"]
    outcomes = merged["behaviours"]["GANG-A-001"]["outcomes"]
    assert outcomes["kube-scheduler"]["outcome"] == "passed"
    assert outcomes["reference"]["outcome"] == "not applicable"
    assert merged["counts"] == {"passed": 1, "failed": 0, "not applicable": 1}


def test_not_observable_no_check_not_run_and_uncatalogued_ids_are_told_apart():
    suite = {
        "checks": {"GANG-A-001": [{"test": "suites/test_a.py::test_one", "profile": "beta"}],
                   "GANG-A-003": [{"test": "suites/test_a.py::test_alpha", "profile": "alpha"}],
                   "GANG-Z-999": [{"test": "suites/test_a.py::test_stray", "profile": "beta"}]},
        "not_observable": {"GANG-A-002": {"reason": "internal to the queue", "module": "suites/test_a.py"}},
    }
    merged = conformance.merge([result("kube-scheduler", [check("GANG-A-001", "test_one", "passed", "kube-scheduler"),
                                                      check("GANG-Z-999", "test_stray", "passed", "kube-scheduler")],
                                   suite=suite)], SMALL)
    entries = merged["behaviours"]
    assert entries["GANG-A-001"]["status"] == "checked"
    assert entries["GANG-A-002"]["status"] == "not observable"
    assert entries["GANG-A-002"]["not_observable"]["reason"] == "internal to the queue"
    assert entries["GANG-A-003"]["status"] == "checked"  # exists, but this run left it out (--only-profile)
    assert entries["GANG-A-003"]["outcomes"]["kube-scheduler"]["outcome"] == "not run"
    assert entries["GANG-A-004"]["status"] == "no check"
    assert not entries["GANG-Z-999"]["in_catalogue"]
    assert list(entries)[:4] == list(SMALL)  # catalogue order, strays last
    # "not run" is no outcome: it is not counted.
    assert merged["counts"] == {"passed": 2, "failed": 0, "not applicable": 0}

    text = conformance.render_markdown(merged)
    assert "| GANG-A-004 | fourth | beta | **NO CHECK** |" in text
    assert "| GANG-A-002 | second | beta | not observable |" in text
    assert "- **GANG-A-002** (`suites/test_a.py`): internal to the queue" in text
    assert "## Not in the catalogue" in text and "GANG-Z-999" in text
    assert text.rstrip().splitlines()[-1] == "2 passed, 0 failed, 0 not applicable"


def test_markdown_keeps_reasons_on_one_table_line_and_labels_informational_checks():
    merged = conformance.merge([result("kube-scheduler", [
        check("GANG-A-001", "test_one", "failed", "kube-scheduler", reason="AssertionError: a | b\nsecond line"),
        check("GANG-A-002", "test_two", "passed", "kube-scheduler", informational="heterogeneous tier"),
    ])], SMALL)
    text = conformance.render_markdown(merged)
    row = next(line for line in text.splitlines() if line.startswith("| GANG-A-001 |"))
    assert "a \\| b second line" in row
    assert "passed: informational: heterogeneous tier" in text
    assert "`suites/test_a.py::test_two` (informational)" in text


def test_runs_carry_their_metadata_and_timing():
    merged = conformance.merge([
        result("kube-scheduler", [check("GANG-A-001", "test_one", "passed", "kube-scheduler")],
                started="2026-01-01T00:00:00+00:00"),
        result("reference", [check("GANG-A-001", "test_one", "passed", "reference")],
                started="2026-01-01T00:05:00+00:00"),
    ], SMALL)
    assert [r["scheduler"] for r in merged["runs"]] == ["kube-scheduler", "reference"]
    assert merged["runs"][0]["server_version"] == "v1.37.2"
    assert merged["runs"][0]["feature_gates"] == {"GenericWorkload": True}
    assert merged["timing"]["runs_seconds"] == 20.0
    assert merged["timing"]["checks_seconds"] == 3.0
    text = conformance.render_markdown(merged)
    assert "| `results/beta-kube-scheduler.json` | complete | beta | kube-scheduler | v1.37.2 |" in text
    assert "GenericWorkload=true" in text and "scheduling.k8s.io/v1beta1=true" in text


def test_the_report_names_the_fork_and_the_binary_that_were_tested():
    fork = {"source": "/src/kubernetes", "version": "v1.37.2-3+0123456789abcd", "version_from": "git describe",
            "git_describe": "v1.37.2-3-g0123456", "git_commit": "0123456789abcdef", "content_hash": "c" * 64,
            "staging": ["k8s.io/api"], "components": ["kube-scheduler"], "binary": "/cache/kube-fork-x/kube-scheduler",
            "binary_sha256": "b" * 64}
    sourced, given = (result(s, [check("GANG-A-001", "test_one", "passed", "kube-scheduler")], profile=p)
                      for s, p in (("kube-scheduler", "beta"), ("kube-scheduler", "fault")))
    sourced["run"].update(scheduler_source=fork, scheduler_source_path="/src/kubernetes")
    given["run"].update(scheduler_binary="/fork/kube-scheduler", scheduler_binary_sha256="d" * 64)
    merged = conformance.merge([sourced, given], SMALL)
    assert merged["runs"][0]["scheduler_source"] == fork
    text = conformance.render_markdown(merged)
    section = text.split("## The scheduler under test")[1].split("## Behaviours")[0]
    for fact in ("/src/kubernetes", "`git describe` v1.37.2-3-g0123456", "c" * 64, "b" * 64, "/fork/kube-scheduler", "d" * 64):
        assert fact in section, section
    assert "kube-scheduler (fork `/src/kubernetes`)" in text


def test_the_real_catalogue_orders_the_report():
    merged = conformance.merge([])
    assert list(merged["behaviours"]) == list(CATALOGUE)
    assert all(e["status"] == "no check" for e in merged["behaviours"].values())
    assert merged["summary"] == "0 passed, 0 failed, 0 not applicable"


@pytest.mark.parametrize("skip", [("/x.py", 3, "Skipped: not applicable: needs the alpha profile"),
                                  ["/x.py", 3, "Skipped: not applicable: needs the alpha profile"]])
def test_skip_reasons_lose_their_prefixes_also_as_sent_by_a_worker(skip):
    assert report._skip_reason(skip) == "needs the alpha profile"


def _write(reports: Path, data: dict) -> None:
    path = reports / data["source"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({k: v for k, v in data.items() if k != "source"}))


def test_merge_command_writes_both_files_from_every_complete_result(tmp_path: Path):
    results = tmp_path / "results"
    _write(tmp_path, result("kube-scheduler", [check("GANG-QUORUM-001", "test_one", "passed", "kube-scheduler")]))
    _write(tmp_path, result("reference", [check("GANG-QUORUM-001", "test_one", "failed", "reference", reason="x")]))
    (results / "notes.json").write_text("not json")  # skipped with a note, not fatal
    proc = subprocess.run([sys.executable, "-m", "fixtures.report", "merge", f"--reports-dir={tmp_path}"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("1 passed, 1 failed, 0 not applicable"), proc.stdout
    merged = json.loads((tmp_path / "conformance.json").read_text())
    cell = merged["behaviours"]["GANG-QUORUM-001"]["outcomes"]
    assert (cell["kube-scheduler"]["outcome"], cell["reference"]["outcome"]) == ("passed", "failed")
    assert (tmp_path / "conformance.md").read_text().rstrip().endswith("1 passed, 1 failed, 0 not applicable")
    assert "skipping" in proc.stderr and "notes.json" in proc.stderr


def test_merge_command_without_results_is_one_line(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", "fixtures.report", "merge", f"--reports-dir={tmp_path}"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "no results of complete runs" in proc.stderr, proc.stderr


def test_a_cluster_reaches_the_workers_with_every_field_but_stop(tmp_path: Path):
    import dataclasses

    from fixtures import distributed
    from fixtures.profiles import Profile
    from fixtures.providers import Cluster

    stopped = []
    cluster = Cluster(provider="local", kubeconfig=tmp_path / "kubeconfig", profile=Profile.resolve("gang-fault"),
                      scheduler_log=tmp_path / "kube-scheduler.log", logs={"etcd": tmp_path / "etcd.log"},
                      stop=lambda: stopped.append(True), server="https://127.0.0.1:6443", server_version="v1.37.2",
                      fault_plugin=True)
    data = distributed.cluster_to_data(cluster)
    json.dumps(data)  # plain data: what execnet carries
    again = distributed.cluster_from_data(data)
    for field in dataclasses.fields(Cluster):
        if field.name not in ("stop", "profile"):
            assert getattr(again, field.name) == getattr(cluster, field.name), field.name
    assert again.profile.path == cluster.profile.path
    again.stop()
    assert stopped == []  # a worker never stops the controller's cluster


class _Config:
    """Just enough of pytest.Config for a RunRecorder outside a run."""

    def __init__(self, **options):
        self.options = {"--scheduler": "kube-scheduler", **options}
        self.stash = pytest.Stash()

    def getoption(self, name, default=None):
        return self.options.get(name, default)


def _report(nodeid: str, when: str, outcome: str, *, props=(), longrepr=None, duration: float = 1.0):
    return pytest.TestReport(nodeid, ("x.py", 1, nodeid), {}, outcome, longrepr, when,
                             duration=duration, user_properties=list(props))


def test_recorder_folds_the_phases_of_a_check_and_attributes_a_crash_without_identity():
    facts = report.SuiteFacts()
    facts.checks = {"GANG-A-003": [{"test": "t.py::test_crashed_early", "profile": "beta"}]}
    recorder = report.RunRecorder(_Config(), facts)
    ident = [("behaviour", "GANG-A-001"), ("profile", "beta")]
    recorder.pytest_runtest_logreport(_report("t.py::test_ok", "setup", "passed", props=ident))
    recorder.pytest_runtest_logreport(_report("t.py::test_ok", "call", "passed", props=ident))
    recorder.pytest_runtest_logreport(_report("t.py::test_ok", "teardown", "passed", props=ident))
    skip = [("behaviour", "GANG-A-002"), ("profile", "alpha")]
    recorder.pytest_runtest_logreport(_report("t.py::test_na", "setup", "skipped", props=skip,
                                              longrepr=("t.py", 3, "Skipped: not applicable: needs the alpha profile")))
    recorder.pytest_runtest_logreport(_report("t.py::test_crashed", "setup", "passed", props=ident))
    recorder.pytest_runtest_logreport(_report("t.py::test_crashed", "???", "failed", longrepr="worker 'gw0' crashed"))
    recorder.pytest_runtest_logreport(_report("t.py::test_crashed_early", "???", "failed", longrepr="worker crashed"))
    recorder._attribute_unlabelled()
    outcomes = {nodeid: (c["id"], c["outcome"], c.get("reason")) for nodeid, c in recorder.checks.items()}
    assert outcomes == {
        "t.py::test_ok": ("GANG-A-001", "passed", None),
        "t.py::test_na": ("GANG-A-002", "not applicable", "needs the alpha profile"),
        "t.py::test_crashed": ("GANG-A-001", "failed", "???: worker 'gw0' crashed"),
        "t.py::test_crashed_early": ("GANG-A-003", "failed", "???: worker crashed"),
    }
    assert recorder.checks["t.py::test_ok"]["seconds"] == 3.0 and recorder.failed


def test_an_interrupted_check_has_no_outcome_and_the_result_says_the_run_was_interrupted():
    # Cut short by Ctrl-C, a check reported its setup only: that "passed" is no outcome.
    config = _Config(**{"--profile": "gang-beta"})
    config.option = SimpleNamespace()
    reported: list[set] = []
    selection = SimpleNamespace(partial_because=lambda done: reported.append(set(done)) or ["1 selected test did not run"])
    interrupt = SimpleNamespace(interrupted=["t.py::test_cut"])
    recorder = report.RunRecorder(config, report.SuiteFacts(), selection, interrupt)
    ident = [("behaviour", "GANG-A-001"), ("profile", "beta")]
    for when in ("setup", "call", "teardown"):
        recorder.pytest_runtest_logreport(_report("t.py::test_done", when, "passed", props=ident))
    recorder.pytest_runtest_logreport(_report("t.py::test_cut", "setup", "passed", props=ident))
    result = recorder.result()
    assert [c["test"] for c in result["checks"]] == ["t.py::test_done"] and result["counts"]["passed"] == 1
    assert result["run"]["interrupted"] == ["t.py::test_cut"] and not result["run"]["complete"]
    assert result["run"]["partial_because"] == ["interrupted with 1 test running", "1 selected test did not run"]
    assert reported == [{"t.py::test_done", "t.py::test_cut"}]  # it ran, if not to its end: not "did not run"
    interrupt.interrupted = None  # a run that was not interrupted: no such key
    assert "interrupted" not in recorder.result()["run"]


def test_only_a_signal_interrupts_a_run_not_pytest_exit_nor_xdists_stop_after_maxfail():
    from xdist.dsession import Interrupted

    from fixtures.interrupt import cause

    assert cause(KeyboardInterrupt()) == "Ctrl-C" and cause(KeyboardInterrupt("signal 15")) == "SIGTERM"
    assert cause(Interrupted("<WorkerController gw0> received keyboard-interrupt")) == "Ctrl-C"
    assert cause(Interrupted("stopping after 1 failures")) is None
    assert cause(pytest.exit.Exception("gangconf: bad input", returncode=4)) is None
