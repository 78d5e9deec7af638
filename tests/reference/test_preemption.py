"""Workload-aware preemption in the reference scheduler (GANG-PREEMPT-001 to 005), in virtual time.

The e2e shape from the catalogue: nodes with 2 units of an extended resource; a victim gang of
2 at low priority; a preemptor needing 1 unit.
"""

from __future__ import annotations

from fakes import Cluster
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_scheduler import Pod, PodGroup, Resources
from reference_scheduler.features import PREEMPTION_POLICY
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.preemption import victim_units
from reference_scheduler.plugins.defaultpreemption import NOT_ELIGIBLE, found_placement
from reference_scheduler.plugins.dynamicresources import CLAIMS_RELEASED

LOW, HIGH = 10, 1000
DISRUPTION_BY_POD = "gangconf-reference: preempting to accommodate a higher priority pod"
DISRUPTION_BY_GROUP = "gangconf-reference: preempting to accommodate a higher priority podgroup"


def _victim_gang(cluster: Cluster, disruption: str) -> None:
    cluster.nodes(1, cpu="8", gpus=2)
    cluster.group("victims", min_count=2, priority=LOW, disruption=disruption)
    cluster.pod("victims-0", group="victims", gpus=1, priority=LOW)
    cluster.pod("victims-1", group="victims", gpus=1, priority=LOW)
    cluster.run()
    assert len(cluster.bound("victims-")) == 2


def test_preempt_002_disruption_all_evicts_the_whole_group_for_a_pod_group():
    cluster = Cluster()
    _victim_gang(cluster, "all")
    cluster.group("pre", min_count=1, priority=HIGH)
    cluster.pod("pre-0", group="pre", gpus=1, priority=HIGH)
    cluster.run()
    assert sorted(v for v, _ in cluster.preempted) == ["victims-0", "victims-1"]
    assert {m for _, m in cluster.preempted} == {DISRUPTION_BY_GROUP}
    # The PodGroup preempted as a whole is marked too, as the API documents (DEV-VICTIM-DISRUPTIONTARGET).
    assert cluster.group_disruptions == [("victims", DISRUPTION_BY_GROUP)]
    assert cluster.nominations == {"pre-0": "n0"}
    cluster.clock.advance(2)  # a failed attempt at t=0 is retried at the whole second after its 1 s window
    cluster.run()
    assert cluster.bound("pre-") == ["pre-0"]


def test_preempt_002_disruption_single_evicts_one_member_for_a_pod_group():
    cluster = Cluster()
    _victim_gang(cluster, "single")
    cluster.group("pre", min_count=1, priority=HIGH)
    cluster.pod("pre-0", group="pre", gpus=1, priority=HIGH)
    cluster.run()
    assert len(cluster.preempted) == 1
    assert cluster.group_disruptions == []  # one member goes, the PodGroup stays
    cluster.clock.advance(2)  # a failed attempt at t=0 is retried at the whole second after its 1 s window
    cluster.run()
    assert cluster.bound("pre-") == ["pre-0"] and len(cluster.bound("victims-")) == 1


def test_preempt_003_an_individual_pod_honours_disruption_all():
    cluster = Cluster()
    _victim_gang(cluster, "all")
    cluster.pod("solo", gpus=1, priority=HIGH)
    cluster.run()
    assert sorted(v for v, _ in cluster.preempted) == ["victims-0", "victims-1"]
    assert {m for _, m in cluster.preempted} == {DISRUPTION_BY_POD}
    cluster.clock.advance(2)  # a failed attempt at t=0 is retried at the whole second after its 1 s window
    cluster.run()
    assert cluster.bound("solo") == ["solo"]


def test_preempt_003_an_individual_pod_evicts_one_member_with_single():
    cluster = Cluster()
    _victim_gang(cluster, "single")
    cluster.pod("solo", gpus=1, priority=HIGH)
    cluster.run()
    cluster.clock.advance(2)  # a failed attempt at t=0 is retried at the whole second after its 1 s window
    cluster.run()
    assert len(cluster.preempted) == 1 and cluster.bound("solo") == ["solo"]


def test_preempt_002_a_victims_priority_is_its_podgroups_not_the_pods():
    """Pods whose own priority is high but whose PodGroup's is low are victims at the low priority."""
    cluster = Cluster()
    cluster.nodes(1, cpu="8", gpus=1)
    cluster.group("victims", min_count=1, priority=LOW)
    # Bound by another scheduler: its own priority would protect it; its PodGroup's does not (#139030).
    gpu = Resources.from_map({"nvidia.com/gpu": "1"}) + Resources(pods=1)
    victim = Pod("ns", "victims-0", scheduler_name="other", node_name="n0", priority=HIGH + 1,
                 pod_group="victims", requests=gpu)
    cluster.scheduler.on_pod(victim, victim.key)
    cluster.pod("solo", gpus=1, priority=HIGH)
    cluster.run()
    assert [v for v, _ in cluster.preempted] == ["victims-0"]
    cluster.clock.advance(2)  # a failed attempt at t=0 is retried at the whole second after its 1 s window
    cluster.run()
    assert cluster.bound("solo") == ["solo"]


