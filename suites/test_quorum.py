"""The PreEnqueue quorum gate: a gang is not tried until minCount members exist."""

from __future__ import annotations

import pytest

from fixtures import NodeShape, node_name, proven_never, scheduler_caught_up


@pytest.mark.conformance(id="GANG-QUORUM-001", profile="beta")
def test_gang_stays_pending_when_fewer_than_min_count_members_exist(pool, gang, recorder, timeouts):
    """Behaviour: GANG-QUORUM-001, profile beta.

    Requirement: while a gang PodGroup has fewer member pods than ``minCount``, the scheduler MUST
    NOT bind any of them, even though every one would fit, and MUST NOT try them at all: no
    PodScheduled condition, no FailedScheduling event, no ``PodGroupInitiallyScheduled`` condition.

    Scenario:
      1. A pool of 4 nodes with room for every pod.
      2. A gang PodGroup with minCount 4, and 3 member pods.
      3. Over the ``stays_pending`` window: no member is ever bound, none is ever attempted, and
         the PodGroup never gets a condition.
    """
    pool.add(4, NodeShape(cpu="4"))
    gang.pod_group("trainer", min_count=4)
    members = gang.pods("trainer", 3, group="trainer", cpu="1")

    recorder.eventually(lambda s: all(n in s.pods for n in members), timeout=timeouts.observe,
                        describe="the 3 members are recorded")
    proven_never(gang, recorder, lambda s: s.bound("trainer"), timeouts=timeouts,
                 describe="no member of a gang below quorum is bound")
    state = recorder.current()
    assert not state.touched(members), state.summary()
    assert state.group_condition("trainer") is None, state.summary()


@pytest.mark.conformance(id="GANG-QUORUM-002", profile="beta")
def test_gang_is_scheduled_when_the_last_member_arrives(pool, gang, recorder, timeouts):
    """Behaviour: GANG-QUORUM-002, profile beta.

    Requirement: when the member that completes the quorum is created, the scheduler MUST evaluate
    the whole group and bind every member that fits; before that, none.

    Scenario:
      1. A pool of 4 nodes; a gang PodGroup with minCount 4; 3 members.
      2. Over the ``stays_pending`` window nothing is bound.
      3. Create the 4th member: all 4 are bound, and the PodGroup reports
         ``PodGroupInitiallyScheduled=True`` with reason ``Scheduled``.
    """
    pool.add(4, NodeShape(cpu="4"))
    gang.pod_group("trainer", min_count=4)
    gang.pods("trainer", 3, group="trainer", cpu="1")
    proven_never(gang, recorder, lambda s: s.bound("trainer"), timeouts=timeouts,
                 describe="no member is bound before the quorum is reached")

    gang.pod("trainer-3", group="trainer", cpu="1")
    state = recorder.eventually(lambda s: len(s.bound("trainer")) == 4, timeout=timeouts.gang_scheduled,
                                describe="all 4 members bound once the 4th exists")
    state = recorder.eventually(
        lambda s: (s.group_condition("trainer") or {}).get("status") == "True", timeout=timeouts.scheduler_reacts,
        describe="PodGroupInitiallyScheduled=True on the PodGroup")
    cond = state.group_condition("trainer")
    assert cond["reason"] == "Scheduled", cond


@pytest.mark.conformance(id="GANG-QUORUM-003", profile="beta")
def test_pods_wait_untouched_when_their_podgroup_does_not_exist(pool, gang, recorder, timeouts):
    """Behaviour: GANG-QUORUM-003, profile beta.

    Requirement: pods whose ``spec.schedulingGroup.podGroupName`` names a PodGroup that does not
    exist MUST stay pending without any status change from the scheduler; creating the PodGroup
    MUST release them.

    Scenario:
      1. A pool of 3 nodes; 3 pods in group ``late``, which does not exist yet.
      2. Over the ``stays_pending`` window: none is bound, attempted or given a condition.
      3. Create PodGroup ``late`` (gang, minCount 3): all 3 pods are bound.
    """
    pool.add(3, NodeShape(cpu="4"))
    members = gang.pods("late", 3, group="late", cpu="1")
    recorder.eventually(lambda s: all(n in s.pods for n in members), timeout=timeouts.observe,
                        describe="the 3 pods are recorded")
    proven_never(gang, recorder, lambda s: s.touched(members), timeouts=timeouts,
                 describe="pods of a missing PodGroup are neither bound nor attempted")

    gang.pod_group("late", min_count=3)
    recorder.eventually(lambda s: len(s.bound("late")) == 3, timeout=timeouts.gang_scheduled,
                        describe="all 3 pods bound once their PodGroup exists")


