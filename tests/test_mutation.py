"""The mutation check: every deliberately broken reference scheduler must fail a conformance check.

``tests/mutation/mutants.py`` lists the mutants, each with its *killers* (the checks that must
notice it). For each mutant this runs a child pytest of just its killers with ``--scheduler
reference --reference-mutant NAME``, on a local cluster of its own, and requires at least one of
them to fail. A control run of the same checks against the unmutated reference scheduler must
pass, so that a kill cannot come from a check that is broken anyway.

All child runs (the control's shards and the mutants) run side by side,
``GANGCONF_MUTATION_JOBS`` at a time (default 4), slowest first. A killer that names a file
which does not exist is a failure of the mutant's test, not a skip. The score test prints
``mutation: K/N variants killed (P%)``. A mutant that makes the reference scheduler crash is not
killed (every check fails against a scheduler that does not run): the test says so with the traceback.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mutation import plugin as mutation_plugin
from mutation.mutants import MUTANTS, Killer, Mutant

pytestmark = pytest.mark.slow("one child run per mutant and a control run, each on a local cluster, about 3.5 minutes")

REPO = Path(__file__).resolve().parent.parent
#: Child runs at a time. A child spends most of its time waiting on the checks' observation windows
#: and deadlines (about a third of a core each on average), so 4 fit on two cores.
JOBS = int(os.environ.get("GANGCONF_MUTATION_JOBS", "4"))
#: Killers whose checks end on an ``eventually`` deadline when the mutant is alive run first:
#: their child runs are the longest (a check that fails through ``never`` fails at once).
SLOW_KILLS = {"placement-never-ends-early", "min-count-decrease-ignored", "basic-as-gang", "no-retry-without-event"}
#: How many killers one control shard runs (each shard is one local cluster).
CONTROL_SHARD = 3
#: A child run that takes longer than this is stopped (the slowest takes about two minutes).
CHILD_TIMEOUT = 1200.0
#: Child pytest processes running now, so that an interrupted campaign stops them.
_children: set[subprocess.Popen] = set()
_children_lock = threading.Lock()


@dataclasses.dataclass
class ChildRun:
    """One child pytest: what it ran and each check's outcome (``passed``, ``failed``, ``error``, ``skipped``)."""

    label: str
    args: list[str]
    returncode: int = -1
    outcomes: dict[str, str] = dataclasses.field(default_factory=dict)
    seconds: float = 0.0
    output: str = ""

    def describe(self) -> str:
        return f"{self.label}: exit {self.returncode} after {self.seconds:.0f}s\n$ pytest {' '.join(self.args)}\n" \
               f"{self.output[-3000:]}"


def _outcomes(junit: Path) -> dict[str, str]:
    """Outcome per test node id (``file::name[param]``) from a JUnit report."""
    if not junit.exists():
        return {}
    found = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
        path = case.get("classname", "").replace(".", "/")
        found[f"{path}.py::{case.get('name', '')}"] = outcome
    return found


