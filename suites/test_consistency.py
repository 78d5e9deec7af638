"""Consistency of a PodGroup's members: one scheduler, one priority, one preemption policy.

The API server accepts members that disagree (validation does not compare pods with each other
or with their PodGroup); the scheduler refuses to schedule such a group at all. Each failed
attempt writes ``PodScheduled=False``, reason ``SchedulerError``, on every queued member and
``PodGroupInitiallyScheduled=False``, reason ``SchedulerError``, on the PodGroup, with the same
text, and the group is tried again after backoff (the scheduler's ``podInitialBackoffSeconds``;
the wait for the retry covers the configured value: :meth:`fixtures.timeouts.Timeouts.after_backoff`).
"""

from __future__ import annotations

import pytest

from fixtures import NodeShape, Timeouts, proven_never

PREEMPTION_POLICY_GATE = "PodGroupPreemptionPolicy"


def _refused_and_retried(recorder, timeouts: Timeouts, group: str, members: list[str], describe: str):
    """Wait until every member has reported a SchedulerError twice and the PodGroup once; return that state."""
    def refused(s) -> bool:
        return (all((s.pod_condition(n) or {}).get("reason") == "SchedulerError" and s.attempts(n) >= 2
                    for n in members)
                and (s.group_condition(group) or {}).get("reason") == "SchedulerError")

    return recorder.eventually(refused, timeout=timeouts.scheduler_reacts, describe=describe)


def _assert_refusal(state, group: str, members: list[str], accepted: set[str]) -> str:
    """Every member and the PodGroup carry one of the ``accepted`` messages, the same one; return it."""
    texts = {state.pod_condition(n)["message"] for n in members} | {state.group_condition(group)["message"]}
    assert len(texts) == 1 and texts <= accepted, f"expected one of {sorted(accepted)}, got {sorted(texts)}\n" \
                                                   f"{state.summary()}"
    for name in members:
        assert state.pod_condition(name)["status"] == "False", state.summary()
    assert state.group_condition(group)["status"] == "False", state.summary()
    return texts.pop()


@pytest.mark.conformance(id="GANG-SCHEDNAME-001", profile="beta")
def test_group_is_never_scheduled_when_its_members_name_two_profiles(pool, gang, recorder, timeouts,
                                                                       scheduler_under_test):
    """Behaviour: GANG-SCHEDNAME-001, profile beta.

    Requirement: when the members of one PodGroup name two different profiles of the same
    scheduler, the scheduler MUST NOT bind any of them: every member MUST get
    ``PodScheduled=False``, reason ``SchedulerError``, with the message
    ``all pods in a single pod group should have the same .spec.schedulerName set, got: "<x>" and "<y>"``
    (the two names, the first queued member's second), the PodGroup
    ``PodGroupInitiallyScheduled=False``, reason ``SchedulerError``, with the same text; the group
    MUST be tried again (each member reports the error at least twice) and never bound.

    Needs a scheduler that serves two profiles: the local provider starts kube-scheduler with a
    second profile ``gangconf-second`` (same plugins); the reference scheduler serves a second
    name; on other clusters name one with ``--second-scheduler-name``.

    Scenario:
      1. A pool of 2 nodes with room for both members.
      2. Gang ``split`` with minCount 2: ``split-0`` names the suite's scheduler, ``split-1`` the
         second profile.
      3. Both members and the PodGroup report the error above, each member at least twice.
      4. Over the ``stays_pending`` window no member is ever bound.
    """
    first, second = scheduler_under_test.name, scheduler_under_test.second_name
    if second is None:
        pytest.skip(f"not applicable: {scheduler_under_test.no_second_name}")
    pool.add(2, NodeShape(cpu="4"))
    gang.pod_group("split", min_count=2)
    gang.pod("split-0", group="split", cpu="1")
    gang.pod("split-1", group="split", cpu="1", scheduler_name=second)
    members = ["split-0", "split-1"]

    state = _refused_and_retried(recorder, timeouts, "split", members,
                                 "both members and the PodGroup refused with SchedulerError, each member twice")
    prefix = "all pods in a single pod group should have the same .spec.schedulerName set, got: "
    _assert_refusal(state, "split", members,
                    {f'{prefix}"{second}" and "{first}"', f'{prefix}"{first}" and "{second}"'})
    proven_never(gang, recorder, lambda s: s.bound("split"), timeouts=timeouts,
                 describe="no member of a group naming two profiles is ever bound")