@pytest.mark.conformance(id="GANG-QUORUM-004", profile="beta")
def test_basic_group_members_are_scheduled_without_waiting_for_others(pool, gang, recorder, timeouts):
    """Behaviour: GANG-QUORUM-004, profile beta.

    Requirement: a ``basic`` PodGroup has no quorum: as soon as its PodGroup exists, the scheduler
    MUST try and bind a member even when it is the only member there is; each later member MUST be
    bound on its own as it arrives.

    Scenario:
      1. A pool of 2 nodes; a basic PodGroup ``solo`` and a single member: it is bound, and the
         PodGroup reports ``PodGroupInitiallyScheduled=True`` with reason ``Scheduled``.
      2. A second member is created later: it is bound as well, the first keeps its node.
    """
    pool.add(2, NodeShape(cpu="4"))
    gang.pod_group("solo")
    gang.pod("solo-0", group="solo", cpu="1")
    state = recorder.eventually(lambda s: len(s.bound("solo")) == 1, timeout=timeouts.gang_scheduled,
                                describe="the only member of a basic group is bound")
    first_node = state.pods["solo-0"]["spec"]["nodeName"]
    state = recorder.eventually(lambda s: (s.group_condition("solo") or {}).get("status") == "True",
                                timeout=timeouts.scheduler_reacts,
                                describe="PodGroupInitiallyScheduled=True on the basic group")
    assert state.group_condition("solo")["reason"] == "Scheduled", state.summary()

    gang.pod("solo-1", group="solo", cpu="1")
    state = recorder.eventually(lambda s: len(s.bound("solo")) == 2, timeout=timeouts.gang_scheduled,
                                describe="the later member of the basic group is bound too")
    assert state.pods["solo-0"]["spec"]["nodeName"] == first_node, state.summary()


@pytest.mark.conformance(id="GANG-QUORUM-005", profile="beta")
@pytest.mark.parametrize("policy", ["gang", "basic"])
def test_one_gated_member_holds_the_whole_group(pool, gang, recorder, timeouts, policy):
    """Behaviour: GANG-QUORUM-005, profile beta.

    Requirement: while any member of a PodGroup (gang or basic) carries a scheduling gate, the
    scheduler MUST NOT bind any member, not even the ungated ones that would fit and would meet
    ``minCount`` without the gated one. Removing the gate MUST release the whole group.

    Scenario:
      1. A pool of 3 nodes with room for every member.
      2. PodGroup ``held`` (gang with minCount 2, or basic) with 3 members; ``held-2``, created
         first, carries the scheduling gate ``gangconf.io/hold``.
      3. Over the ``stays_pending`` window no member is bound.
      4. Remove the gate: all 3 members are bound.
    """
    pool.add(3, NodeShape(cpu="4"))
    gang.pod_group("held", min_count=2 if policy == "gang" else None)
    # The gated member comes first: ungated ones created before it could be scheduled, rightly.
    gang.pod("held-2", group="held", cpu="1", scheduling_gates=["gangconf.io/hold"])
    gang.pods("held", 2, group="held", cpu="1")
    recorder.eventually(lambda s: len(s.members("held")) == 3, timeout=timeouts.observe,
                        describe="the 3 members are recorded")
    proven_never(gang, recorder, lambda s: s.bound("held"), timeouts=timeouts,
                 describe=f"no member of a {policy} group with a gated member is bound")

    gang.remove_scheduling_gates("held-2")
    recorder.eventually(lambda s: len(s.bound("held")) == 3, timeout=timeouts.gang_scheduled,
                        describe="all 3 members bound once the gate is removed")


@pytest.mark.conformance(id="GANG-QUORUM-005", profile="beta")
def test_gated_member_added_to_a_waiting_gang_holds_it(pool, gang, recorder, timeouts):
    """Behaviour: GANG-QUORUM-005, profile beta.

    Requirement: a gated member added to a group that already waits in the queue (here: after a
    failed cycle) MUST gate the whole group: when room appears, the scheduler MUST NOT bind any
    member until the gate is removed.

    Scenario:
      1. A pool of 1 node with 2 CPUs; gang ``wait`` with minCount 2 and 2 members of 2 CPUs:
         the cycle fails (the PodGroup reports Unschedulable).
      2. Add a gated member ``wait-2`` and wait until the scheduler has seen it (the nodes come on
         another watch, in no order with the pod's: :mod:`fixtures.barrier`), then 2 more nodes:
         now all 3 members would fit.
      3. Over the ``stays_pending`` window no member is bound.
      4. Remove the gate: all 3 members are bound.
    """
    pool.add(1, NodeShape(cpu="2"))
    gang.gang("wait", 2, cpu="2")
    recorder.eventually(lambda s: (s.group_condition("wait") or {}).get("status") == "False",
                        timeout=timeouts.scheduler_reacts, describe="the gang's first cycle fails")
    gang.pod("wait-2", group="wait", cpu="2", scheduling_gates=["gangconf.io/hold"])
    scheduler_caught_up(gang, recorder, timeout=timeouts.scheduler_reacts)
    pool.add(2, NodeShape(cpu="2"))
    recorder.never(lambda s: s.bound("wait"), window=timeouts.stays_pending,
                   describe="no member is bound while the newly added member is gated")

    gang.remove_scheduling_gates("wait-2")
    recorder.eventually(lambda s: len(s.bound("wait")) == 3, timeout=timeouts.gang_scheduled,
                        describe="all 3 members bound once the gate is removed")


