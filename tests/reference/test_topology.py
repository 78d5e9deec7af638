"""The reference scheduler's placement algorithm and CompositePodGroup trees, in virtual time.

GANG-TAS-001..003 and GANG-SCORE-001 (TopologyAwareWorkloadScheduling), GANG-CPG-001..002
(CompositePodGroup). Racks are node label ``rack``; each node has 2 CPUs, each pod asks 1.
"""

from __future__ import annotations

import pytest
from fakes import Cluster

from reference_scheduler import PodGroup, Status
from reference_scheduler.features import COMPOSITE, TOPOLOGY_AWARE
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.runtime import NO_FEASIBLE_PLACEMENTS
from reference_scheduler.framework.types import PodGroupInfo
from reference_scheduler.plugins.podgrouppodscount import NO_PODS_ASSIGNED, PodGroupPodsCount

RACK = "rack"


@pytest.fixture
def tas() -> Cluster:
    return Cluster(features=frozenset({TOPOLOGY_AWARE}))


@pytest.fixture
def cpg() -> Cluster:
    return Cluster(features=frozenset({TOPOLOGY_AWARE, COMPOSITE}))


def racks(cluster: Cluster, *sizes: int, cpu: str = "2") -> None:
    for index, size in enumerate(sizes):
        cluster.nodes(size, cpu=cpu, prefix=f"r{index}-n", labels={RACK: f"r{index}"})


def rack_of(cluster: Cluster, pod: str) -> str:
    return cluster.node_of(pod).split("-")[0]


def test_tas_001_a_constrained_gang_lands_in_one_domain(tas):
    racks(tas, 2, 2)
    tas.group("g", min_count=4, topology=RACK)
    for i in range(4):
        tas.pod(f"g-{i}", group="g")
    tas.run()
    assert len(tas.bound("g-")) == 4
    assert len({rack_of(tas, f"g-{i}") for i in range(4)}) == 1


def test_tas_001_a_gang_no_single_domain_holds_fails_with_the_placement_message(tas):
    racks(tas, 2, 2)  # 4 CPUs per rack, 8 in all: the gang of 6 fits the cluster but no rack
    tas.group("g", min_count=6, topology=RACK)
    for i in range(6):
        tas.pod(f"g-{i}", group="g")
    tas.run()
    assert tas.binds == []
    status, reason, message = tas.group_conditions["g"][-1]
    assert (status, reason) == (False, "Unschedulable")
    # v1.37.2: the verdict is wrapped around "pod group is unschedulable", which comes first
    assert message.startswith("pod group is unschedulable, 0/2 placements are available, first placement status: "
                              "minCount (6) cannot be satisfied: 4 scheduled, 1 remaining, "), message
    # a topology-constrained group gets no DynamicResources verdict at PodGroupPostFilter
    assert message.endswith(", pod group preemption: No preemption victims found for incoming preemptor")
    # the member that fit repeats the prefix; the one never tried has the verdict without the preemption part
    assert tas.conditions["g-0"][1].startswith("pod group is unschedulable, pod group is unschedulable, 0/2 ")
    assert tas.conditions["g-4"][1] == ("0/2 nodes are available: 2 Insufficient cpu."), tas.conditions
    assert tas.conditions["g-5"][1] == ("pod group is unschedulable, 0/2 placements are available, first placement "
                                        "status: minCount (6) cannot be satisfied: 4 scheduled, 1 remaining")


def test_tas_001_without_the_label_no_placement_exists(tas):
    tas.nodes(4, cpu="2")
    tas.group("g", min_count=2, topology=RACK)
    tas.pod("g-0", group="g")
    tas.pod("g-1", group="g")
    tas.run()
    assert tas.binds == []
    assert tas.group_conditions["g"][-1][2].startswith(NO_FEASIBLE_PLACEMENTS)


def test_tas_001_new_members_follow_the_domain_of_scheduled_ones(tas):
    racks(tas, 1, 3)
    tas.group("g", min_count=1, topology=RACK)
    tas.pod("g-0", group="g")
    tas.run()
    first = rack_of(tas, "g-0")
    for i in range(1, 3):
        tas.pod(f"g-{i}", group="g")
    tas.run()
    assert {rack_of(tas, p) for p in tas.bound("g-")} == {first}


def test_tas_unconstrained_group_failure_is_wrapped_as_one_placement(tas):
    tas.nodes(3, cpu="1")
    tas.group("g", min_count=4)
    for i in range(4):
        tas.pod(f"g-{i}", group="g")
    tas.run()
    assert tas.binds == []
    assert tas.group_conditions["g"][-1][2].startswith(
        "pod group is unschedulable, 0/1 placements are available, first placement status: "
        "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining")


def test_tas_003_with_the_scheduler_gate_off_the_constraint_is_not_enforced():
    cluster = Cluster()
    racks(cluster, 2, 2)
    cluster.group("g", min_count=6, topology=RACK)
    for i in range(6):
        cluster.pod(f"g-{i}", group="g")
    cluster.run()
    assert len(cluster.bound("g-")) == 6
    assert len({rack_of(cluster, f"g-{i}") for i in range(6)}) == 2


