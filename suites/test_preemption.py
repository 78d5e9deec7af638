"""Workload-aware preemption: a gang preempting, and gangs as victims.

GANG-PREEMPT-006 (preemption for a gang with topology constraints) needs
TopologyAwareWorkloadScheduling, an alpha gate, and belongs to the alpha profile's checks.

Every test makes its own PriorityClasses (cluster-scoped, named after the run and the test,
deleted afterwards) and sizes its pool in GPUs (an extended resource), one GPU per pod, so
which pods have to go is exact. Victims are watched through the whole recording: a pod the
scheduler preempts first gets ``DisruptionTarget=True`` (reason ``PreemptionByScheduler``) and
is then deleted.

v1.37.2 facts these checks rely on, beyond the catalogue:

* A pod group's preemption (PodGroupPostFilter) places the group once with every
  lower-priority unit removed, then keeps that placement fixed while it gives units back, most
  important first: a unit stays only if every member still fits the node that placement gave
  it. So which units go depends on where the trial placement put the members; the importance
  checks below use one node, where it cannot vary.
* The verdict is appended to the PodGroup's message: ``pod group preemption: found a placement
  for podgroup, preempting <n> victims`` (n counts pods), ``pod group preemption: not eligible
  due to preemptionPolicy=Never.``, or, when the group does not fit even with every
  lower-priority unit gone, ``pod group preemption: <that placement's own verdict>``. In the last
  two cases v1.37.2 puts the DynamicResources plugin's ``deallocation and deletion of
  ResourceClaims completed`` before it; the checks look for the preemption part only.
"""

from __future__ import annotations

import time

import pytest

from fixtures import NodeShape, node_name, proven_never

LOW, MIDDLE, HIGH, TOP = 100, 500, 1000, 2000
BY_GROUP, BY_POD = "podgroup", "pod"
#: Where a test needs only GPUs to count, pods ask for little else.
CPU = "100m"


def _running(state, names) -> bool:
    return all(state.phase(n) == "Running" and state.pods[n]["spec"].get("nodeName") for n in names)


def _assert_preempted(state, victims, scheduler: str, by: str) -> None:
    """Each victim was marked DisruptionTarget by ``scheduler`` for a preemptor of kind ``by``, then deleted."""
    for name in victims:
        cond = state.disrupted.get(name)
        assert cond is not None, f"{name} was never marked DisruptionTarget\n{state.summary()}"
        assert (cond.get("reason"), cond.get("message")) == (
            "PreemptionByScheduler", f"{scheduler}: preempting to accommodate a higher priority {by}"), cond
        assert state.gone(name), f"{name} was marked but not deleted\n{state.summary()}"


def _untouched(keep: dict[str, str]):
    """A predicate: some pod of ``keep`` (name -> node) was disrupted, deleted or moved.

    For ``never(..., after=mark)`` with a mark taken once every pod of ``keep`` ran on its node.
    """
    def violated(s) -> bool:
        return any(n in s.disrupted or n in s.deleted or node_name(s.pods.get(n) or {}) != node
                   for n, node in keep.items())
    return violated


def _nodes(state, names) -> dict[str, str]:
    return {n: state.pods[n]["spec"]["nodeName"] for n in names}