@pytest.mark.conformance(id="GANG-QUORUM-006", profile="beta")
def test_gated_member_added_to_a_running_basic_group_holds_its_unscheduled_members(pool, gang, recorder, timeouts):
    """Behaviour: GANG-QUORUM-006, profile beta.

    Requirement: a gated member added to a basic PodGroup whose first member already runs MUST
    hold the group's unscheduled members: when room appears, the scheduler MUST NOT bind them
    until the gate is removed, and MUST leave the running member where it is.
    (test/integration/scheduler/podgroup/queueing/queueing_test.go, ``TestPodGroupQueueing``,
    "Basic pod group in active queue becomes gated when a new gated member pod is added"; that
    test ungates at once, this one also watches the held members while room is there.)

    Scenario:
      1. A pool of 1 node with room for 1 member; basic PodGroup ``b``; ``b-0`` is bound.
      2. ``b-1``: no room, the scheduler reports it unschedulable.
      3. ``b-2`` with the scheduling gate ``gangconf.io/hold``; once the scheduler has seen it,
         a node with room for both.
      4. Over the ``stays_pending`` window ``b-1`` and ``b-2`` are not bound, ``b-0`` stays put.
      5. Remove the gate: ``b-1`` and ``b-2`` are bound.
    """
    (first,) = pool.add(1, NodeShape(cpu="1"))
    gang.pod_group("b", min_count=None)
    gang.pod("b-0", group="b", cpu="1")
    recorder.eventually(lambda s: s.bound_count("b") == 1, timeout=timeouts.gang_scheduled, describe="b-0 bound")
    gang.pod("b-1", group="b", cpu="1")
    recorder.eventually(lambda s: (s.pod_condition("b-1") or {}).get("status") == "False",
                        timeout=timeouts.scheduler_reacts, describe="b-1 reported unschedulable (no room)")
    gang.pod("b-2", group="b", cpu="1", scheduling_gates=["gangconf.io/hold"])
    scheduler_caught_up(gang, recorder, timeout=timeouts.scheduler_reacts)
    pool.add(1, NodeShape(cpu="2"))
    recorder.never(lambda s: s.bound_count("b") > 1, window=timeouts.stays_pending,
                   describe="b-1 or b-2 bound while b-2 is gated")
    state = recorder.current()
    assert node_name(state.pods["b-0"]) == first, state.summary()

    gang.remove_scheduling_gates("b-2")
    state = recorder.eventually(lambda s: len(s.bound("b")) == 3, timeout=timeouts.gang_scheduled,
                                describe="b-1 and b-2 bound once the gate is removed")
    assert node_name(state.pods["b-0"]) == first, state.summary()


@pytest.mark.conformance(id="GANG-NS-001", profile="beta")
def test_a_member_of_a_same_named_podgroup_in_another_namespace_does_not_count(pool, gang, recorder, neighbour,
                                                                                 timeouts):
    """Behaviour: GANG-NS-001, profile beta.

    Requirement: a PodGroup is namespaced: a pod counts toward, and releases, only the PodGroup of
    its name in its own namespace. A member of a same-named PodGroup in another namespace MUST NOT
    complete a gang's quorum, and completing one namespace's gang MUST NOT release the other's.
    (pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go,
    ``Test_isSchedulableAfterPodAdded``, "add a newPod which doesn't match the pod's namespace".)

    Scenario:
      1. A pool of 4 nodes with room for every pod; namespaces A (the test's) and B (its
         neighbour), each with PodGroup ``crew`` (gang, minCount 2).
      2. One member of ``crew`` in A and one in B: two members of a ``crew``, but one per namespace.
         Over the ``stays_pending`` window neither is bound or tried.
      3. A second member in A: A's gang is bound whole; B's one member stays untried.
    """
    pool.add(4, NodeShape(cpu="4"))
    gang.pod_group("crew", min_count=2)
    neighbour.gang.pod_group("crew", min_count=2)
    (ours,) = gang.pods("crew", 1, group="crew", cpu="1")
    (theirs,) = neighbour.gang.pods("crew", 1, group="crew", cpu="1")

    proven_never(gang, recorder, lambda s: s.touched([ours]), timeouts=timeouts,
                 describe="A's one member is tried although its gang has 1 of 2 members")
    state = neighbour.recorder.current()
    assert not state.touched([theirs]), state.summary()

    gang.pod("crew-1", group="crew", cpu="1")
    recorder.eventually(lambda s: len(s.bound("crew")) == 2, timeout=timeouts.gang_scheduled,
                        describe="A's gang bound whole once its own second member exists")
    scheduler_caught_up(neighbour.gang, neighbour.recorder, timeout=timeouts.scheduler_reacts)
    state = neighbour.recorder.current()
    assert not state.touched([theirs]), state.summary()
