"""The reference scheduler's core, in virtual time, one test per behaviour ID it implements."""

from __future__ import annotations

import dataclasses

import pytest
from fakes import Cluster

from reference_scheduler.framework import Status
from reference_scheduler.scheduler import fit_error


@pytest.fixture
def cluster() -> Cluster:
    return Cluster()


def test_quorum_001_gang_below_min_count_is_never_tried(cluster):
    cluster.nodes(4, cpu="4")
    cluster.group("g", min_count=4)
    for i in range(3):
        cluster.pod(f"g-{i}", group="g")
    cluster.run()
    cluster.clock.advance(60)
    cluster.run()
    assert cluster.binds == [] and cluster.conditions == {} and cluster.group_conditions == {}


def test_quorum_002_the_last_member_releases_the_whole_gang(cluster):
    cluster.nodes(4, cpu="4")
    cluster.group("g", min_count=4)
    for i in range(3):
        cluster.pod(f"g-{i}", group="g")
    cluster.run()
    cluster.pod("g-3", group="g")
    cluster.run()
    assert sorted(cluster.bound("g-")) == ["g-0", "g-1", "g-2", "g-3"]
    assert cluster.group_conditions["g"] == [(True, "Scheduled", "")]


def test_quorum_003_pods_of_a_missing_podgroup_wait_until_it_exists(cluster):
    cluster.nodes(3, cpu="4")
    for i in range(3):
        cluster.pod(f"late-{i}", group="late")
    cluster.run()
    assert cluster.binds == [] and cluster.conditions == {}
    cluster.group("late", min_count=3)
    cluster.run()
    assert len(cluster.bound("late-")) == 3


def test_quorum_005_a_scheduling_gate_on_one_member_holds_the_group(cluster):
    cluster.nodes(2, cpu="4")
    cluster.group("g", min_count=1)
    cluster.pod("g-0", group="g")
    gated = cluster.pod("g-1", group="g", scheduling_gates=("example.com/wait",))
    cluster.run()
    assert cluster.binds == []
    cluster.scheduler.on_pod(dataclasses.replace(gated, scheduling_gates=()), gated.key)
    cluster.run()
    assert sorted(cluster.bound()) == ["g-0", "g-1"]


def test_cycle_003_nothing_is_bound_when_the_gang_cannot_fit(cluster):
    cluster.nodes(3, cpu="2")
    cluster.group("g", min_count=4)
    for i in range(4):
        cluster.pod(f"g-{i}", group="g", cpu="2")
    cluster.run()
    assert cluster.binds == []
    group_message = ("minCount (4) cannot be satisfied: 3 scheduled, 0 remaining, "
                     "pod group preemption: No preemption victims found for incoming preemptor")  # as v1.37.2 writes it
    assert cluster.group_conditions["g"][-1] == (False, "Unschedulable", group_message)
    fit = [c for c in cluster.conditions.values() if c[1].startswith("pod group is unschedulable")]
    assert len(fit) == 3 and fit[0] == ("Unschedulable", f"pod group is unschedulable, {group_message}")
    assert cluster.conditions["g-3"] == ("Unschedulable", "0/3 nodes are available: 3 Insufficient cpu.")


def test_cycle_002_binds_what_fits_when_min_count_fits(cluster):
    cluster.nodes(3, cpu="2")
    cluster.group("g", min_count=3)
    for i in range(4):
        cluster.pod(f"g-{i}", group="g", cpu="2")
    cluster.run()
    assert len(cluster.bound("g-")) == 3
    assert cluster.group_conditions["g"] == [(True, "Scheduled", "")]
    (left,) = {f"g-{i}" for i in range(4)} - set(cluster.bound())
    assert cluster.conditions[left] == ("Unschedulable", "0/3 nodes are available: 3 Insufficient cpu.")


def test_basic_001_places_members_independently(cluster):
    cluster.nodes(2, cpu="2")
    cluster.group("some")
    for i in range(3):
        cluster.pod(f"some-{i}", group="some", cpu="2")
    cluster.group("none")
    for i in range(2):
        cluster.pod(f"none-{i}", group="none", cpu="4")
    cluster.run()
    assert len(cluster.bound("some-")) == 2 and cluster.bound("none-") == []
    assert cluster.group_conditions["some"][0] == (True, "Scheduled", "")
    assert cluster.group_conditions["none"][-1] == (
        False, "Unschedulable", "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining, "
                                "pod group preemption: No preemption victims found for incoming preemptor")


