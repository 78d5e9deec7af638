"""The reference scheduler's core in virtual time: queueing, the early end of a cycle, minCount
changes, deletions and placement tiers, one test per behaviour ID (as the suites check them)."""

from __future__ import annotations

import dataclasses

import pytest
from fakes import Cluster

from reference_scheduler import PodGroup


@pytest.fixture
def cluster() -> Cluster:
    return Cluster()


def _set_min_count(cluster: Cluster, name: str, min_count: int) -> None:
    group = cluster.scheduler.cache.groups[f"ns/{name}"]
    cluster.scheduler.on_pod_group(dataclasses.replace(group, min_count=min_count), group.key)


def _delete(cluster: Cluster, pod: str) -> None:
    cluster.binds = [(p, n) for p, n in cluster.binds if p != pod]
    cluster.scheduler.on_pod(None, f"ns/{pod}")


def test_quorum_004_a_basic_group_member_is_placed_alone(cluster):
    cluster.nodes(2, cpu="4")
    cluster.group("solo")
    cluster.pod("solo-0", group="solo")
    cluster.run()
    assert cluster.bound() == ["solo-0"]
    assert cluster.group_conditions["solo"] == [(True, "Scheduled", "")]
    cluster.pod("solo-1", group="solo")
    cluster.run()
    assert sorted(cluster.bound()) == ["solo-0", "solo-1"]


def test_queue_001_members_are_tried_in_arrival_order_not_name_order(cluster):
    cluster.nodes(2, cpu="2")
    for name in ("w-c", "w-a", "w-b"):  # all created in the same virtual instant
        cluster.pod(name, group="order", cpu="2", created="2026-12-03T07:00:00Z")
    cluster.group("order", min_count=2)
    cluster.run()
    assert sorted(cluster.bound()) == ["w-a", "w-c"]
    assert cluster.conditions["w-b"][1].startswith("0/2 nodes are available")


def test_queue_003_a_leftover_of_a_successful_cycle_is_retried_without_an_event(cluster):
    cluster.nodes(2, cpu="2")
    cluster.group("left", min_count=2)
    for i in range(3):
        cluster.pod(f"left-{i}", group="left", cpu="2")
    cycles = cluster.scheduler.run_until_idle()
    assert len(cluster.bound()) == 2 and cycles >= 1
    leftover = next(p for p in ("left-0", "left-1", "left-2") if p not in cluster.bound())
    first = cluster.conditions[leftover]
    cluster.conditions.clear()
    cluster.clock.advance(2)  # no cluster event, only time (backoff ends at the whole second after its window)
    cluster.run()
    assert cluster.conditions.get(leftover) == first  # attempted again, same verdict
    assert len(cluster.bound()) == 2


def test_cycle_001_the_cycle_ends_once_min_count_can_no_longer_be_met(cluster):
    cluster.nodes(2, cpu="4")
    cluster.group("early", min_count=3)
    same_second = "2026-12-03T07:00:00Z"  # creationTimestamp ties; the order of arrival decides
    cluster.pod("early-light", group="early", cpu="1", created=same_second)
    cluster.pod("early-heavy-0", group="early", cpu="16", created=same_second)
    cluster.pod("early-heavy-1", group="early", cpu="16", created=same_second)
    cluster.run()
    assert cluster.binds == []
    heavy = [cluster.conditions[f"early-heavy-{i}"][1] for i in range(2)]
    assert sum(m.startswith("0/2 nodes are available") for m in heavy) == 1
    # The member the cycle never tried carries the bare PlacementFeasible status (v1.37.2).
    assert sum(m == "minCount (3) cannot be satisfied: 1 scheduled, 1 remaining" for m in heavy) == 1
    assert cluster.conditions["early-light"][1].startswith("pod group is unschedulable, minCount (3)")


def test_cycle_004_a_satisfied_gang_stays_scheduled_when_a_new_member_does_not_fit(cluster):
    cluster.nodes(2, cpu="2")
    cluster.group("full", min_count=2)
    for i in range(2):
        cluster.pod(f"full-{i}", group="full", cpu="2")
    cluster.run()
    cluster.pod("full-2", group="full", cpu="2")
    cluster.run()
    assert sorted(cluster.bound()) == ["full-0", "full-1"]
    reason, message = cluster.conditions["full-2"]
    assert reason == "Unschedulable" and message.startswith("0/2 nodes are available")
    assert cluster.group_conditions["full"] == [(True, "Scheduled", "")]  # never written False


def test_cond_001_a_stale_copy_of_the_group_after_its_true_does_not_turn_it_false(cluster):
    """DEV-COND-TERMINAL: the informer delivers a copy of the group written before its True (here: the
    group as first created, without the condition) before the leftover's cycle; True stays terminal."""
    cluster.nodes(2, cpu="2")
    cluster.group("late", min_count=2)
    for i in range(2):
        cluster.pod(f"late-{i}", group="late", cpu="2")
    cluster.run()
    cluster.group("late", min_count=2)  # the stale copy: no PodGroupInitiallyScheduled=True on it
    cluster.pod("late-2", group="late", cpu="2")
    cluster.run()
    assert sorted(cluster.bound()) == ["late-0", "late-1"]
    assert cluster.group_conditions["late"] == [(True, "Scheduled", "")]  # never written False