def _check_victim_unit(pool, gang, recorder, timeouts, scheduler: str, mode: str, *, by: str) -> None:
    """GANG-PREEMPT-002/003's scenario: a 2-member low-priority gang with ``disruptionMode`` ``mode``,
    one member per 1-GPU node, then a high-priority preemptor of 1 GPU, a gang ``pre`` (``by`` a
    podgroup) or a plain pod ``solo`` (``by`` a pod); asserts the victim unit ``mode`` implies."""
    low, high = gang.priority_class("low", LOW), gang.priority_class("high", HIGH)
    pool.add(2, NodeShape(cpu="8", gpus=1))
    victims = gang.gang("victims", 2, gpus=1, cpu=CPU, priority_class=low, disruption=mode)
    state = recorder.eventually(lambda s: _running(s, victims), timeout=timeouts.gang_scheduled,
                                describe="both victims running, one per node")
    placed, since = _nodes(state, victims), recorder.mark()

    if by == BY_GROUP:
        gang.gang("pre", 1, gpus=1, cpu=CPU, priority_class=high)
    else:
        gang.pod("solo", gpus=1, cpu=CPU, priority_class=high)
    preemptor = "pre" if by == BY_GROUP else "solo"
    state = recorder.eventually(lambda s: s.bound(prefix=preemptor), timeout=timeouts.gang_scheduled,
                                describe="the preemptor bound")
    evicted = sorted(state.disrupted)
    if mode == "all":
        assert evicted == victims, f"disruptionMode all: expected {victims} preempted together\n{state.summary()}"
        _assert_preempted(state, victims, scheduler, by)
        return
    assert len(evicted) == 1 and evicted[0] in victims, f"disruptionMode single: expected 1 victim\n{state.summary()}"
    _assert_preempted(state, evicted, scheduler, by)
    kept = {n: node for n, node in placed.items() if n not in evicted}
    proven_never(gang, recorder, _untouched(kept), timeouts=timeouts, after=since,
                 describe="with disruptionMode single, the member not needed keeps running where it was")


@pytest.mark.conformance(id="GANG-PREEMPT-001", profile="beta")
def test_gang_preempts_lower_priority_pods_and_is_placed_when_it_outranks_them(
        pool, gang, recorder, timeouts, scheduler_under_test):
    """Behaviour: GANG-PREEMPT-001, profile beta.

    Requirement: a gang that does not fit MUST preempt lower-priority pods when that makes room
    for it, and only as many as needed: each victim MUST get ``DisruptionTarget=True``, reason
    ``PreemptionByScheduler``, message ``<scheduler>: preempting to accommodate a higher priority
    podgroup``, and then be deleted; while the victims go, the members MUST wait unbound with
    ``PodScheduled=False`` (Unschedulable) and a ``status.nominatedNodeName``, and the PodGroup
    MUST show ``PodGroupInitiallyScheduled=False``, reason ``Unschedulable``; a later cycle MUST
    place the whole gang (``True``/``Scheduled``). Pods it does not need to preempt MUST keep
    running where they are.

    v1.37.2 adds the preemption verdict to the waiting PodGroup's message: ``pod group
    preemption: found a placement for podgroup, preempting 2 victims``; checked as well.

    Scenario:
      1. PriorityClasses low (100) and high (1000); a pool of 2 nodes with 2 GPUs each.
      2. Four low-priority pods of 1 GPU fill the pool.
      3. Gang ``urgent`` (high, minCount 2) of 2 members of 1 GPU.
      4. A state is observed in which both members wait unbound, Unschedulable and nominated; the
         PodGroup is seen False/Unschedulable with the verdict above (on its own watch, so not
         necessarily in that state).
      5. Exactly 2 low-priority pods are marked and deleted; both members are bound and the
         PodGroup is True/Scheduled; the 2 other low-priority pods never move, then or over the
         ``stays_pending`` window.
    """
    low, high = gang.priority_class("low", LOW), gang.priority_class("high", HIGH)
    pool.add(2, NodeShape(cpu="8", gpus=2))
    workers = gang.pods("low", 4, gpus=1, cpu=CPU, priority_class=low)
    state = recorder.eventually(lambda s: _running(s, workers), timeout=timeouts.gang_scheduled,
                                describe="the 4 low-priority pods running")
    placed, since = _nodes(state, workers), recorder.mark()

    members = gang.gang("urgent", 2, gpus=1, cpu=CPU, priority_class=high)

    def waiting(s) -> bool:
        return not s.bound("urgent") and all((s.pod_condition(n) or {}).get("reason") == "Unschedulable"
                                             and (s.pods[n].get("status") or {}).get("nominatedNodeName")
                                             for n in members)

    recorder.eventually(waiting, timeout=timeouts.scheduler_reacts,
                        describe="both members waiting unbound, Unschedulable and nominated")
    # The PodGroup comes on a watch of its own, in no order with the pods': its condition may be
    # recorded only after the members are bound, so it is looked for over the whole recording.
    state = recorder.eventually(lambda s: (s.group_condition("urgent") or {}).get("reason") == "Unschedulable",
                                timeout=timeouts.scheduler_reacts, describe="the PodGroup Unschedulable")
    assert state.group_condition("urgent")["status"] == "False", state.summary()
    message = state.group_condition("urgent")["message"]
    assert "pod group preemption: found a placement for podgroup, preempting 2 victims" in message, message

    state = recorder.eventually(
        lambda s: len(s.bound("urgent")) == 2 and (s.group_condition("urgent") or {}).get("status") == "True",
        timeout=timeouts.gang_scheduled, describe="the whole gang bound and the PodGroup Scheduled")
    assert state.group_condition("urgent")["reason"] == "Scheduled", state.summary()
    victims = sorted(state.disrupted)
    assert len(victims) == 2 and set(victims) <= set(workers), f"expected 2 of {workers} preempted\n{state.summary()}"
    _assert_preempted(state, victims, scheduler_under_test.name, BY_GROUP)
    survivors = {n: node for n, node in placed.items() if n not in victims}
    proven_never(gang, recorder, _untouched(survivors), timeouts=timeouts, after=since,
                 describe="the low-priority pods the gang did not need keep running where they were")


