"""Topology-aware workload scheduling (alpha profile): placement inside topology domains.

With TopologyAwareWorkloadScheduling on, every pod-group cycle runs the placement algorithm: the
TopologyPlacementGenerator plugin (named ``TopologyPlacement`` in the catalogue) proposes one
candidate placement per value of the group's topology label, the ordinary pod-group algorithm
runs once per candidate, and the placement scorers (PodGroupPodsCount, and NodeResourcesFit
with MostAllocated) pick among the feasible ones.

Each test labels only its own nodes, with a key unique to its pool (``topology_key``): the
placement plugin groups every node of the cluster by the key, so a shared key would add other
tests' domains to the candidates. Members are created before their PodGroup whenever the group
has more members than ``minCount``, so that all of them are in the first cycle (a gang is tried
as soon as ``minCount`` members exist), and the PodGroup only once the scheduler has seen them
all (``scheduler_caught_up``): its pod and PodGroup informers are separate streams, so it could
otherwise see the PodGroup before the last member and place a smaller group.
"""

from __future__ import annotations

import pytest

from fixtures import NodeShape, condition, proven_never, scheduler_caught_up, topology_key


def _labels_of(state, names, nodes: dict[str, str]) -> set[str | None]:
    """The domains (label values, via ``nodes``: node name -> value) of the pods ``names`` are bound to."""
    return {nodes.get(state.pods[n]["spec"]["nodeName"]) for n in names}


def _domains(layout: dict[str, list[str]]) -> dict[str, str]:
    """node name -> domain, from ``layout`` (domain -> the names of its nodes)."""
    return {node: domain for domain, names in layout.items() for node in names}


@pytest.mark.conformance(id="GANG-TAS-001", profile="alpha")
def test_gang_is_placed_inside_one_topology_domain(pool, gang, recorder, timeouts):
    """Behaviour: GANG-TAS-001, profile alpha.

    Requirement: a PodGroup with ``schedulingConstraints.topology[0].key = K`` MUST have every
    member placed in one cycle on nodes that share one value of label ``K``, and MUST NOT use a
    node without label ``K``, even when that node has room for the whole gang.

    Scenario:
      1. Rack ``r1``: 2 nodes of 2 CPUs; rack ``r2``: 3 nodes of 2 CPUs; one 8-CPU node without
         the rack label.
      2. 3 members of 2 CPUs, then PodGroup ``three`` (gang, minCount 3, topology key = rack).
      3. All 3 are bound, all in rack ``r2`` (the only rack with room for 3), none on the
         unlabelled node; the PodGroup reports Scheduled.
    """
    rack = topology_key(pool, "rack")
    layout = {"r1": pool.add(2, NodeShape(cpu="2"), prefix="r1-", labels=[{rack: "r1"}] * 2),
              "r2": pool.add(3, NodeShape(cpu="2"), prefix="r2-", labels=[{rack: "r2"}] * 3)}
    pool.add(1, NodeShape(cpu="8"), prefix="plain")
    members = gang.pods("three", 3, group="three", cpu="2")
    gang.pod_group("three", min_count=3, topology_key=rack)

    state = recorder.eventually(lambda s: len(s.bound("three")) == 3, timeout=timeouts.gang_scheduled,
                                describe="all 3 members bound")
    assert _labels_of(state, members, _domains(layout)) == {"r2"}, state.summary()
    state = recorder.eventually(lambda s: (s.group_condition("three") or {}).get("status") == "True",
                                timeout=timeouts.scheduler_reacts, describe="PodGroupInitiallyScheduled=True")
    assert state.group_condition("three")["reason"] == "Scheduled", state.summary()