def test_mincount_002_raising_min_count_leaves_scheduled_members_and_gates_new_ones(cluster):
    cluster.nodes(4, cpu="4")
    cluster.group("grow", min_count=2)
    for i in range(2):
        cluster.pod(f"grow-{i}", group="grow")
    cluster.run()
    placed = dict(cluster.binds)
    _set_min_count(cluster, "grow", 4)
    cluster.pod("grow-2", group="grow")
    cluster.run()
    cluster.clock.advance(30)
    cluster.run()
    assert dict(cluster.binds) == placed and "grow-2" not in cluster.conditions
    cluster.pod("grow-3", group="grow")
    cluster.run()
    assert sorted(cluster.bound()) == ["grow-0", "grow-1", "grow-2", "grow-3"]
    assert {p: n for p, n in cluster.binds if p in placed} == placed


def test_mincount_003_raising_min_count_of_a_pending_gang_gates_it_again(cluster):
    cluster.nodes(1, cpu="2")
    cluster.group("raise", min_count=2)
    for i in range(2):
        cluster.pod(f"raise-{i}", group="raise", cpu="2")
    cluster.run()
    assert cluster.group_conditions["raise"][-1][0] is False
    _set_min_count(cluster, "raise", 3)
    cluster.nodes(1, cpu="2", prefix="m")
    cluster.clock.advance(30)
    cluster.run()
    assert cluster.binds == []
    cluster.nodes(1, cpu="2", prefix="k")
    cluster.pod("raise-2", group="raise", cpu="2")
    cluster.run()
    assert sorted(cluster.bound()) == ["raise-0", "raise-1", "raise-2"]


def test_delete_001_replacements_count_the_running_members(cluster):
    cluster.nodes(3, cpu="2")
    cluster.group("crew", min_count=3)
    for i in range(3):
        cluster.pod(f"crew-{i}", group="crew", cpu="2")
    cluster.run()
    _delete(cluster, "crew-0")
    cluster.pod("crew-r0", group="crew", cpu="2")
    cluster.run()
    assert "crew-r0" in cluster.bound()  # 2 running + 1 new = minCount
    _delete(cluster, "crew-1")
    _delete(cluster, "crew-r0")
    cluster.pod("crew-r1", group="crew", cpu="2")
    cluster.run()
    cluster.clock.advance(30)
    cluster.run()
    assert "crew-r1" not in cluster.bound()  # 1 running + 1 new < minCount: gated
    cluster.pod("crew-r2", group="crew", cpu="2")
    cluster.run()
    assert sorted(cluster.bound()) == ["crew-2", "crew-r1", "crew-r2"]
    assert cluster.group_conditions["crew"] == [(True, "Scheduled", "")]


def test_delete_002_members_of_a_deleted_podgroup_wait_until_it_exists_again(cluster):
    cluster.nodes(2, cpu="2")
    cluster.group("gone", min_count=2)
    for i in range(2):
        cluster.pod(f"gone-{i}", group="gone", cpu="2")
    cluster.run()
    placed = dict(cluster.binds)
    cluster.scheduler.on_pod_group(None, "ns/gone")
    cluster.nodes(2, cpu="2", prefix="m")
    for i in range(2, 4):
        cluster.pod(f"gone-{i}", group="gone", cpu="2")
    cluster.run()
    cluster.clock.advance(30)
    cluster.run()
    assert dict(cluster.binds) == placed
    cluster.group("gone", min_count=2)
    cluster.run()
    assert sorted(cluster.bound()) == ["gone-0", "gone-1", "gone-2", "gone-3"]


def test_placement_001_a_homogeneous_gang_fills_nodes_of_different_sizes(cluster):
    cluster.nodes(1, cpu="4", prefix="large")
    cluster.nodes(2, cpu="2", prefix="small")
    cluster.group("even", min_count=4)
    for i in range(4):
        cluster.pod(f"even-{i}", group="even", cpu="2")
    cluster.run()
    assert len(cluster.bound()) == 4
    assert sum(1 for _, node in cluster.binds if node == "large0") == 2


def test_placement_001_a_heterogeneous_gang_is_never_partly_placed(cluster):
    cluster.nodes(1, cpu="4", prefix="big")
    cluster.nodes(1, cpu="2", prefix="small")
    cluster.group("mixed", min_count=2)
    cluster.pod("mixed-small", group="mixed", cpu="2", created="2026-12-03T07:00:00Z")
    cluster.pod("mixed-big", group="mixed", cpu="4", created="2026-12-03T07:00:00Z")
    cluster.run()
    # Greedy in queue order with LeastAllocated: the small member takes the big node first.
    assert cluster.binds == []
    assert "cannot be satisfied" in cluster.group_conditions["mixed"][-1][2]


def test_podgroup_model_has_no_generation_to_observe():
    """v1.37.2 PodGroups carry no metadata.generation: the model must not need one."""
    group = PodGroup.from_api({"metadata": {"name": "g", "namespace": "ns"},
                               "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}})
    assert group.min_count == 2