@pytest.mark.conformance(id="GANG-PREEMPT-001", profile="beta")
def test_no_pod_is_evicted_when_the_gang_cannot_fit_even_after_preemption(pool, gang, recorder, timeouts):
    """Behaviour: GANG-PREEMPT-001 (no evictions when the gang cannot fit anyway), profile beta.

    Requirement: when the gang would not fit even with every lower-priority pod gone, the
    scheduler MUST NOT preempt anything: no pod is marked or deleted, no member is nominated or
    bound, and the PodGroup reports ``Unschedulable``.

    v1.37.2's PodGroup message carries the verdict of the placement it tried with every
    lower-priority pod removed: ``pod group preemption: minCount (5) cannot be satisfied: 4
    scheduled, 0 remaining``; checked as well.

    Scenario:
      1. PriorityClasses low (100) and high (1000); a pool of 2 nodes with 2 GPUs each, filled by
         four low-priority pods of 1 GPU.
      2. Gang ``huge`` (high, minCount 5) of 5 members of 1 GPU: more than the pool has.
      3. The PodGroup reports Unschedulable with the verdict above.
      4. Over the ``stays_pending`` window no low-priority pod is marked, deleted or moved, and no
         member is nominated or bound.
    """
    low, high = gang.priority_class("low", LOW), gang.priority_class("high", HIGH)
    pool.add(2, NodeShape(cpu="8", gpus=2))
    workers = gang.pods("low", 4, gpus=1, cpu=CPU, priority_class=low)
    state = recorder.eventually(lambda s: _running(s, workers), timeout=timeouts.gang_scheduled,
                                describe="the 4 low-priority pods running")
    placed, since = _nodes(state, workers), recorder.mark()

    members = gang.gang("huge", 5, gpus=1, cpu=CPU, priority_class=high)
    state = recorder.eventually(lambda s: "pod group preemption" in ((s.group_condition("huge") or {}).get("message")
                                                                     or ""),
                                timeout=timeouts.scheduler_reacts, describe="the PodGroup reports its preemption attempt")
    group = state.group_condition("huge")
    assert (group["status"], group["reason"]) == ("False", "Unschedulable"), group
    assert "pod group preemption: minCount (5) cannot be satisfied: 4 scheduled, 0 remaining" in group["message"], group

    untouched = _untouched(placed)
    recorder.never(lambda s: untouched(s) or s.bound("huge") or any(n in s.nominated for n in members),
                   window=timeouts.stays_pending, after=since,
                   describe="nothing is preempted, nominated or bound for a gang that cannot fit anyway")