@pytest.mark.conformance(id="GANG-TAS-001", profile="alpha")
def test_gang_is_unschedulable_when_no_topology_domain_can_hold_it(pool, gang, recorder, timeouts):
    """Behaviour: GANG-TAS-001, profile alpha.

    Requirement: when no candidate placement (topology domain) can hold ``minCount`` members, the
    scheduler MUST bind no member, even though a node without the topology label could hold them
    all; the PodGroup MUST report ``PodGroupInitiallyScheduled=False``, reason ``Unschedulable``,
    with the placement algorithm's verdict.

    v1.37.2 differs from the catalogue: the catalogue quotes ``0/<n> placements are available,
    reported placement status: <err>`` for a PodGroup, but v1.37.2 reports ``first placement
    status`` for PodGroups as for CompositePodGroups, and the condition message starts with
    ``pod group is unschedulable, `` (the status carries that error): ``pod group is
    unschedulable, 0/2 placements are available, first placement status: ...``. Which domain is
    "first" comes from a Go map in v1.37.2, so the text after it is not asserted.

    Scenario:
      1. Rack ``r1``: 2 nodes of 2 CPUs; rack ``r2``: 2 nodes of 2 CPUs; one 8-CPU node without
         the rack label (room for all 4).
      2. 4 members of 2 CPUs and PodGroup ``wide`` (gang, minCount 4, topology key = rack).
      3. The PodGroup reports Unschedulable with ``pod group is unschedulable, 0/2 placements are
         available, first placement status: ``; every member reports ``Unschedulable``; over the
         ``stays_pending`` window no member is bound.
    """
    rack = topology_key(pool, "rack")
    pool.add(2, NodeShape(cpu="2"), prefix="r1-", labels=[{rack: "r1"}] * 2)
    pool.add(2, NodeShape(cpu="2"), prefix="r2-", labels=[{rack: "r2"}] * 2)
    pool.add(1, NodeShape(cpu="8"), prefix="plain")
    members = gang.pods("wide", 4, group="wide", cpu="2")
    gang.pod_group("wide", min_count=4, topology_key=rack)

    state = recorder.eventually(
        lambda s: (s.group_condition("wide") or {}).get("status") == "False"
        and all((s.pod_condition(n) or {}).get("status") == "False" for n in members),
        timeout=timeouts.scheduler_reacts, describe="the PodGroup and every member report the failure")
    cond = state.group_condition("wide")
    assert cond["reason"] == "Unschedulable", cond
    assert cond["message"].startswith(
        "pod group is unschedulable, 0/2 placements are available, first placement status: "), cond
    for name in members:
        assert condition(state.pods[name], "PodScheduled")["reason"] == "Unschedulable", state.summary()
    proven_never(gang, recorder, lambda s: s.bound("wide"), timeouts=timeouts,
                 describe="no member is bound when no domain can hold the gang")


@pytest.mark.conformance(id="GANG-TAS-001", profile="alpha")
def test_new_member_of_a_placed_gang_goes_to_its_domain(pool, gang, recorder, timeouts):
    """Behaviour: GANG-TAS-001, profile alpha.

    Requirement: a new member of a PodGroup whose members are already scheduled MUST be placed in
    the domain they are in; while that domain is full it MUST stay pending, even though another
    domain and an unlabelled node have room.

    Scenario:
      1. Racks ``r1`` and ``r2``, each 2 nodes of 2 CPUs; one 8-CPU node without the rack label.
      2. PodGroup ``crew`` (gang, minCount 2, topology key = rack) with 2 members of 2 CPUs: both
         bound in one rack ``R``.
      3. Member ``crew-2``: over the ``stays_pending`` window it is not bound (``R`` is full).
      4. Add a node to ``R``: ``crew-2`` is bound there.
    """
    rack = topology_key(pool, "rack")
    layout = {"r1": pool.add(2, NodeShape(cpu="2"), prefix="r1-", labels=[{rack: "r1"}] * 2),
              "r2": pool.add(2, NodeShape(cpu="2"), prefix="r2-", labels=[{rack: "r2"}] * 2)}
    pool.add(1, NodeShape(cpu="8"), prefix="plain")
    domains = _domains(layout)
    gang.pod_group("crew", min_count=2, topology_key=rack)
    first = gang.pods("crew", 2, group="crew", cpu="2")
    state = recorder.eventually(lambda s: len(s.bound("crew")) == 2, timeout=timeouts.gang_scheduled,
                                describe="the first 2 members bound")
    homes = _labels_of(state, first, domains)
    assert len(homes) == 1, state.summary()
    (home,) = homes

    since = recorder.mark()
    gang.pod("crew-2", group="crew", cpu="2")
    proven_never(gang, recorder, lambda s: s.bound("crew", prefix="crew-2"), timeouts=timeouts, after=since,
                 describe=f"the new member waits while rack {home} is full")

    added = pool.add(1, NodeShape(cpu="2"), prefix="late", labels=[{rack: home}])
    state = recorder.eventually(lambda s: s.bound("crew", prefix="crew-2"), timeout=timeouts.gang_scheduled,
                                describe=f"the new member bound once rack {home} has room")
    assert state.pods["crew-2"]["spec"]["nodeName"] == added[0], state.summary()