def test_preempt_001_no_victims_when_nothing_has_lower_priority():
    cluster = Cluster()
    _victim_gang(cluster, "all")
    cluster.group("pre", min_count=1, priority=LOW)  # same priority: no preemption
    cluster.pod("pre-0", group="pre", gpus=1, priority=LOW)
    cluster.run()
    assert cluster.preempted == [] and cluster.bound("pre-") == []
    assert cluster.group_conditions["pre"][-1][2].endswith(
        "pod group preemption: No preemption victims found for incoming preemptor")


def test_preempt_005_preemption_policy_never_does_not_preempt():
    # PodGroupPreemptionPolicy on: the PodGroup's own policy decides (its members match it).
    cluster = Cluster(features=frozenset({PREEMPTION_POLICY}))
    _victim_gang(cluster, "all")
    cluster.group("pre", min_count=1, priority=HIGH, preemption_policy="Never")
    cluster.pod("pre-0", group="pre", gpus=1, priority=HIGH, preemption_policy="Never")
    cluster.run()
    assert cluster.preempted == [] and len(cluster.bound("victims-")) == 2
    status, reason, message = cluster.group_conditions["pre"][-1]
    assert (status, reason) == (False, "Unschedulable")
    # v1.37.2: DynamicResources reports first at PodGroupPostFilter, then DefaultPreemption.
    assert message.endswith(f", {CLAIMS_RELEASED}, {NOT_ELIGIBLE}"), message


def test_preempt_005_with_the_gate_off_a_member_with_never_keeps_the_group_from_preempting():
    cluster = Cluster()
    _victim_gang(cluster, "all")
    cluster.group("pre", min_count=1, priority=HIGH)  # the API server drops the field with the gate off
    cluster.pod("pre-0", group="pre", gpus=1, priority=HIGH, preemption_policy="Never")
    cluster.run()
    assert cluster.preempted == [] and len(cluster.bound("victims-")) == 2
    assert cluster.group_conditions["pre"][-1][2].endswith(NOT_ELIGIBLE)


def test_preemptpolicy_001_with_the_gate_on_members_must_match_the_group_policy():
    cluster = Cluster(features=frozenset({PREEMPTION_POLICY}))
    cluster.nodes(1, cpu="8")
    cluster.group("g", min_count=1, preemption_policy="Never")
    cluster.pod("g-0", group="g")  # PreemptLowerPriority
    cluster.run()
    assert cluster.binds == []
    assert cluster.conditions["g-0"] == (
        "SchedulerError", "all pods in a single pod group should have the same preemption policy as the pod "
                          "group's preemption policy, got PreemptLowerPriority and Never")


def test_preempt_001_waiting_members_carry_the_group_verdict_with_the_preemption_outcome():
    cluster = Cluster()
    cluster.nodes(1, cpu="8", gpus=2)
    cluster.pod("victim", gpus=1, priority=LOW)
    cluster.run()
    cluster.group("pre", min_count=2, priority=HIGH)
    cluster.pod("pre-0", group="pre", gpus=1, priority=HIGH)
    cluster.pod("pre-1", group="pre", gpus=1, priority=HIGH)
    cluster.scheduler.schedule_next()  # one cycle: it preempts and waits for the victim to go
    message = cluster.group_conditions["pre"][-1][2]
    assert message == f"minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, {found_placement(1)}", message
    # the member that fit carries the group's verdict as it is, the other its own fit error
    assert cluster.conditions["pre-0"][1] == message, cluster.conditions
    assert cluster.conditions["pre-1"][1] == "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.", cluster.conditions


def test_preempt_004_reprieve_keeps_the_more_important_units():
    """Two lower-priority units fit the bill; the less important one goes."""
    cluster = Cluster()
    cluster.nodes(1, cpu="8", gpus=2)
    cluster.pod("cheap", gpus=1, priority=1)
    cluster.pod("dear", gpus=1, priority=5)
    cluster.run()
    cluster.pod("solo", gpus=1, priority=HIGH)
    cluster.run()
    assert [v for v, _ in cluster.preempted] == ["cheap"]


def test_preempt_004_importance_order():
    groups = {"ns/g": PodGroup("ns", "g", min_count=2, priority=5, disruption_mode="all"),
              "ns/s": PodGroup("ns", "s", min_count=1, priority=5)}
    pods = [
        Pod("ns", "g-0", node_name="n", pod_group="g", created="2"), Pod("ns", "g-1", node_name="n", pod_group="g"),
        Pod("ns", "s-0", node_name="n", pod_group="s"),
        Pod("ns", "plain-early", node_name="n", priority=5, created="1"),
        Pod("ns", "plain-late", node_name="n", priority=5, created="9"),
        Pod("ns", "top", node_name="n", priority=50),
    ]
    order = [tuple(p.name for p in u.pods) for u in victim_units(pods, groups)]
    assert order == [("top",), ("g-0", "g-1"), ("s-0",), ("plain-early",), ("plain-late",)]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.sampled_from(["single", "all"]), st.integers(1, 3)),
                min_size=1, max_size=5),
       st.integers(0, 25))