@pytest.mark.conformance(id="GANG-PREEMPT-002", profile="beta", tolerates="DEV-VICTIM-DISRUPTIONTARGET")
@pytest.mark.parametrize("mode", ["all", "single"])
def test_victim_unit_follows_disruption_mode_when_a_pod_group_preempts(pool, gang, recorder, timeouts,
                                                                       scheduler_under_test, mode):
    """Behaviour: GANG-PREEMPT-002, profile beta.

    Requirement: when a pod group preempts members of a lower-priority PodGroup, the victim unit
    MUST follow the victim PodGroup's ``disruptionMode``: with ``all``, every scheduled member of
    that PodGroup, on every node, MUST be preempted together; with ``single``, each member is its
    own unit and exactly as many as needed (here one) MUST be preempted, the other keeping its
    node.

    On the catalogue's open question whether the victim PodGroup itself gets a ``DisruptionTarget``
    condition: v1.37.2 writes none (with ``all``, after both members were preempted, the PodGroup
    still has only ``PodGroupInitiallyScheduled``); only the pods get it. The check asserts neither:
    it tolerates the deviation DEV-VICTIM-DISRUPTIONTARGET (``suites/test_deviations.py``).

    Scenario:
      1. PriorityClasses low (100) and high (1000); a pool of 2 nodes with 1 GPU each.
      2. Gang ``victims`` (low, minCount 2, disruptionMode ``all`` or ``single``) of 2 members of
         1 GPU: one runs on each node.
      3. Gang ``pre`` (high, minCount 1) of 1 member of 1 GPU.
      4. ``all``: both victims are marked (by a podgroup) and deleted; ``single``: exactly one is,
         and the other never moves, then or over the ``stays_pending`` window.
      5. ``pre-0`` is bound.
    """
    _check_victim_unit(pool, gang, recorder, timeouts, scheduler_under_test.name, mode, by=BY_GROUP)


@pytest.mark.conformance(id="GANG-PREEMPT-002", profile="beta")
def test_victims_are_judged_by_their_podgroups_priority_when_disruption_is_single(
        pool, gang, recorder, timeouts, scheduler_under_test):
    """Behaviour: GANG-PREEMPT-002 (a victim's priority is its PodGroup's), profile beta.

    Requirement: a pod that belongs to a PodGroup MUST be judged as a victim by the PodGroup's
    priority, not its own, also with ``disruptionMode: single``: members whose own priority is
    above the preemptor's but whose PodGroup's is below it MUST be preempted (1.36 used the pods'
    own priority and would preempt nothing here).

    Members with a priority other than their PodGroup's cannot be scheduled (GANG-PRIORITY-001),
    so they are created already bound (``spec.nodeName``), as a controller or another scheduler
    may have placed them.

    Scenario:
      1. PriorityClasses low (100), high (1000) and top (2000); a pool of 2 nodes with 1 GPU each.
      2. PodGroup ``victims`` (low, minCount 2, ``single``) and 2 members of class top, one bound to
         each node.
      3. Gang ``pre`` (high, minCount 1) of 1 member of 1 GPU.
      4. Exactly one victim is marked (by a podgroup) and deleted, and ``pre-0`` is bound.
    """
    low, high, top = (gang.priority_class(n, v) for n, v in (("low", LOW), ("high", HIGH), ("top", TOP)))
    nodes = pool.add(2, NodeShape(cpu="8", gpus=1))
    gang.pod_group("victims", min_count=2, priority_class=low, disruption="single")
    victims = [f"victims-{i}" for i in range(2)]
    for name, node in zip(victims, nodes):
        gang.pod(name, group="victims", gpus=1, cpu=CPU, priority_class=top, node_name=node)
    state = recorder.eventually(lambda s: _running(s, victims), timeout=timeouts.gang_scheduled,
                                describe="both victims running")
    assert all(state.pods[n]["spec"]["priority"] == gang.priority_value(top) for n in victims), state.summary()

    gang.gang("pre", 1, gpus=1, cpu=CPU, priority_class=high)
    state = recorder.eventually(lambda s: s.bound("pre"), timeout=timeouts.gang_scheduled,
                                describe="the preemptor bound by preempting a member of the low-priority PodGroup")
    evicted = sorted(state.disrupted)
    assert len(evicted) == 1 and evicted[0] in victims, state.summary()
    _assert_preempted(state, evicted, scheduler_under_test.name, BY_GROUP)


