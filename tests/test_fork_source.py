"""--scheduler-source end to end: a fork's tree is built and its kube-scheduler is the one the checks judge.

Each test makes a fork tree from the module cache's ``k8s.io/kubernetes@v1.37.2`` (the source
the upstream build compiled; its files are read-only there, so it is copied and made writable),
runs a few fault and beta checks against it in a child run with ``--scheduler-source``, and reads
the verdicts and the report:

* the unmodified copy, a git checkout tagged ``v1.37.2``, must pass them, and the report must
  name the tree, its ``git describe``, content hash and the binary's sha256;
* a copy whose GangScheduling Permit timeout is 20 s instead of 5 minutes (not a git checkout:
  its version comes from ``KUBE_GIT_VERSION``) must fail GANG-PERMIT-003, fast (the rejection
  comes after 20 s, with its own message), and pass the others: the failure is the change's.

Cost: the fork builds share Go's build cache with the upstream build (``make build``), so the
unmodified tree only links and the changed one compiles the gangscheduling package and its
importer before linking (see the README's "Scheduler forks" for figures); both builds are
cached by content hash, so a second run builds nothing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fixtures import forks, results
from fixtures.providers.local import binaries

#: The checks both trees run: the two fault checks that need no Permit timeout, two beta checks.
COMMON_CHECKS = (
    "suites/test_permit.py::test_members_wait_unbound_at_permit_while_a_member_fails_reserve",
    "suites/test_permit.py::test_gang_binds_whole_when_the_member_that_failed_reserve_is_retried",
    "suites/test_quorum.py::test_gang_stays_pending_when_fewer_than_min_count_members_exist",
    "suites/test_quorum.py::test_gang_is_scheduled_when_the_last_member_arrives",
)
#: GANG-PERMIT-003: 5.5 minutes against a scheduler whose Permit timeout is v1.37's, seconds against the change.
TIMEOUT_CHECK = "suites/test_permit.py::test_waiting_members_are_rejected_after_five_minutes_when_the_gang_never_completes"
GANGSCHEDULING = Path("pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go")
UPSTREAM_TIMEOUT = "permitTimeoutDuration = 5 * time.Minute"
SHORT_TIMEOUT = "permitTimeoutDuration = 20 * time.Second"


def _upstream_tree() -> Path:
    binaries.ensure()  # the upstream build downloads k8s.io/kubernetes@v1.37.2 into the module cache
    proc = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True, env=binaries.go_env())
    tree = Path(proc.stdout.strip()) / f"k8s.io/kubernetes@{binaries.DEFAULT_K8S_VERSION}"
    assert (tree / "go.mod").is_file(), f"{tree} is not in Go's module cache"
    return tree


def _fork_tree(where: Path, *, git_tag: str | None = None) -> Path:
    """A writable copy of upstream's v1.37.2 tree at ``where`` (a git checkout tagged ``git_tag`` if given)."""
    shutil.copytree(_upstream_tree(), where, copy_function=shutil.copyfile)
    for directory, _, _ in os.walk(where):
        os.chmod(directory, 0o755)  # copytree copied the module cache's read-only directory modes
    if git_tag:
        git = ["git", "-C", str(where), "-c", "user.name=gangconf", "-c", "user.email=gangconf@localhost"]
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "upstream"], ["tag", git_tag]):
            subprocess.run([*git, *args], check=True, capture_output=True)
    return where


def _report(run) -> dict:
    """The child run's merged report: a run of a few checks is partial, so it is merged in on request."""
    return results.write_merged(run.reports, include_partial=True)


def _build_seconds(run) -> str:
    """The fork build's own timing line from the child's output, or that it was cached."""
    found = re.findall(r"kube from the fork at .*: done in (\S+)", run.stdout + run.stderr)
    return found[-1] if found else "cached (no build)"


@pytest.mark.slow("builds a fork's kube-scheduler (a minute from Go's cache) and runs checks on it")
def test_an_unmodified_fork_passes_and_the_report_names_what_was_tested(tmp_path, run_suite, record_property):
    tree = _fork_tree(tmp_path / "kubernetes", git_tag="v1.37.2")
    run = run_suite(*COMMON_CHECKS, "--profile=gang-fault", f"--scheduler-source={tree}", "-n", "2", timeout=1200)
    record_property("fork_build", _build_seconds(run))
    assert run.returncode == 0, run.describe()
    assert set(run.outcomes.values()) == {"passed"} and len(run.outcomes) == len(COMMON_CHECKS), run.describe()

    (facts,) = {json.dumps(r["scheduler_source"], sort_keys=True) for r in _report(run)["runs"]}
    facts = json.loads(facts)
    source = forks.inspect(tree)
    assert (facts["source"], facts["git_describe"], facts["version"]) == (str(tree), "v1.37.2", "v1.37.2"), facts
    assert facts["content_hash"] == source.content_hash and facts["components"] == ["kube-scheduler"], facts
    built = binaries.ensure(fork=source).kube_scheduler
    assert "kube-fork-" in str(built) and facts["binary_sha256"] == forks.file_sha256(built), facts
    markdown = (run.reports / "conformance.md").read_text()
    for fact in (str(tree), "`git describe` v1.37.2", source.content_hash, facts["binary_sha256"]):
        assert fact in markdown, f"conformance.md does not name {fact}:\n{markdown[:3000]}"


@pytest.mark.slow("builds a patched fork's kube-scheduler and runs the fault checks on it")
def test_a_fork_with_a_shortened_permit_timeout_fails_the_timeout_check_and_only_it(tmp_path, run_suite,
                                                                                 record_property):
    tree = _fork_tree(tmp_path / "kubernetes")
    plugin = tree / GANGSCHEDULING
    text = plugin.read_text()
    assert UPSTREAM_TIMEOUT in text, f"{GANGSCHEDULING} no longer says {UPSTREAM_TIMEOUT!r}: pick another change"
    plugin.write_text(text.replace(UPSTREAM_TIMEOUT, SHORT_TIMEOUT))
    run = run_suite(*COMMON_CHECKS, TIMEOUT_CHECK, "--profile=gang-fault", f"--scheduler-source={tree}", "-n", "2",
                    timeout=1200, env={"KUBE_GIT_VERSION": "v1.37.2-gangconf.1"})
    record_property("fork_build", _build_seconds(run))
    assert run.returncode == 1, run.describe()
    timeout_test = TIMEOUT_CHECK.rsplit("::", 1)[1]
    assert run.outcomes.pop(timeout_test) == "failed", run.describe()
    assert "after waiting 20s at plugin GangScheduling" in run.messages[timeout_test], run.messages[timeout_test]
    assert set(run.outcomes.values()) == {"passed"} and len(run.outcomes) == len(COMMON_CHECKS), run.describe()
    check = next(c for c in _report(run)["behaviours"]["GANG-PERMIT-003"]["outcomes"]["kube-scheduler"]["checks"])
    assert check["seconds"] < 120, f"the shortened timeout should fail the check within seconds: {check}"
    (facts,) = [r["scheduler_source"] for r in _report(run)["runs"]]
    assert facts["git_describe"] is None and facts["version"] == "v1.37.2-gangconf.1", facts
    assert facts["version_from"] == "KUBE_GIT_VERSION", facts