def _child(label: str, selection: list[str], workdir: Path, *, mutant: str | None) -> ChildRun:
    workdir.mkdir(parents=True, exist_ok=True)
    junit = workdir / "junit.xml"
    # Against a mutant one failure settles it; the control must run every check.
    extra = [*mutation_plugin.ARGS, "--maxfail=1", f"--reference-mutant={mutant}"] if mutant else []
    args = ["-p", "no:cacheprovider", "-q", f"--junitxml={junit}", f"--reports-dir={workdir / 'reports'}",
            "--scheduler=reference", *extra, *selection]
    run = ChildRun(label, args)
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "pytest", *args], cwd=REPO, env=mutation_plugin.child_env(),
                            stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
    with _children_lock:
        _children.add(proc)
    try:
        run.output, _ = proc.communicate(timeout=CHILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.terminate()  # the child tears its cluster down on SIGTERM
        run.output = (proc.communicate()[0] or "") + f"\n(stopped after {CHILD_TIMEOUT:.0f}s)"
    finally:
        with _children_lock:
            _children.discard(proc)
    run.seconds = time.monotonic() - started
    run.returncode = proc.returncode
    run.outcomes = _outcomes(junit)
    return run


def _belongs(node: str, killer: Killer) -> bool:
    """Whether a reported check is one of ``killer``'s (any parameter of its tests)."""
    if not node.startswith(f"{killer.file}::"):
        return False
    name = node.split("::", 1)[1].split("[", 1)[0]
    return not killer.tests or name in killer.tests


@dataclasses.dataclass
class Verdict:
    mutant: Mutant
    #: The mutant's child runs, one per killer tried (it stops at the first kill).
    runs: list[ChildRun] = dataclasses.field(default_factory=list)
    #: The killer check that failed against the mutant (the test also requires it to pass in the control).
    killed_by: str | None = None
    #: The traceback of a reference scheduler the mutant made crash: its checks fail, but that is no kill.
    crash: str = ""


@dataclasses.dataclass
class Campaign:
    control: list[ChildRun]
    verdicts: dict[str, Verdict]
    seconds: float

    def control_outcome(self, killer: Killer) -> dict[str, str]:
        return {node: outcome for run in self.control for node, outcome in run.outcomes.items()
                if _belongs(node, killer)}


def _crash(workdir: Path) -> str:
    """The traceback in the log of a reference scheduler that died during a child run, if one did."""
    for log in sorted(workdir.glob("reports/runs/*/logs/reference-scheduler.log")):
        text = log.read_text(errors="replace")
        if "Traceback (most recent call last)" in text:
            return text[text.index("Traceback (most recent call last)"):][:3000]
    return ""


def _run_mutant(verdict: Verdict, workdir: Path) -> Verdict:
    for i, killer in enumerate(verdict.mutant.killers):
        rundir = workdir / f"{verdict.mutant.name}-{i}"
        run = _child(f"mutant {verdict.mutant.name}", killer.args(), rundir, mutant=verdict.mutant.name)
        verdict.runs.append(run)
        failed = [node for node, outcome in run.outcomes.items() if outcome == "failed" and _belongs(node, killer)]
        verdict.crash = _crash(rundir)
        if verdict.crash:
            return verdict  # every check would fail against a scheduler that is not running
        if failed:
            verdict.killed_by = failed[0]
            return verdict
    return verdict


def _selected(session: pytest.Session) -> set[str]:
    """The mutants this session asks about: those of the selected variant tests, or all of them when
    the control or the score test is selected."""
    names: set[str] = set()
    for item in session.items:
        if item.module is not None and item.module.__name__ != __name__:
            continue
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "name" in params:
            names.add(params["name"])
        elif item.name in ("test_killer_checks_pass_against_the_unmutated_reference", "test_mutation_score"):
            return set(MUTANTS)
    return names


@pytest.fixture(scope="module")
def campaign(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Campaign:
    workdir = tmp_path_factory.mktemp("mutation")
    selected = _selected(request.session)
    verdicts = {name: Verdict(mutant) for name, mutant in MUTANTS.items() if name in selected}
    runnable = [v for v in verdicts.values() if not v.mutant.missing_killers]
    killers: list[Killer] = []
    for verdict in runnable:
        for killer in verdict.mutant.killers:
            if str(killer) not in map(str, killers):
                killers.append(killer)
    # Node-id killers share control shards; each marker killer needs a run of its own (-m is global).
    by_name = [k for k in killers if k.tests]
    shards = [by_name[i:i + CONTROL_SHARD] for i in range(0, len(by_name), CONTROL_SHARD)]
    shards += [[k] for k in killers if not k.tests]

    started = time.monotonic()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, JOBS))
    try:
        control_futures = [pool.submit(_child, f"control shard {i}", [a for k in shard for a in k.args()],
                                       workdir / f"control-{i}", mutant=None)
                           for i, shard in enumerate(shards)]
        order = sorted(runnable, key=lambda v: v.mutant.name not in SLOW_KILLS)
        mutant_futures = [pool.submit(_run_mutant, v, workdir) for v in order]
        control = [f.result() for f in control_futures]
        for future in mutant_futures:
            future.result()
    except BaseException:
        # Interrupted (Ctrl-C, SIGTERM): stop the queued runs and the running children; each
        # child tears its own cluster down.
        pool.shutdown(wait=False, cancel_futures=True)
        with _children_lock:
            for proc in _children:
                proc.terminate()
        raise
    pool.shutdown()
    return Campaign(control, verdicts, time.monotonic() - started)


def test_killer_checks_pass_against_the_unmutated_reference(campaign):
    """The control: every killer check passes against the real reference scheduler."""
    bad = {node: outcome for run in campaign.control for node, outcome in run.outcomes.items() if outcome != "passed"}
    empty = [run for run in campaign.control if not run.outcomes]
    assert not bad and not empty, "\n\n".join(run.describe() for run in campaign.control)


@pytest.mark.parametrize("name", list(MUTANTS))
def test_mutant_is_killed_by_a_conformance_check(campaign, name):
    """Mutant ``name`` makes at least one of its killer checks fail, and each such check passed in the control."""
    verdict = campaign.verdicts[name]
    assert not verdict.mutant.missing_killers, \
        f"mutant {name}: its killer file {', '.join(verdict.mutant.missing_killers)} does not exist"
    for killer in verdict.mutant.killers:
        control = campaign.control_outcome(killer)
        assert control and all(o == "passed" for o in control.values()), \
            f"control run of {killer}: {control or 'nothing ran'}"
    assert not verdict.crash, (
        f"mutant {name} ({verdict.mutant.bug}) made the reference scheduler crash, which kills nothing but the "
        f"process; apply the bug so that the scheduler keeps running:\n{verdict.crash}")
    assert verdict.killed_by is not None, (
        f"mutant {name} ({verdict.mutant.bug}) survived every killer:\n\n"
        + "\n\n".join(run.describe() for run in verdict.runs))


def test_mutation_score(campaign, narrate):
    """Every mutant is killed; prints ``mutation: K/N variants killed (P%)``."""
    verdicts = list(campaign.verdicts.values())
    for run in campaign.control:
        narrate(f"{run.label:32} {sum(o == 'passed' for o in run.outcomes.values())}/{len(run.outcomes)} passed "
                f"({run.seconds:.0f}s)")
    killed = [v for v in verdicts if v.killed_by]
    for v in verdicts:
        seconds = sum(r.seconds for r in v.runs)
        outcome = (f"killed by {v.killed_by}" if v.killed_by else "CRASHED the reference scheduler" if v.crash else
                   f"NOT RUN (no {', '.join(v.mutant.missing_killers)})" if v.mutant.missing_killers else "SURVIVED")
        narrate(f"{v.mutant.name:32} {outcome}" + (f" ({seconds:.0f}s)" if v.runs else ""))
    total = len(verdicts)
    narrate(f"mutation: {len(killed)}/{total} variants killed ({100 * len(killed) / total:.0f}%)"
            + f"; wall time {campaign.seconds:.0f}s with {JOBS} runs at a time")
    survivors = [v.mutant.name for v in verdicts if not v.killed_by]
    assert not survivors, f"mutants not killed: {survivors}"