@pytest.mark.conformance(id="GANG-PREEMPT-003", profile="beta")
@pytest.mark.parametrize("mode", ["all", "single"])
def test_victim_unit_follows_disruption_mode_when_a_single_pod_preempts(pool, gang, recorder, timeouts,
                                                                        scheduler_under_test, mode):
    """Behaviour: GANG-PREEMPT-003, profile beta.

    Requirement: a higher-priority pod without a PodGroup that preempts members of a PodGroup
    MUST honour the PodGroup's ``disruptionMode`` (the 1.36 hole, closed in 1.37): with ``all``
    the PodGroup is one atomic victim and every scheduled member, also the one on another node,
    MUST be preempted; with ``single`` exactly the member it needs MUST be, the other keeping its
    node.

    Scenario:
      1. PriorityClasses low (100) and high (1000); a pool of 2 nodes with 1 GPU each.
      2. Gang ``victims`` (low, minCount 2, ``all`` or ``single``) of 2 members: one per node.
      3. Pod ``solo`` (high, no PodGroup) of 1 GPU.
      4. ``all``: both victims are marked (by a pod) and deleted; ``single``: exactly one is, and
         the other never moves, then or over the ``stays_pending`` window.
      5. ``solo`` is bound.
    """
    _check_victim_unit(pool, gang, recorder, timeouts, scheduler_under_test.name, mode, by=BY_POD)


@pytest.mark.conformance(id="GANG-PREEMPT-003", profile="beta")
def test_single_pod_judges_victims_by_their_podgroups_priority(pool, gang, recorder, timeouts,
                                                               scheduler_under_test):
    """Behaviour: GANG-PREEMPT-003 (the PodGroup's priority for pod-by-pod preemption), profile beta.

    Requirement: a pod without a PodGroup that preempts MUST judge a victim that belongs to a
    PodGroup by the PodGroup's priority, not the pod's own (1.36 used the pod's own).

    Scenario:
      1. PriorityClasses low (100), high (1000) and top (2000); a pool of 1 node with 1 GPU.
      2. PodGroup ``victims`` (low, minCount 1) and its member ``victims-0`` of class top, created
         bound to the node (its priority disagrees with its PodGroup's, so no scheduler would
         place it: GANG-PRIORITY-001).
      3. Pod ``solo`` (high, no PodGroup) of 1 GPU.
      4. ``victims-0`` is marked (by a pod) and deleted, and ``solo`` is bound.
    """
    low, high, top = (gang.priority_class(n, v) for n, v in (("low", LOW), ("high", HIGH), ("top", TOP)))
    (node,) = pool.add(1, NodeShape(cpu="8", gpus=1))
    gang.pod_group("victims", min_count=1, priority_class=low)
    gang.pod("victims-0", group="victims", gpus=1, cpu=CPU, priority_class=top, node_name=node)
    recorder.eventually(lambda s: _running(s, ["victims-0"]), timeout=timeouts.gang_scheduled,
                        describe="the victim running")

    gang.pod("solo", gpus=1, cpu=CPU, priority_class=high)
    state = recorder.eventually(lambda s: s.bound(prefix="solo"), timeout=timeouts.gang_scheduled,
                                describe="solo bound by preempting a member of the low-priority PodGroup")
    assert sorted(state.disrupted) == ["victims-0"], state.summary()
    _assert_preempted(state, ["victims-0"], scheduler_under_test.name, BY_POD)


def _start_second(state, name: str) -> str:
    """``status.startTime`` of pod ``name`` (one-second resolution), or '' while it has none."""
    return (state.pods.get(name, {}).get("status") or {}).get("startTime") or ""


def _later_starter(gang, recorder, timeouts, first: str, priority_class: str) -> str:
    """Create a pod that starts in a later second than pod ``first``; return its name.

    Start times have a resolution of one second, and two pods started in the same second are
    equally old. A pod that starts in the same second as ``first`` is deleted and another one is
    created, until one starts later; the tries end at the ``scheduler_reacts`` deadline.
    """
    since = recorder.mark()
    state = recorder.eventually(lambda s: _start_second(s, first), timeout=timeouts.gang_scheduled,
                                describe=f"{first} started")
    started = _start_second(state, first)
    deadline = time.monotonic() + timeouts.scheduler_reacts
    attempt = 0
    while time.monotonic() < deadline:
        attempt += 1
        name = f"later-{attempt}"
        gang.pod(name, gpus=1, cpu=CPU, priority_class=priority_class)
        state = recorder.eventually(lambda s: _running(s, [name]) and _start_second(s, name),
                                    timeout=timeouts.gang_scheduled, after=since, describe=f"{name} started")
        if _start_second(state, name) > started:
            return name
        gang.delete_pod(name)
        recorder.eventually(lambda s: name not in s.pods, timeout=timeouts.cleanup, after=since,
                            describe=f"{name}, started in the same second as {first}, is gone")
    raise AssertionError(f"no pod started in a later second than {first} ({started}) in {attempt} tries")