@pytest.mark.conformance(id="GANG-TAS-002", profile="alpha")
def test_parent_domain_narrows_the_domains_of_its_children(pool, gang, recorder, timeouts):
    """Behaviour: GANG-TAS-002, profile alpha.

    Requirement: in a CompositePodGroup tree, the domain chosen for a parent with a topology
    constraint MUST narrow the domains considered for its children: every pod of the tree lands
    in one value of the parent's key (zone), and each child's pods in one value of its own key
    (rack); siblings need not share a rack.

    Scenario:
      1. Zone ``z1``: rack ``r1`` (one 2-CPU node), rack ``r2`` (one 8-CPU node); zone ``z2``:
         rack ``r3`` (one 8-CPU node), rack ``r4`` (one 2-CPU node).
      2. Root ``job`` (gang, minGroupCount 2, topology key = zone) with leaves ``a`` and ``b``
         (gang, minCount 2, topology key = rack), 2 members of 1 CPU each. A scheduler that
         ignored the zone would pack the leaves into the two 2-CPU racks, which are in different
         zones.
      3. All 4 members are bound, in one zone; each leaf's members in one rack.
    """
    zone, rack = topology_key(pool, "zone"), topology_key(pool, "rack")
    racks = {}
    for name, z, cpu in (("r1", "z1", "2"), ("r2", "z1", "8"), ("r3", "z2", "8"), ("r4", "z2", "2")):
        for node in pool.add(1, NodeShape(cpu=cpu), prefix=f"{name}-", labels=[{zone: z, rack: name}]):
            racks[node] = (z, name)
    gang.create(gang.workload_manifest("train", None, composite=[gang.composite_template(
        "job", min_group_count=2, topology_key=zone,
        pod_groups=[gang.template(leaf, min_count=2, topology_key=rack) for leaf in ("a", "b")])]))
    gang.composite_pod_group("job", workload=("train", "job"), min_group_count=2, topology_key=zone)
    members = {}
    for leaf in ("a", "b"):
        gang.pod_group(leaf, min_count=2, workload=("train", leaf), parent="job", topology_key=rack)
        members[leaf] = gang.pods(leaf, 2, group=leaf, cpu="1")

    state = recorder.eventually(lambda s: len(s.bound("a")) == 2 and len(s.bound("b")) == 2,
                                timeout=timeouts.gang_scheduled, describe="all 4 members of the tree bound")
    placed = {n: racks[state.pods[n]["spec"]["nodeName"]] for names in members.values() for n in names}
    assert len({z for z, _ in placed.values()}) == 1, (placed, state.summary())
    for leaf, names in members.items():
        assert len({placed[n][1] for n in names}) == 1, (leaf, placed)


@pytest.mark.conformance(id="GANG-TAS-003", profile="beta")
def test_topology_constraint_is_dropped_when_the_apiserver_gate_is_off(gang, profile):
    """Behaviour: GANG-TAS-003 (API server half), profile beta.

    Requirement: with TopologyAwareWorkloadScheduling off in kube-apiserver, a PodGroup created
    with ``schedulingConstraints`` MUST be accepted with the field silently dropped: it is absent
    from the create response and from the stored object.

    Scenario:
      1. (Only where the profile leaves the gate off in the API server.)
      2. Create a gang PodGroup with ``schedulingConstraints.topology = [{key: ...rack}]``.
      3. Neither the create response nor a read has ``schedulingConstraints``.
    """
    if profile.gate("TopologyAwareWorkloadScheduling"):
        pytest.skip(f"not applicable: TopologyAwareWorkloadScheduling is on in this cluster's kube-apiserver "
                    f"({profile.name}); the field is dropped only where it is off (the beta profile)")
    created = gang.pod_group("racked", min_count=2, topology_key="gangconf.io/rack")
    assert "schedulingConstraints" not in created["spec"], created["spec"]
    assert "schedulingConstraints" not in gang.get_pod_group("racked")["spec"]