def test_preemption_never_evicts_a_unit_not_below_the_preemptor_and_never_half_of_an_all_group(victims, priority):
    cluster = Cluster()
    cluster.nodes(3, cpu="4", gpus=2)
    for g, (prio, mode, size) in enumerate(victims):
        cluster.group(f"v{g}", min_count=1, priority=prio, disruption=mode)
        for m in range(size):
            cluster.pod(f"v{g}-{m}", group=f"v{g}", gpus=1, priority=prio)
    cluster.run()
    bound_before = {name for name, _ in cluster.binds}
    cluster.group("pre", min_count=2, priority=priority)
    for m in range(2):
        cluster.pod(f"pre-{m}", group="pre", gpus=2, priority=priority)
    cluster.run()
    evicted = {v for v, _ in cluster.preempted}
    for g, (prio, mode, size) in enumerate(victims):
        members = {f"v{g}-{m}" for m in range(size)} & bound_before
        if members & evicted:
            assert prio < priority, (g, prio, priority)
            if mode == "all":
                assert members <= evicted, (g, members, evicted)


def test_preempt_005_the_podgroups_policy_is_not_read_without_the_gate():
    cluster = Cluster()
    _victim_gang(cluster, "all")
    cluster.group("pre", min_count=1, priority=HIGH, preemption_policy="Never")
    cluster.pod("pre-0", group="pre", gpus=1, priority=HIGH)
    cluster.run()
    assert sorted(v for v, _ in cluster.preempted) == ["victims-0", "victims-1"]


def test_preempt_001_no_eviction_when_the_group_cannot_fit_even_without_every_lower_unit():
    """The trial placement with every lower-priority unit gone fails: nothing is evicted, and the
    group's message carries the trial's own verdict (v1.37.2)."""
    cluster = Cluster()
    cluster.nodes(2, cpu="8", gpus=2)
    for i in range(4):
        cluster.pod(f"v-{i}", gpus=1, priority=LOW)
    cluster.run()
    cluster.group("pre", min_count=5, priority=HIGH)
    for i in range(5):
        cluster.pod(f"pre-{i}", group="pre", gpus=1, priority=HIGH)
    cluster.run()
    assert cluster.preempted == [] and cluster.nominations == {}
    message = cluster.group_conditions["pre"][-1][2]
    assert message.endswith(", pod group preemption: minCount (5) cannot be satisfied: 4 scheduled, 0 remaining"), message


def test_preempt_001_the_members_are_nominated_where_the_victims_were_and_placed_there():
    cluster = Cluster()
    cluster.nodes(2, cpu="8", gpus=2)
    for i in range(4):
        cluster.pod(f"v-{i}", gpus=1, priority=LOW)
    cluster.run()
    cluster.group("pre", min_count=2, priority=HIGH)
    cluster.pod("pre-0", group="pre", gpus=1, priority=HIGH)
    cluster.pod("pre-1", group="pre", gpus=1, priority=HIGH)
    cluster.run()
    assert len(cluster.preempted) == 2
    message = cluster.group_conditions["pre"][-1][2]
    assert message.endswith(f", {found_placement(2)}"), message
    victim_nodes = {node for name, node in cluster.victim_nodes if name in {v for v, _ in cluster.preempted}}
    assert set(cluster.nominations) == {"pre-0", "pre-1"} and set(cluster.nominations.values()) <= victim_nodes
    cluster.clock.advance(2)
    cluster.run()
    assert sorted(cluster.bound("pre-")) == ["pre-0", "pre-1"]


def test_preempt_004_the_trial_placement_is_kept_while_units_are_given_back():
    """v1.37.2 gives units back against the members' nodes from the trial, not a new placement:
    with the trial's member on the node of the more important unit, that unit is the victim."""
    from reference_scheduler.framework.preemption import preempt_for_group

    cluster = Cluster()
    cluster.nodes(2, cpu="8", gpus=1)
    cluster.pod("cheap", gpus=1, priority=1)
    cluster.pod("dear", gpus=1, priority=5)
    cluster.run()
    scheduler = cluster.scheduler
    dear_node = cluster.node_of("dear")
    preemptor = Pod("ns", "pre-0", priority=HIGH, pod_group="pre",
                    requests=Resources.from_map({"nvidia.com/gpu": "1"}) + Resources(pods=1))
    units = victim_units([p for p in scheduler.cache.pods.values() if p.node_name], scheduler.cache.groups)
    fits = lambda pod, info: scheduler.framework.run_filter_plugins(CycleState(), pod, info).ok  # noqa: E731
    result = preempt_for_group(HIGH, scheduler.pod_cycle.snapshot_for([]), units,
                               lambda trial: ([(preemptor, dear_node)], ""), fits)
    assert [u.pods[0].name for u in result.victims] == ["dear"]
    assert result.assignments == [(preemptor, dear_node)] and result.failure == ""
