"""A misconfigured cluster gets one verdict naming the missing switch, not dozens of failures.

Each case starts a local cluster from a negative profile in a child pytest and requires every
gang check to be reported not applicable with the verdict, and the run to succeed.
"""

from __future__ import annotations

import json

import pytest

from fixtures.preflight import GATE_FLAG, RUNTIME_FLAG

CHECKS = "fewer or served or finalizer or cannot_fit or deadlock"


@pytest.mark.parametrize(
    ("profile", "switch"),
    [("gate-without-api", RUNTIME_FLAG), ("api-without-gate", GATE_FLAG)],
)
def test_negative_profile_makes_every_gang_check_not_applicable_with_the_fix(run_suite, profile, switch):
    run = run_suite("suites", "-k", CHECKS, f"--profile={profile}")
    assert run.returncode == 0, run.describe()
    assert len(run.outcomes) >= 5, run.describe()
    assert set(run.outcomes.values()) == {"skipped"}, run.outcomes
    for name, message in run.messages.items():
        assert message.startswith("not applicable:") and switch in message, (name, message)
    verdicts = [l for l in run.stdout.splitlines() if l.startswith("gangconf preflight [NOT READY]")]
    assert len(verdicts) == 1 and switch in verdicts[0], run.stdout
    conformance_checks = [n for n in run.outcomes if not n.startswith("test_plain_pods")]  # the demo is no check
    merged = json.loads((run.reports / "conformance.json").read_text())
    cells = [e["outcomes"]["kube-scheduler"] for e in merged["behaviours"].values()
             if e["outcomes"].get("kube-scheduler", {}).get("checks")]
    assert {c["outcome"] for c in cells} == {"not applicable"}, cells
    assert sum(len(c["checks"]) for c in cells) == len(conformance_checks), cells
    assert all(switch in c["reason"] for c in cells), cells
    text = (run.reports / "conformance.md").read_text()
    assert text.rstrip().endswith(f"0 passed, 0 failed, {len(cells)} not applicable"), text