def _jobs(cluster: Cluster, grouped: bool) -> None:
    cluster.nodes(12, cpu="4", gpus=1)
    if grouped:
        cluster.group("job-a", min_count=8)
        cluster.group("job-b", min_count=8)
    for i in range(8):
        for job in ("job-a", "job-b"):
            cluster.pod(f"{job}-{i}", group=job if grouped else None, cpu="100m", gpus=1)
            cluster.clock.advance(0.001)


def test_deadlock_with_plain_pods_both_jobs_hold_some_gpus(cluster):
    _jobs(cluster, grouped=False)
    cluster.run()
    a, b = len(cluster.bound("job-a-")), len(cluster.bound("job-b-"))
    assert a + b == 12 and 0 < a < 8 and 0 < b < 8


def test_deadlock_with_gangs_one_job_runs_whole_and_the_other_waits(cluster):
    _jobs(cluster, grouped=True)
    cluster.run()
    assert len(cluster.bound("job-a-")) == 8 and cluster.bound("job-b-") == []
    for i in range(8):  # job-a finishes
        cluster.scheduler.on_pod(None, f"ns/job-a-{i}")
    cluster.clock.advance(10)
    cluster.run()
    assert len(cluster.bound("job-b-")) == 8


def test_queue_004_a_failed_group_is_retried_with_backoff_without_any_event(cluster):
    cluster.nodes(1, cpu="1")
    cluster.group("g", min_count=2)
    cluster.pod("g-0", group="g")
    cluster.pod("g-1", group="g")
    attempts, delays = [], []
    entity = cluster.scheduler.entities["group:ns/g"]
    for _ in range(6):
        cluster.run()
        attempts.append(len(cluster.group_conditions["g"]))
        delays.append(entity.backoff_until - cluster.clock.now())
        cluster.clock.advance(delays[-1])
    assert attempts == [1, 2, 3, 4, 5, 6]  # one retry per backoff period, no event needed
    assert delays == [1, 2, 4, 8, 10, 10]  # 1 s doubling, capped at 10 s


def test_mincount_001_a_decrease_releases_a_gated_group(cluster):
    cluster.nodes(2, cpu="4")
    cluster.group("g", min_count=3)
    cluster.pod("g-0", group="g")
    cluster.pod("g-1", group="g")
    cluster.run()
    assert cluster.binds == []
    cluster.group("g", min_count=2)
    cluster.run()
    assert len(cluster.bound("g-")) == 2


def test_priority_001_pod_priority_must_match_the_group(cluster):
    cluster.nodes(2, cpu="4")
    cluster.group("g", min_count=2, priority=0)
    cluster.pod("g-0", group="g", priority=1000)
    cluster.pod("g-1", group="g", priority=1000)
    cluster.run()
    assert cluster.binds == []
    message = "all pods in a single pod group should have the same priority as the pod group's priority, got 1000 and 0"
    assert cluster.conditions["g-0"] == ("SchedulerError", message)
    assert cluster.group_conditions["g"][-1] == (False, "SchedulerError", message)


def test_cond_001_the_scheduled_condition_is_terminal(cluster):
    cluster.nodes(2, cpu="2")
    cluster.group("g", min_count=2)
    cluster.pod("g-0", group="g", cpu="2")
    cluster.pod("g-1", group="g", cpu="2")
    cluster.run()
    cluster.pod("g-2", group="g", cpu="2")  # does not fit: the group's later cycles fail
    cluster.run()
    cluster.clock.advance(30)
    cluster.run()
    assert cluster.group_conditions["g"] == [(True, "Scheduled", "")]
    assert cluster.conditions["g-2"][1].startswith("0/2 nodes are available")


def test_a_pod_that_fails_binding_is_retried_alone(cluster):
    cluster.nodes(2, cpu="4")
    cluster.group("g", min_count=2)
    cluster.pod("g-0", group="g")
    cluster.pod("g-1", group="g")
    cluster.fail_bind.add("g-1")
    cluster.run()
    assert cluster.bound() == ["g-0"] and cluster.conditions["g-1"][0] == "SchedulerError"
    cluster.fail_bind.clear()
    cluster.clock.advance(1)
    cluster.run()
    assert sorted(cluster.bound()) == ["g-0", "g-1"]


def test_fit_error_text_matches_upstream():
    from reference_scheduler.framework import Code
    statuses = {"a": Status.of(Code.UNSCHEDULABLE, "Insufficient cpu"),
                "b": Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)"),
                "c": Status.of(Code.UNSCHEDULABLE, "Insufficient cpu", "Insufficient memory")}
    assert fit_error(3, statuses) == (
        "0/3 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint(s), 2 Insufficient cpu.")