#: The scenarios of GANG-PREEMPT-004: which unit each one expects to be preempted.
IMPORTANCE = {
    "lower-priority-first": "the lower-priority of two single pods",
    "single-pod-before-podgroup": "a pod without a PodGroup before a member of a PodGroup of the same priority",
    "smaller-group-before-larger": "the smaller of two disruptionMode-all PodGroups of the same priority",
    "later-start-first": "the later-started of two single pods of the same priority",
}


@pytest.mark.conformance(id="GANG-PREEMPT-004", profile="beta")
@pytest.mark.parametrize("scenario", sorted(IMPORTANCE))
def test_least_important_unit_is_preempted_when_a_gang_needs_room(pool, gang, recorder, timeouts,
                                                                   scheduler_under_test, scenario):
    """Behaviour: GANG-PREEMPT-004, profile beta.

    Requirement: among lower-priority units that could make room, the scheduler MUST keep the more
    important ones (reprieve them, most important first) and preempt the least important: a lower
    priority first; then a pod without a PodGroup before a PodGroup's member (v1.37.2 ranks a member
    of a ``single`` PodGroup as a PodGroup unit too); then the smaller PodGroup before the larger;
    then the later start before the earlier.

    Each scenario puts every victim on one node with one GPU too few, so the preemptor can only go
    there and exactly one unit has to leave: which one is then decided by importance alone (with
    several nodes, v1.37.2's choice also depends on where its trial placement put the preemptor;
    see the module's docstring).

    Scenario (one node; every pod takes 1 GPU; the preemptor is gang ``pre``, high (1000), minCount 1,
    1 member):
      * lower-priority-first: 2 GPUs; pods ``keep`` (500) and ``evict`` (100).
      * single-pod-before-podgroup: 2 GPUs; gang ``keep`` (100, minCount 1, 1 member) and pod
        ``evict`` (100).
      * smaller-group-before-larger: 3 GPUs; gang ``keep`` (100, ``all``, 2 members) and gang
        ``evict`` (100, ``all``, 1 member).
      * later-start-first: 2 GPUs; pod ``keep`` (100), then a pod (100) that starts in a later second.

    In each, only the expected victim is marked (by a podgroup) and deleted, ``pre-0`` is bound,
    and the other pods never move over the ``stays_pending`` window.
    """
    low, high = gang.priority_class("low", LOW), gang.priority_class("high", HIGH)
    gpus = 3 if scenario == "smaller-group-before-larger" else 2
    pool.add(1, NodeShape(cpu="8", gpus=gpus))
    if scenario == "lower-priority-first":
        middle = gang.priority_class("middle", MIDDLE)
        gang.pod("keep", gpus=1, cpu=CPU, priority_class=middle)
        gang.pod("evict", gpus=1, cpu=CPU, priority_class=low)
        keep, evict = ["keep"], ["evict"]
    elif scenario == "single-pod-before-podgroup":
        keep = gang.gang("keep", 1, gpus=1, cpu=CPU, priority_class=low)
        gang.pod("evict", gpus=1, cpu=CPU, priority_class=low)
        evict = ["evict"]
    elif scenario == "smaller-group-before-larger":
        keep = gang.gang("keep", 2, gpus=1, cpu=CPU, priority_class=low, disruption="all")
        evict = gang.gang("evict", 1, gpus=1, cpu=CPU, priority_class=low, disruption="all")
    else:
        gang.pod("keep", gpus=1, cpu=CPU, priority_class=low)
        keep, evict = ["keep"], [_later_starter(gang, recorder, timeouts, "keep", low)]
    state = recorder.eventually(lambda s: _running(s, keep + evict), timeout=timeouts.gang_scheduled,
                                describe="every lower-priority pod running")
    placed, since = _nodes(state, keep), recorder.mark()

    gang.gang("pre", 1, gpus=1, cpu=CPU, priority_class=high)
    state = recorder.eventually(lambda s: s.bound("pre"), timeout=timeouts.gang_scheduled,
                                describe="the preemptor bound")
    assert sorted(state.disrupted) == sorted(evict), (
        f"expected {IMPORTANCE[scenario]} ({evict}) to be preempted, got {sorted(state.disrupted)}\n{state.summary()}")
    _assert_preempted(state, evict, scheduler_under_test.name, BY_GROUP)
    proven_never(gang, recorder, _untouched(placed), timeouts=timeouts, after=since,
                 describe=f"the more important units keep running ({', '.join(keep)})")


