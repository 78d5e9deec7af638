"""The reference scheduler's core, in virtual time, one test per behaviour ID it implements."""

from __future__ import annotations

import dataclasses

import pytest
from fakes import Cluster

from reference_scheduler import Status
from reference_scheduler.framework.status import fit_error


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
    entity = cluster.entity("g")
    for _ in range(6):
        cluster.run()
        attempts.append(len(cluster.group_conditions["g"]))
        delays.append(entity.backoff_until - cluster.clock.now())
        cluster.clock.advance(delays[-1])
    assert attempts == [1, 2, 3, 4, 5, 6]  # one retry per backoff period, no event needed
    # 1 s doubling, capped at 10 s x sqrt(2 members); each expiry is cut down to its one-second
    # window and the group comes back at the next whole second: +2, +3, +5, +9, +15 (v1.37.2's
    # retries of a failing gang are seen at exactly these steps).
    assert delays == [2, 3, 5, 9, 15, 15]


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
    cluster.clock.advance(2)
    cluster.run()
    assert sorted(cluster.bound()) == ["g-0", "g-1"]


def test_fit_error_text_matches_upstream():
    from reference_scheduler import Code
    statuses = {"a": Status.of(Code.UNSCHEDULABLE, "Insufficient cpu"),
                "b": Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)"),
                "c": Status.of(Code.UNSCHEDULABLE, "Insufficient cpu", "Insufficient memory")}
    assert fit_error(3, statuses) == (
        "0/3 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint(s), 2 Insufficient cpu.")


# -- consistency of a group's members (GANG-SCHEDNAME-001, GANG-PREEMPTPOLICY-001) -------------------


def test_schedname_001_members_naming_two_served_profiles_are_refused_and_retried():
    cluster = Cluster(also_serve=("second",))
    cluster.nodes(2, cpu="4")
    cluster.group("g", min_count=2)
    cluster.pod("g-0", group="g")
    cluster.pod("g-1", group="g", scheduler_name="second")
    cluster.run()
    message = ('all pods in a single pod group should have the same .spec.schedulerName set, '
               'got: "second" and "gangconf-reference"')
    assert cluster.conditions == {"g-0": ("SchedulerError", message), "g-1": ("SchedulerError", message)}
    assert cluster.group_conditions["g"] == [(False, "SchedulerError", message)]
    cluster.clock.advance(2)
    cluster.run()
    assert cluster.binds == [] and len(cluster.group_conditions["g"]) == 2  # tried again, refused again


def test_schedname_a_pod_of_a_profile_not_served_is_not_a_member_here():
    """Naming a scheduler this one does not serve: the pod never reaches this queue, so the gang
    just lacks a member and stays below quorum (GANG-QUORUM-001), with no error."""
    cluster = Cluster()
    cluster.nodes(2, cpu="4")
    cluster.group("g", min_count=2)
    cluster.pod("g-0", group="g")
    cluster.pod("g-1", group="g", scheduler_name="elsewhere")
    cluster.run()
    assert cluster.binds == [] and cluster.conditions == {} and cluster.group_conditions == {}


def test_both_served_names_are_scheduled_alike():
    cluster = Cluster(also_serve=("second",))
    cluster.nodes(2, cpu="4")
    cluster.group("g", min_count=2)
    cluster.pod("g-0", group="g", scheduler_name="second")
    cluster.pod("g-1", group="g", scheduler_name="second")
    cluster.pod("solo", scheduler_name="second")
    cluster.run()
    assert sorted(cluster.bound()) == ["g-0", "g-1", "solo"]


@pytest.mark.parametrize("gate, message", [
    (False, "all pods in a single pod group should have the same preemption policy, got Never and PreemptLowerPriority"),
    (True, "all pods in a single pod group should have the same preemption policy as the pod group's preemption "
           "policy, got Never and PreemptLowerPriority"),
])
def test_preemptpolicy_001_the_message_follows_the_podgroup_preemption_policy_gate(gate, message):
    cluster = Cluster(features=frozenset({"PodGroupPreemptionPolicy"}) if gate else frozenset())
    cluster.nodes(2, cpu="4")
    cluster.group("g", min_count=2)
    cluster.pod("g-0", group="g")
    cluster.pod("g-1", group="g", preemption_policy="Never")
    cluster.run()
    assert cluster.binds == []
    assert cluster.conditions["g-0"] == ("SchedulerError", message)
    assert cluster.group_conditions["g"][-1] == (False, "SchedulerError", message)


def test_preemptpolicy_001_with_the_gate_every_member_must_match_the_podgroup():
    cluster = Cluster(features=frozenset({"PodGroupPreemptionPolicy"}))
    cluster.nodes(2, cpu="4")
    cluster.group("g", min_count=2, preemption_policy="Never")
    cluster.pod("g-0", group="g", preemption_policy="Never")
    cluster.pod("g-1", group="g", preemption_policy="Never")
    cluster.run()
    assert sorted(cluster.bound()) == ["g-0", "g-1"]


def test_validation_checks_each_member_in_turn():
    """v1.37.2 checks name, priority and policy per member: the first member that is wrong in any
    way decides the message."""
    cluster = Cluster(also_serve=("second",))
    cluster.nodes(2, cpu="4")
    cluster.group("g", min_count=3)
    cluster.pod("g-0", group="g")
    cluster.pod("g-1", group="g", priority=7)
    cluster.pod("g-2", group="g", scheduler_name="second")
    cluster.run()
    # Members are taken by priority first: g-1 comes first, and its own priority (7, against the
    # group's 0) is the first disagreement found, before g-2's scheduler name is looked at.
    assert cluster.conditions["g-0"] == (
        "SchedulerError",
        "all pods in a single pod group should have the same priority as the pod group's priority, got 7 and 0")


# -- backoff windows (GANG-COMPETE-003) --------------------------------------------------------------


def test_groups_failing_in_one_window_come_back_together_in_priority_order():
    """Two gangs that fail within the same one-second window leave backoff at the same whole second;
    the higher-priority one is tried first, whichever failed first."""
    cluster = Cluster()
    cluster.nodes(1, cpu="4", prefix="busy")
    cluster.pod("blocker", cpu="4")
    cluster.run()
    cluster.group("low", min_count=4, priority=1)
    for i in range(4):
        cluster.pod(f"low-{i}", group="low", priority=1, preemption_policy="Never")
    cluster.run()  # low fails first, at t=0.0
    cluster.clock.advance(0.4)
    cluster.group("high", min_count=4, priority=9)
    for i in range(4):
        cluster.pod(f"high-{i}", group="high", priority=9, preemption_policy="Never")
    cluster.run()  # high fails at t=0.4: the same window
    low, high = (cluster.entity(g) for g in ("low", "high"))
    assert low.backoff_until == high.backoff_until == 2
    cluster.scheduler.on_pod(None, "ns/blocker")  # room for one gang
    cluster.clock.advance(1.6)
    cluster.run()
    assert sorted(cluster.bound("high-")) == [f"high-{i}" for i in range(4)] and cluster.bound("low-") == []


def test_a_group_failing_in_a_later_window_comes_back_a_second_later():
    cluster = Cluster()
    cluster.nodes(1, cpu="1")
    cluster.group("g", min_count=2)
    cluster.clock.advance(0.7)
    cluster.pod("g-0", group="g")
    cluster.pod("g-1", group="g")
    cluster.run()  # fails at 0.7: backoff 1 s ends at 1.7, in the window [1, 2): back at 2
    assert cluster.entity("g").backoff_until == 2
