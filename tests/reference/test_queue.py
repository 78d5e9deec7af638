"""The reference scheduler's gated pool and queueing hints (spec section 3.H), in virtual time."""

from __future__ import annotations

import dataclasses

import pytest
from fakes import Cluster

from reference_scheduler.plugins import gangscheduling as gang
from reference_scheduler.features import COMPOSITE, TOPOLOGY_AWARE


@pytest.fixture
def cluster() -> Cluster:
    return Cluster()


def entity(cluster: Cluster, group: str):
    return cluster.entity(group)


def gated_gang(cluster: Cluster, min_count: int = 3, have: int = 2) -> None:
    cluster.nodes(3, cpu="4")
    cluster.group("g", min_count=min_count)
    for i in range(have):
        cluster.pod(f"g-{i}", group="g")
    cluster.run()
    assert entity(cluster, "g").gated_by == gang.NAME


def test_a_gang_below_quorum_waits_in_the_gated_pool(cluster):
    gated_gang(cluster)
    assert cluster.binds == [] and cluster.conditions == {}


def test_unrelated_events_do_not_requeue_a_gated_gang(cluster):
    gated_gang(cluster)
    cluster.group("other", min_count=1)
    cluster.pod("other-0", group="other")
    cluster.nodes(1, prefix="extra")
    cluster.run()
    assert entity(cluster, "g").gated_by == gang.NAME
    assert cluster.bound("other-") == ["other-0"]


def test_a_member_added_requeues_the_gang(cluster):
    gated_gang(cluster)
    cluster.pod("g-2", group="g")
    assert entity(cluster, "g").gated_by is None
    cluster.run()
    assert sorted(cluster.bound("g-")) == ["g-0", "g-1", "g-2"]


def test_a_min_count_increase_is_skipped_and_a_decrease_queues(cluster):
    gated_gang(cluster)
    cluster.group("g", min_count=4)
    assert entity(cluster, "g").gated_by == gang.NAME
    cluster.group("g", min_count=2)
    assert entity(cluster, "g").gated_by is None
    cluster.run()
    assert sorted(cluster.bound("g-")) == ["g-0", "g-1"]


def test_removing_a_scheduling_gate_requeues_only_through_the_gated_pod(cluster):
    cluster.nodes(2, cpu="4")
    cluster.group("g", min_count=2)
    cluster.pod("g-0", group="g")
    gated = cluster.pod("g-1", group="g", scheduling_gates=("example.com/hold",))
    cluster.run()
    assert entity(cluster, "g").gated_by == "SchedulingGates"
    cluster.scheduler.on_pod(dataclasses.replace(gated, scheduling_gates=()), gated.key)
    cluster.run()
    assert sorted(cluster.bound("g-")) == ["g-0", "g-1"]


def test_a_sibling_in_the_same_tree_requeues_a_gated_leaf():
    cluster = Cluster(features=frozenset({TOPOLOGY_AWARE, COMPOSITE}))
    cluster.nodes(4, cpu="2")
    cluster.composite("root", min_group_count=2)
    cluster.group("a", min_count=1, parent="root")
    cluster.group("b", min_count=1, parent="root")
    cluster.pod("a-0", group="a")
    cluster.run()
    assert entity(cluster, "a").gated_by == gang.NAME
    cluster.pod("b-0", group="b")
    assert entity(cluster, "a").gated_by is None
    cluster.run()
    assert sorted(cluster.bound()) == ["a-0", "b-0"]