@pytest.mark.conformance(id="GANG-TAS-003", profile="alpha")
def test_topology_constraint_is_ignored_by_a_scheduler_with_the_gate_off(nested_cluster, request, timeouts):
    """Behaviour: GANG-TAS-003 (scheduler half), profile alpha.

    Requirement: a scheduler with TopologyAwareWorkloadScheduling off MUST ignore a topology
    constraint the API server stored (its gate is on there): the gang is placed as if it had
    none, across domains.

    The run's cluster gives every component the profile's gates, so this check starts a second
    local control plane of the same profile whose scheduler under test (kube-scheduler, or the
    reference scheduler) has TopologyAwareWorkloadScheduling and CompositePodGroup (which needs
    it) off, and stops it at the end.

    Scenario:
      1. The second control plane; racks ``r1`` and ``r2`` there, each 2 nodes of 2 CPUs.
      2. PodGroup ``spread`` (gang, minCount 4, topology key = rack), which keeps its
         ``schedulingConstraints``, and 4 members of 2 CPUs: no rack holds them, the pool does.
      3. All 4 members are bound, in both racks.
    """
    nested = nested_cluster(scheduler_gates_off=["TopologyAwareWorkloadScheduling", "CompositePodGroup"])
    space = nested.workspace(request.node.name)
    rack = topology_key(space.pool, "rack")
    layout = {"r1": space.pool.add(2, NodeShape(cpu="2"), prefix="r1-", labels=[{rack: "r1"}] * 2),
              "r2": space.pool.add(2, NodeShape(cpu="2"), prefix="r2-", labels=[{rack: "r2"}] * 2)}
    created = space.gang.pod_group("spread", min_count=4, topology_key=rack)
    assert created["spec"].get("schedulingConstraints") == {"topology": [{"key": rack}]}, created["spec"]
    members = space.gang.pods("spread", 4, group="spread", cpu="2")
    state = space.recorder.eventually(lambda s: len(s.bound("spread")) == 4, timeout=timeouts.gang_scheduled,
                                      describe="all 4 members bound although no rack holds them")
    assert _labels_of(state, members, _domains(layout)) == {"r1", "r2"}, state.summary()


@pytest.mark.conformance(id="GANG-SCORE-001", profile="alpha")
def test_domain_that_fits_more_members_is_preferred(pool, gang, recorder, timeouts):
    """Behaviour: GANG-SCORE-001, profile alpha.

    Requirement: among feasible placements, PodGroupPodsCount MUST make the scheduler prefer the
    domain that takes more members, even when another domain would be packed tighter.

    Scenario:
      1. Domain ``d1``: one 2-CPU node (room for 2 members); domain ``d2``: one 4-CPU node (room
         for 3).
      2. 3 members of 1 CPU, then (once the scheduler has seen them) PodGroup ``more`` (gang,
         minCount 2, topology key = domain):
         both domains are feasible; ``d1`` would be fuller (MostAllocated 100 against 75) but takes
         only 2 members (PodGroupPodsCount 66 against 100).
      3. All 3 members are bound in ``d2``.
    """
    key = topology_key(pool, "domain")
    pool.add(1, NodeShape(cpu="2"), prefix="d1-", labels=[{key: "d1"}])
    (d2,) = pool.add(1, NodeShape(cpu="4"), prefix="d2-", labels=[{key: "d2"}])
    members = gang.pods("more", 3, group="more", cpu="1")
    scheduler_caught_up(gang, recorder, timeout=timeouts.scheduler_reacts)
    gang.pod_group("more", min_count=2, topology_key=key)
    state = recorder.eventually(lambda s: len(s.bound("more")) == 3, timeout=timeouts.gang_scheduled,
                                describe="all 3 members bound")
    assert {state.pods[n]["spec"]["nodeName"] for n in members} == {d2}, state.summary()


