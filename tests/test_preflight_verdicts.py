"""A misconfigured cluster gets one verdict naming the missing switch, not dozens of failures.

Each case starts a local cluster from a negative profile in a child pytest and requires every
gang check to be reported not applicable with the verdict, and the run to succeed.
"""

from __future__ import annotations

import pytest

from children import run_result
from fixtures.preflight import GATE_FLAG, RUNTIME_FLAG

CHECKS = "fewer or served or finalizer or cannot_fit or deadlock"


@pytest.mark.parametrize(
    ("profile", "switch"),
    [("gate-without-api", RUNTIME_FLAG), ("api-without-gate", GATE_FLAG)],
)
def test_negative_profile_makes_every_gang_check_not_applicable_with_the_fix(run_suite, profile, switch):
    run = run_suite("suites", "-k", CHECKS, "-m", "not deviation", f"--profile={profile}")
    assert run.returncode == 0, run.describe()
    assert len(run.outcomes) >= 5, run.describe()
    assert set(run.outcomes.values()) == {"skipped"}, run.outcomes
    for name, message in run.messages.items():
        assert message.startswith("not applicable:") and switch in message, (name, message)
    verdicts = [l for l in run.stdout.splitlines() if l.startswith("gangconf preflight [NOT READY]")]
    assert len(verdicts) == 1 and switch in verdicts[0], run.stdout
    conformance_checks = [n for n in run.outcomes if not n.startswith("test_plain_pods")]  # the demo is no check
    # A -k run is partial: its result and summary are its own, and there is no merged report.
    result = run_result(run.reports, f"{profile}-kube-scheduler")
    checks = result["checks"]
    assert {c["outcome"] for c in checks} == {"not applicable"} and len(checks) == len(conformance_checks), checks
    assert all(switch in c["reason"] for c in checks), checks
    (summary,) = (run.reports / "results" / "partial").glob("*.md")
    behaviours = len({c["id"] for c in checks})
    assert summary.read_text().rstrip().endswith(f"0 passed, 0 failed, {behaviours} not applicable"), summary.read_text()
    assert not (run.reports / "conformance.md").exists()
