"""Negative controls: the gang checks must fail against a scheduler that does not gang-schedule.

Each control runs the suite in a child pytest, on a local cluster of its own whose
kube-scheduler is broken on purpose, and asserts that the checks notice. A control also
requires a check that does not depend on the broken part to pass, so that a failure cannot
come from a cluster that is broken in some other way.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fixtures.timeline_svg import WAIT_COLOURS

DATA = Path(__file__).resolve().parent / "data"

#: Checks that rely on the GangScheduling plugin (the PreEnqueue quorum gate and PlacementFeasible),
#: so fail without it every time. GANG-PREEMPT-001's placement check is not one: without the gate,
#: its outcome depends on whether both members exist at the group's first cycle (the pod-group
#: cycle, which runs without the plugin, then preempts as a gang would); the mutant
#: group-preemption-without-reprieve is what it must fail against.
NEEDS_THE_PLUGIN = {
    "test_gang_stays_pending_when_fewer_than_min_count_members_exist": "GANG-QUORUM-001",
    "test_gang_is_scheduled_when_the_last_member_arrives": "GANG-QUORUM-002",
    "test_no_member_is_bound_when_the_gang_cannot_fit": "GANG-CYCLE-003",
    "test_basic_group_places_members_independently": "GANG-BASIC-001",
    "test_gang_podgroups_prevent_the_deadlock": "GANG-CYCLE-003 (deadlock)",
    "test_cycle_ends_early_once_min_count_can_no_longer_be_met": "GANG-CYCLE-001",
    "test_lowering_min_count_releases_a_gated_gang": "GANG-MINCOUNT-001",
    "test_raising_min_count_of_a_pending_gang_gates_it_again": "GANG-MINCOUNT-003",
    "test_replacements_for_deleted_members_count_the_running_ones": "GANG-DELETE-001",
    "test_no_pod_is_evicted_when_the_gang_cannot_fit_even_after_preemption": "GANG-PREEMPT-001 (no eviction)",
    "test_one_of_two_gangs_runs_whole_when_each_needs_more_than_half_the_pool": "GANG-COMPETE-001",
    "test_interleaved_members_of_two_gangs_never_bind_partially[first]": "GANG-COMPETE-002",
    "test_interleaved_members_of_two_gangs_never_bind_partially[last]": "GANG-COMPETE-002",
    "test_plain_pods_are_bound_beside_a_waiting_gang_that_stays_all_or_nothing": "GANG-COMPETE-004",
    "test_gangs_created_concurrently_are_each_all_or_nothing_and_every_one_that_fits_is_placed": "GANG-COMPETE-005",
    # Without the quorum gate the first member is scheduled alone, before the one that disagrees exists.
    "test_group_is_never_scheduled_when_its_members_name_two_profiles": "GANG-SCHEDNAME-001",
    "test_group_is_never_scheduled_when_its_members_preemption_policies_differ": "GANG-PREEMPTPOLICY-001",
}
#: Passes with or without the plugin: proves the control's cluster schedules at all.
PLUGIN_INDEPENDENT = "test_plain_pods_deadlock_when_two_jobs_race_for_gpus"


def _select(names) -> str:
    return " or ".join(sorted(names))


@pytest.mark.slow("a child run of 19 checks on a local cluster whose kube-scheduler lacks the plugin, about 3 minutes")
def test_gang_checks_fail_when_the_gangscheduling_plugin_is_disabled(run_suite):
    """A kube-scheduler whose config disables GangScheduling places gangs partially; the suite MUST say so."""
    # Side by side (-n 3): the failures' diagnostics are then written by the workers.
    run = run_suite("suites", "-k", _select([*NEEDS_THE_PLUGIN, PLUGIN_INDEPENDENT]), "-n", "3",
                    f"--scheduler-config={DATA / 'scheduler-gang-disabled.yaml'}",
                    "--second-scheduler-name=gangconf-second", timeout=1800)
    assert run.outcomes.get(PLUGIN_INDEPENDENT) == "passed", run.describe()
    survivors = {name: run.outcomes.get(name) for name in NEEDS_THE_PLUGIN if run.outcomes.get(name) != "failed"}
    assert not survivors, f"checks that did not notice the missing plugin: {survivors}\n{run.describe()}"
    assert run.returncode == 1, run.describe()
    # Each failure left its diagnostics behind.
    failures = sorted(run.reports.glob("runs/*/failures/*"))
    assert len(failures) == len(NEEDS_THE_PLUGIN), failures
    for directory in failures:
        present = {p.name for p in directory.iterdir()}
        expected = {"state.txt", "timeline.jsonl", "waits.json", "timeline.svg", "pods.yaml", "podgroups.yaml",
                    "events.txt", "kube-scheduler.log"}
        assert expected <= present, (directory, present)
        assert ET.parse(directory / "timeline.svg").getroot().tag == "{http://www.w3.org/2000/svg}svg"
    # The pictures shade the waits that failed (a never window violated, an eventually timed out) in red.
    failed_waits = [d for d in failures if any(w["outcome"] in ("violated", "timed out")
                                               for w in json.loads((d / "waits.json").read_text()))]
    assert failed_waits, failures
    for directory in failed_waits:
        assert f'fill="{WAIT_COLOURS["failed"]}"' in (directory / "timeline.svg").read_text(), directory


@pytest.mark.slow("a child run of the suite on a local cluster of its own")
def test_podgroup_wait_check_fails_when_the_scheduler_ignores_pod_groups(run_suite):
    """With GenericWorkload off in the scheduler alone, pods of a missing PodGroup are bound; GANG-QUORUM-003 MUST fail.

    The plugin-disabled control cannot catch this one: holding pods whose PodGroup does not exist
    is the scheduling queue's work, not the plugin's.
    """
    quorum_003 = "test_pods_wait_untouched_when_their_podgroup_does_not_exist"
    run = run_suite("suites", "-k", _select([quorum_003, PLUGIN_INDEPENDENT]),
                    "--scheduler-arg=--feature-gates=GenericWorkload=false")
    assert run.outcomes.get(PLUGIN_INDEPENDENT) == "passed", run.describe()
    assert run.outcomes.get(quorum_003) == "failed", run.describe()
    assert "pods of a missing PodGroup are neither bound nor attempted" in run.messages[quorum_003], run.describe()