@pytest.mark.conformance(id="GANG-SCORE-001", profile="alpha")
def test_tighter_domain_is_preferred_when_both_fit_the_same_members(pool, gang, recorder, timeouts):
    """Behaviour: GANG-SCORE-001, profile alpha.

    Requirement: among feasible placements that take the same number of members, the
    NodeResourcesFit placement score (MostAllocated) MUST make the scheduler prefer the domain
    the group packs tighter.

    Scenario:
      1. Domain ``p1``: one 4-CPU node; domain ``p2``: one 8-CPU node.
      2. PodGroup ``tight`` (gang, minCount 2, topology key = domain) with 2 members of 2 CPUs:
         both domains take both members (PodGroupPodsCount 100 each); ``p1`` is full afterwards
         (MostAllocated 100 against 50).
      3. Both members are bound in ``p1``.
    """
    key = topology_key(pool, "domain")
    (p1,) = pool.add(1, NodeShape(cpu="4"), prefix="p1-", labels=[{key: "p1"}])
    pool.add(1, NodeShape(cpu="8"), prefix="p2-", labels=[{key: "p2"}])
    members = gang.pods("tight", 2, group="tight", cpu="2")
    gang.pod_group("tight", min_count=2, topology_key=key)
    state = recorder.eventually(lambda s: len(s.bound("tight")) == 2, timeout=timeouts.gang_scheduled,
                                describe="both members bound")
    assert {state.pods[n]["spec"]["nodeName"] for n in members} == {p1}, state.summary()


@pytest.mark.conformance(id="GANG-PREEMPT-006", profile="alpha")
def test_gang_with_a_topology_constraint_preempts_inside_one_domain(pool, gang, recorder, timeouts):
    """Behaviour: GANG-PREEMPT-006, profile alpha.

    Requirement: the catalogue leaves open whether workload-aware preemption runs for a PodGroup
    with scheduling constraints (1.36 refused it). v1.37.2 runs it: a higher-priority gang with a
    topology constraint that fits no domain MUST preempt lower-priority pods of one domain only,
    then be placed there as a whole; the lower-priority pods of the other domains MUST keep
    running.

    Scenario:
      1. Racks ``r1`` and ``r2``, each 2 nodes of 2 CPUs, filled by 4 single pods of 2 CPUs at a
         low priority.
      2. PodGroup ``hi`` (gang, minCount 2, topology key = rack, high priority) with 2 members of
         2 CPUs at the high priority.
      3. Both members are bound in one rack ``R``; the two low-priority pods of ``R`` are gone
         (preempted); the two of the other rack keep their nodes throughout.
    """
    rack = topology_key(pool, "rack")
    domains = {}
    for name in ("r1", "r2"):
        for node in pool.add(2, NodeShape(cpu="2"), prefix=f"{name}-", labels=[{rack: name}] * 2):
            domains[node] = name
    low = gang.priority_class("low", 100)
    high = gang.priority_class("high", 1000)
    victims = gang.pods("low", 4, cpu="2", priority_class=low)
    state = recorder.eventually(lambda s: len(s.bound(prefix="low-")) == 4, timeout=timeouts.gang_scheduled,
                                describe="the 4 low-priority pods bound")
    placed = {n: state.pods[n]["spec"]["nodeName"] for n in victims}
    since = recorder.mark()

    gang.pod_group("hi", min_count=2, priority_class=high, topology_key=rack)
    members = gang.pods("hi", 2, group="hi", cpu="2", priority_class=high)
    state = recorder.eventually(lambda s: len(s.bound("hi")) == 2, timeout=timeouts.gang_scheduled,
                                describe="the high-priority gang bound after preempting")
    homes = {domains[state.pods[n]["spec"]["nodeName"]] for n in members}
    assert len(homes) == 1, state.summary()
    (home,) = homes
    gone = [n for n in victims if domains[placed[n]] == home]
    kept = [n for n in victims if domains[placed[n]] != home]
    assert not any(n in state.pods for n in gone), state.summary()

    def lost(s) -> bool:
        return any((s.pods.get(n) or {}).get("spec", {}).get("nodeName") != placed[n] for n in kept)

    recorder.never(lost, window=timeouts.stays_pending, after=since,
                   describe=f"the low-priority pods outside rack {home} are never preempted")
