"""A reproduction never overwrites the conformance evidence: partial runs after a complete one.

The child runs use a ``suites/`` of their own (two checks, in a root directory of their own), so
that a complete run takes seconds; each starts a real local cluster.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_SUITE = '''
import pytest


@pytest.mark.conformance(id="GANG-QUORUM-001", profile="beta")
def test_one(preflight):
    assert preflight.ok


@pytest.mark.conformance(id="GANG-BASIC-001", profile="beta")
def test_two(preflight):
    assert preflight.ok
'''


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "fixtures.plugin", "-p", "no:pytest-kind", "-p", "no:cacheprovider",
         "-q", "--rootdir", str(root), "-c", os.devnull, f"--reports-dir={root / 'reports'}", *args],
        cwd=REPO, capture_output=True, text=True, timeout=300)


def _evidence(reports: Path) -> dict[str, bytes]:
    """Every file under reports/ but the run directories (each run has its own)."""
    return {p.relative_to(reports).as_posix(): p.read_bytes() for p in reports.rglob("*")
            if p.is_file() and p.relative_to(reports).parts[0] != "runs"}


def test_a_k_run_and_a_node_id_run_after_a_complete_run_leave_its_results_and_the_merged_report(tmp_path: Path):
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "test_small.py").write_text(_SUITE)
    reports = tmp_path / "reports"
    full = _run(tmp_path, str(suites))
    assert full.returncode == 0, full.stdout[-3000:]
    assert "this run (beta-kube-scheduler, complete): 2 passed" in full.stdout, full.stdout[-3000:]
    complete = _evidence(reports)
    assert sorted(complete) == ["conformance.json", "conformance.md", "results/beta-kube-scheduler.json"]
    assert complete["conformance.md"].decode().rstrip().endswith("2 passed, 0 failed, 0 not applicable")

    for args, why in (([str(suites), "-k", "test_one"], "1 of the 2 tests its profile selects were selected"),
                      ([f"{suites / 'test_small.py'}::test_two"], "tests named by node ID (1)")):
        partial = _run(tmp_path, *args)
        assert partial.returncode == 0, partial.stdout[-3000:]
        assert f"partial: {why}" in partial.stdout and "conformance.md is unchanged" in partial.stdout, partial.stdout[-3000:]
        now = _evidence(reports)
        assert {name: now[name] for name in complete} == complete  # byte for byte
    added = sorted(set(now) - set(complete))
    assert len(added) == 4 and all(a.startswith("results/partial/") for a in added), added