@pytest.mark.conformance(id="GANG-PREEMPT-005", profile="beta")
def test_gang_does_not_preempt_when_its_members_preemption_policy_is_never(pool, gang, recorder, timeouts, cluster):
    """Behaviour: GANG-PREEMPT-005, profile beta (PodGroupPreemptionPolicy off).

    Requirement: with PodGroupPreemptionPolicy off, a gang whose members have ``preemptionPolicy:
    Never`` MUST NOT preempt: the lower-priority pods keep running, no member is nominated or
    bound, and the PodGroup reports ``Unschedulable``.

    v1.37.2 differs from the catalogue's wording "does not preempt if *any* member has Never":
    members that disagree on the policy are refused before preemption is considered
    (GANG-PREEMPTPOLICY-001), so a gang that gets this far has the same policy on every member.
    The PodGroup's message carries ``pod group preemption: not eligible due to
    preemptionPolicy=Never.``; checked as well. Under a profile with the gate on (the alpha
    profile runs the beta checks too) the PodGroup also spells out ``preemptionPolicy: Never``, as
    its members must then agree with it, and the outcome is the same.

    Scenario:
      1. PriorityClasses low (100) and polite (1000, ``preemptionPolicy: Never``); a pool of 1 node
         with 2 GPUs, filled by two low-priority pods of 1 GPU.
      2. Gang ``polite`` (class polite, minCount 2) of 2 members of 1 GPU.
      3. The PodGroup reports Unschedulable with the verdict above.
      4. Over the ``stays_pending`` window no low-priority pod is marked, deleted or moved, and no
         member is nominated or bound.
    """
    low = gang.priority_class("low", LOW)
    polite = gang.priority_class("polite", HIGH, preemption_policy="Never")
    pool.add(1, NodeShape(cpu="8", gpus=2))
    workers = gang.pods("low", 2, gpus=1, cpu=CPU, priority_class=low)
    state = recorder.eventually(lambda s: _running(s, workers), timeout=timeouts.gang_scheduled,
                                describe="the 2 low-priority pods running")
    placed, since = _nodes(state, workers), recorder.mark()

    gang.pod_group("polite", min_count=2, priority_class=polite,
                   preemption_policy="Never" if cluster.profile.gate("PodGroupPreemptionPolicy") else None)
    members = gang.pods("polite", 2, group="polite", gpus=1, cpu=CPU, priority_class=polite)
    # The watches of pods and of PodGroups are separate streams: wait for the members too.
    state = recorder.eventually(lambda s: all(n in s.pods for n in members) and "pod group preemption" in (
                                    (s.group_condition("polite") or {}).get("message") or ""),
                                timeout=timeouts.scheduler_reacts, describe="the PodGroup reports its preemption verdict")
    group = state.group_condition("polite")
    assert (group["status"], group["reason"]) == ("False", "Unschedulable"), group
    assert "pod group preemption: not eligible due to preemptionPolicy=Never." in group["message"], group
    assert all(state.pods[n]["spec"].get("preemptionPolicy") == "Never" for n in members), state.summary()

    untouched = _untouched(placed)
    recorder.never(lambda s: untouched(s) or s.bound("polite") or any(n in s.nominated for n in members),
                   window=timeouts.stays_pending, after=since,
                   describe="a gang whose members may not preempt leaves the lower-priority pods alone")