def test_score_001_the_domain_that_fits_more_members_wins(tas):
    racks(tas, 1, 2)  # r0 holds 2 pods, r1 holds 4
    tas.group("g", topology=RACK)  # basic: partial placement allowed, so both racks are feasible
    for i in range(4):
        tas.pod(f"g-{i}", group="g")
    tas.run()
    assert sorted(tas.bound("g-")) == ["g-0", "g-1", "g-2", "g-3"]
    assert {rack_of(tas, p) for p in tas.bound("g-")} == {"r1"}


def test_score_001_between_equal_counts_the_tighter_domain_wins(tas):
    racks(tas, 2, 2)
    tas.pod("other", cpu="1")  # makes one rack fuller; the gang then packs beside it
    tas.run()
    busy = rack_of(tas, "other")
    tas.group("g", min_count=2, topology=RACK)
    tas.pod("g-0", group="g")
    tas.pod("g-1", group="g")
    tas.run()
    assert {rack_of(tas, p) for p in tas.bound("g-")} == {busy}


def test_score_001_normalization():
    plugin, info = PodGroupPodsCount(handle=None), PodGroupInfo(PodGroup("ns", "g"))
    scores = [1, 2, 4]
    assert plugin.normalize_placement_score(CycleState(), info, scores) == Status.success() and scores == [25, 50, 100]
    status = plugin.normalize_placement_score(CycleState(), info, [0, 0])
    assert not status.ok and status.message() == NO_PODS_ASSIGNED


def tree(cluster: Cluster, *, min_group_count: int = 2, leaf_min: int = 2) -> None:
    cluster.composite("root", min_group_count=min_group_count)
    cluster.group("a", min_count=leaf_min, parent="root")
    cluster.group("b", min_count=leaf_min, parent="root")


def test_cpg_001_nothing_is_tried_until_the_whole_tree_meets_quorum(cpg):
    cpg.nodes(4, cpu="2")
    tree(cpg)
    cpg.pod("a-0", group="a")
    cpg.pod("a-1", group="a")
    cpg.pod("b-0", group="b")
    cpg.run()
    assert cpg.binds == [] and cpg.conditions == {} and cpg.group_conditions == {}
    cpg.pod("b-1", group="b")
    cpg.run()
    assert sorted(cpg.bound()) == ["a-0", "a-1", "b-0", "b-1"]
    assert cpg.group_conditions["a"][-1][:2] == (True, "Scheduled")
    assert cpg.group_conditions["b"][-1][:2] == (True, "Scheduled")


def test_cpg_001_a_missing_composite_holds_its_leaves_until_it_exists(cpg):
    cpg.nodes(2, cpu="2")
    cpg.group("a", min_count=1, parent="root")
    cpg.pod("a-0", group="a")
    cpg.run()
    assert cpg.binds == [] and cpg.conditions == {}
    cpg.composite("root", min_group_count=1)
    cpg.run()
    assert cpg.bound() == ["a-0"]


def test_cpg_002_one_infeasible_leaf_blocks_the_whole_gang_tree(cpg):
    cpg.nodes(2, cpu="2")  # 4 CPUs: leaf a (2 pods) fits, leaf b (3 pods of 1 CPU each... plus a) does not
    tree(cpg, leaf_min=3)
    for i in range(3):
        cpg.pod(f"a-{i}", group="a")
        cpg.pod(f"b-{i}", group="b")
    cpg.run()
    assert cpg.binds == []
    for leaf in ("a", "b"):
        status, reason, message = cpg.group_conditions[leaf][-1]
        assert (status, reason) == (False, "Unschedulable"), (leaf, message)
    # a was placed and then taken down with the root: it carries the root's verdict, and its
    # members (none of them counts as tried) the same text
    root_verdict = cpg.group_conditions["a"][-1][2]
    assert root_verdict == ("pod group is unschedulable, 0/1 placements are available, first placement status: "
                            "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"), cpg.group_conditions
    assert {cpg.conditions[f"a-{i}"][1] for i in range(3)} == {root_verdict}, cpg.conditions
    # b's own placement failed: its misfit has its fit error, the member never tried b's verdict
    assert cpg.conditions["b-2"][1] == cpg.group_conditions["b"][-1][2], cpg.conditions


def test_cpg_002_min_group_count_one_lets_the_feasible_leaf_run(cpg):
    cpg.nodes(2, cpu="2")
    tree(cpg, min_group_count=1, leaf_min=3)
    for i in range(3):
        cpg.pod(f"a-{i}", group="a")
        cpg.pod(f"b-{i}", group="b")
    cpg.run()
    assert sorted(cpg.bound()) == ["a-0", "a-1", "a-2"]
    assert cpg.group_conditions["a"][-1][:2] == (True, "Scheduled")
    assert cpg.group_conditions["b"][-1][:2] == (False, "Unschedulable")


def test_tas_002_the_parent_domain_narrows_its_children(cpg):
    racks(cpg, 2, 2)
    cpg.composite("root", min_group_count=2, topology=RACK)
    cpg.group("a", min_count=2, parent="root")
    cpg.group("b", min_count=2, parent="root")
    for i in range(2):
        cpg.pod(f"a-{i}", group="a")
        cpg.pod(f"b-{i}", group="b")
    cpg.run()
    assert len(cpg.bound()) == 4
    assert len({rack_of(cpg, p) for p in cpg.bound()}) == 1


def test_unknown_feature_gate_is_refused():
    with pytest.raises(ValueError, match="unknown feature gate"):
        Cluster(features=frozenset({"NoSuchGate"}))
