"""No false failures: the beta checks that schedule pods pass under every legal configuration.

Each run of :data:`legal_variants.RUNS` is a child pytest on a local cluster of its own, whose
kube-scheduler v1.37.2 runs the run's KubeSchedulerConfiguration; the checks run once per
variant profile (``--scheduler-name``). The runs go side by side, with a process spinning on the
CPU beside them, and every check of every variant must pass. The README's list of
those variants is generated from the same matrix.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from legal_variants import RUNS, SECOND_PROFILE, Run, readme_block

REPO = Path(__file__).resolve().parent.parent
#: The beta checks that schedule pods: every beta check but the API server's own.
SELECTION = ["suites", "--only-profile=beta", "--ignore-glob=suites/test_validation_*.py",
             "--ignore=suites/test_api_surface.py", "--ignore=suites/test_upgrade.py"]
#: A run that takes longer than this is stopped (the longest takes about ten minutes under load).
RUN_TIMEOUT = 2400.0


@dataclasses.dataclass
class Case:
    test: str
    outcome: str
    seconds: float
    message: str


@dataclasses.dataclass
class RunResult:
    run: Run
    returncode: int
    seconds: float
    output: str
    cases: list[Case]
    #: The kube-scheduler log of the run's cluster.
    scheduler_log: str

    def variant_of(self, case: Case) -> str:
        """The variant a check ran under: the profile named in its parameters, else the run's only one."""
        if len(self.run.variants) == 1:
            return self.run.variants[0].name
        params = case.test.partition("[")[2].rstrip("]")
        return next((v.name for v in self.run.variants if params == v.profile or params.endswith(f"-{v.profile}")),
                    "no profile (checks of the API server alone)")


def _cases(junit: Path) -> list[Case]:
    if not junit.exists():
        return []
    found = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
                message = (child.get("message") or "").splitlines()[0][:300] if child.get("message") else ""
        found.append(Case(f"{case.get('classname', '').rsplit('.', 1)[-1]}::{case.get('name', '')}", outcome,
                          float(case.get("time") or 0), message))
    return found


def _run(run: Run, workdir: Path) -> RunResult:
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "kube-scheduler.yaml"
    config.write_text(yaml.safe_dump(run.config))
    junit = workdir / "junit.xml"
    args = [*SELECTION, "-p", "no:cacheprovider", "-q", f"--junitxml={junit}", f"--reports-dir={workdir / 'reports'}",
            f"--scheduler-config={config}", f"--second-scheduler-name={SECOND_PROFILE}", f"-n={run.workers}",
            *(f"--scheduler-name={name}" for name in run.profiles)]
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "pytest", *args], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
    try:
        output, _ = proc.communicate(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.terminate()  # the child stops its cluster on SIGTERM
        output = (proc.communicate()[0] or "") + f"\n(stopped after {RUN_TIMEOUT:.0f}s)"
    finally:
        if proc.poll() is None:
            proc.kill()
    logs = sorted((workdir / "reports").glob("runs/*/logs/kube-scheduler*.log"))
    return RunResult(run, proc.returncode, time.monotonic() - started, output, _cases(junit),
                     "\n".join(log.read_text(errors="replace") for log in logs))


def test_readme_lists_the_legal_variants_of_the_matrix():
    """The README's list of legal variants is the matrix's (regenerate: ``python tests/legal_variants.py``)."""
    assert readme_block() in (REPO / "README.md").read_text(), \
        "README.md's legal variants differ from tests/legal_variants.py: paste the output of " \
        "`.venv/bin/python tests/legal_variants.py` over the block between its markers"


@pytest.mark.slow("three child runs of the whole catalogue side by side under a CPU hog, 6 to 8 minutes")
def test_every_check_passes_under_every_legal_variant(tmp_path):
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(RUNS)) as pool:
            results = list(pool.map(lambda run: _run(run, tmp_path / run.name), RUNS))
    finally:
        busy.kill()
        busy.wait()

    table, bad = [], []
    for result in results:
        per_variant: dict[str, list[Case]] = {}
        for case in result.cases:
            per_variant.setdefault(result.variant_of(case), []).append(case)
        for variant in result.run.variants:
            cases = per_variant.get(variant.name, [])
            failed = [c for c in cases if c.outcome != "passed"]
            table.append({"variant": variant.name, "run": result.run.name, "checks": len(cases),
                          "failed": [f"{c.test}: {c.outcome}: {c.message}" for c in failed],
                          "check_seconds": round(sum(c.seconds for c in cases), 1),
                          "run_seconds": round(result.seconds, 1)})
            if not cases:
                bad.append(f"{variant.name}: no check ran\n{result.output[-3000:]}")
            bad += [f"{variant.name}: {line}" for line in table[-1]["failed"]]
        missing = [pattern for pattern in result.run.evidence if not re.search(pattern, result.scheduler_log)]
        if missing:
            bad.append(f"run {result.run.name}: its configuration was not in effect: the kube-scheduler log does not "
                       f"show {missing}")
        if result.returncode != 0 and not bad:
            bad.append(f"run {result.run.name} exited {result.returncode}\n{result.output[-3000:]}")
    report = REPO / "reports" / "legal-variants.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(json.dumps(table, indent=2))
    summary = "\n".join(f"{row['variant']:<40} {row['checks'] - len(row['failed'])}/{row['checks']} passed, "
                        f"{row['check_seconds']:.0f} check-s, run {row['run_seconds']:.0f} s" for row in table)
    sys.stderr.write(f"\nlegal variants (under CPU load, runs side by side):\n{summary}\n")
    assert not bad, "checks that failed under a legal configuration:\n" + "\n".join(bad)