@pytest.mark.conformance(id="GANG-PRIORITY-001", profile="beta")
def test_group_is_never_scheduled_when_its_members_priority_differs_from_the_podgroups(
        pool, gang, recorder, timeouts):
    """Behaviour: GANG-PRIORITY-001, profile beta.

    Requirement: when the members' priority differs from the PodGroup's ``spec.priority`` (the
    common mistake: ``priorityClassName`` on the pods, none on the PodGroup), the scheduler MUST
    NOT bind any member: every member and the PodGroup MUST report ``SchedulerError`` with
    ``all pods in a single pod group should have the same priority as the pod group's priority,
    got <p> and <g>``; the group MUST be tried again and never bound.

    Scenario:
      1. A PriorityClass of value 1000 for this test; a pool of 2 nodes with room for both members.
      2. Gang ``odd`` with minCount 2 and no priorityClassName (its priority is what admission
         gives a PodGroup without one: 0 unless the cluster has a global default class); its 2
         members name the class.
      3. Both members and the PodGroup report the error with the members' and the PodGroup's
         priorities, each member at least twice.
      4. Over the ``stays_pending`` window no member is ever bound.
    """
    high = gang.priority_class("high", 1000)
    pool.add(2, NodeShape(cpu="4"))
    created = gang.pod_group("odd", min_count=2)
    group_priority = int(created["spec"].get("priority") or 0)
    member_priority = gang.priority_value(high)  # 1000, or where it lies on a shared cluster
    assert group_priority != member_priority, created["spec"]
    members = gang.pods("odd", 2, group="odd", cpu="1", priority_class=high)

    state = _refused_and_retried(recorder, timeouts, "odd", members,
                                 "both members and the PodGroup refused with SchedulerError, each member twice")
    _assert_refusal(state, "odd", members,
                    {"all pods in a single pod group should have the same priority as the pod group's priority, "
                     f"got {member_priority} and {group_priority}"})
    proven_never(gang, recorder, lambda s: s.bound("odd"), timeouts=timeouts,
                 describe="no member of a group whose priority disagrees is ever bound")


@pytest.mark.conformance(id="GANG-PREEMPTPOLICY-001", profile="beta")
def test_group_is_never_scheduled_when_its_members_preemption_policies_differ(
        pool, gang, recorder, timeouts, cluster):
    """Behaviour: GANG-PREEMPTPOLICY-001, profile beta.

    Requirement: when the members of one PodGroup do not share one preemption policy, the
    scheduler MUST NOT bind any of them: every member and the PodGroup MUST report
    ``SchedulerError``, and the group MUST be tried again and never bound. The message depends on
    PodGroupPreemptionPolicy:

    * off (the beta profile): ``all pods in a single pod group should have the same preemption
      policy, got <a> and <b>``, a member's policy against the first queued member's;
    * on (the alpha profile, which runs the beta checks too): ``all pods in a single pod group
      should have the same preemption policy as the pod group's preemption policy, got <pod> and
      <group>``.

    The check reads the gate from the cluster's profile.

    Scenario:
      1. Two PriorityClasses of the same value 500, one with ``preemptionPolicy: Never``, one
         without (PreemptLowerPriority); a pool of 2 nodes with room for both members.
      2. Gang ``torn`` with minCount 2 and the PreemptLowerPriority class; ``torn-0`` has that class,
         ``torn-1`` the Never class (a pod's policy comes from its class: admission refuses a pod
         that spells out another one). The priorities all agree.
      3. Both members and the PodGroup report the error for the gate's setting (gate off: the two
         policies, in either order; gate on: ``got Never and PreemptLowerPriority``), each member
         at least twice.
      4. Over the ``stays_pending`` window no member is ever bound.
    """
    lower = gang.priority_class("lower", 500)
    never = gang.priority_class("never", 500, preemption_policy="Never")
    pool.add(2, NodeShape(cpu="4"))
    gang.pod_group("torn", min_count=2, priority_class=lower)
    gang.pod("torn-0", group="torn", cpu="1", priority_class=lower)
    gang.pod("torn-1", group="torn", cpu="1", priority_class=never)
    members = ["torn-0", "torn-1"]

    state = _refused_and_retried(recorder, timeouts, "torn", members,
                                 "both members and the PodGroup refused with SchedulerError, each member twice")
    if cluster.profile.gate(PREEMPTION_POLICY_GATE):
        accepted = {"all pods in a single pod group should have the same preemption policy as the pod group's "
                    "preemption policy, got Never and PreemptLowerPriority"}
    else:
        prefix = "all pods in a single pod group should have the same preemption policy, got "
        accepted = {f"{prefix}Never and PreemptLowerPriority", f"{prefix}PreemptLowerPriority and Never"}
    _assert_refusal(state, "torn", members, accepted)
    proven_never(gang, recorder, lambda s: s.bound("torn"), timeouts=timeouts,
                 describe="no member of a group whose preemption policies disagree is ever bound")
