"""Helpers for the project's own tests: run the suite in a child pytest and read its verdicts; a private cache for run state."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parent.parent


@dataclasses.dataclass
class SuiteRun:
    returncode: int
    stdout: str
    stderr: str
    #: test name (without parameters' brackets removed) -> "passed" | "failed" | "error" | "skipped"
    outcomes: dict[str, str]
    #: test name -> skip or failure message
    messages: dict[str, str]
    reports: Path

    def describe(self) -> str:
        return f"exit {self.returncode}\n{self.stdout[-4000:]}\n{self.stderr[-2000:]}"


def _read_junit(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    outcomes: dict[str, str] = {}
    messages: dict[str, str] = {}
    if not path.exists():
        return outcomes, messages
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name", "")
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
                message = child.get("message") or ""
        outcomes[name] = outcome
        messages[name] = message
    return outcomes, messages


@pytest.fixture
def run_suite(tmp_path: Path):
    """Run ``pytest <args>`` in a child process against its own local cluster; return a SuiteRun."""

    def run(*args: str, timeout: float = 900, env: dict[str, str] | None = None) -> SuiteRun:
        reports = tmp_path / "reports"
        junit = tmp_path / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
               f"--junitxml={junit}", f"--reports-dir={reports}", *args]
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **(env or {})})
        outcomes, messages = _read_junit(junit)
        return SuiteRun(proc.returncode, proc.stdout, proc.stderr, outcomes, messages, reports)

    return run


@pytest.fixture
def private_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache of the test's own for the local clusters' state files, sharing the built binaries.

    Set in the environment, so that the test's child commands use it too: their ``stop-all`` and
    ``down`` see only the clusters this test made, never the developer's kept ones. At the end
    whatever is still recorded there is stopped, and the test fails if anything was.
    """
    from fixtures.providers.local import binaries
    from fixtures.providers.runs import reap_stale_runs

    shared = binaries.cache_dir() / "bin"  # what a child builds lands there too
    shared.mkdir(parents=True, exist_ok=True)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "bin").symlink_to(shared)
    monkeypatch.setenv("GANGCONF_CACHE", str(cache))
    yield cache
    left = reap_stale_runs(kept=True)
    assert not left, f"left running: {left}"
