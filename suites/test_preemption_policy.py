"""PodGroupPreemptionPolicy (alpha profile): a PodGroup's own ``preemptionPolicy``.

The preemption checks of the beta profile (victim units, disruption modes, importance) hold
here too; this module holds what needs the alpha gate. Topology and preemption together
(GANG-PREEMPT-006) is in ``test_topology.py``.
"""

from __future__ import annotations

import pytest

from fixtures import NodeShape

NOT_ELIGIBLE = "pod group preemption: not eligible due to preemptionPolicy=Never."


@pytest.mark.conformance(id="GANG-PREEMPT-005", profile="alpha", tolerates="DEV-PREEMPTPOLICY-DEFAULTING")
def test_gang_with_preemption_policy_never_does_not_preempt(pool, gang, recorder, timeouts):
    """Behaviour: GANG-PREEMPT-005 (PodGroupPreemptionPolicy on), profile alpha.

    Requirement: with PodGroupPreemptionPolicy on, a PodGroup with ``preemptionPolicy: Never``
    MUST NOT preempt: it stays pending, its PodGroup reports ``PodGroupInitiallyScheduled=False``,
    reason ``Unschedulable``, and the lower-priority pods in its way keep running.

    v1.37.2 details: the condition message ends with the post-filter outcome, ``...,
    deallocation and deletion of ResourceClaims completed, pod group preemption: not eligible due
    to preemptionPolicy=Never.`` (the first part comes from the DynamicResources plugin, which
    runs first at PodGroupPostFilter and reports even when there are no claims); the check
    asserts the preemption part. The API server defaults a PodGroup's ``preemptionPolicy`` before
    Priority admission compares it with the PriorityClass's, so a PodGroup that names a class
    with ``preemptionPolicy: Never`` is refused (403) unless it spells ``Never`` out; the check
    spells it out (it tolerates the deviation DEV-PREEMPTPOLICY-DEFAULTING, reproduced by
    ``suites/test_deviations.py``).

    Scenario:
      1. A pool of 2 nodes with 2 CPUs, filled by 2 single pods of 2 CPUs at a low priority.
      2. PodGroup ``polite`` (gang, minCount 2, ``preemptionPolicy: Never``, a high-priority class
         whose policy is Never) with 2 members of 2 CPUs at that priority.
      3. The PodGroup reports Unschedulable with ``pod group preemption: not eligible due to
         preemptionPolicy=Never.``; over the ``stays_pending`` window no member is bound and the
         low-priority pods keep their nodes and get no ``DisruptionTarget`` condition.
    """
    pool.add(2, NodeShape(cpu="2"))
    low = gang.priority_class("low", 100)
    high = gang.priority_class("polite", 1000, preemption_policy="Never")
    victims = gang.pods("low", 2, cpu="2", priority_class=low)
    state = recorder.eventually(lambda s: len(s.bound(prefix="low-")) == 2, timeout=timeouts.gang_scheduled,
                                describe="the 2 low-priority pods bound")
    placed = {n: state.pods[n]["spec"]["nodeName"] for n in victims}
    since = recorder.mark()

    gang.pod_group("polite", min_count=2, priority_class=high, preemption_policy="Never")
    members = gang.pods("polite", 2, group="polite", cpu="2", priority_class=high)
    state = recorder.eventually(
        lambda s: (s.group_condition("polite") or {}).get("status") == "False"
        and all((s.pod_condition(n) or {}).get("status") == "False" for n in members),
        timeout=timeouts.scheduler_reacts, describe="the PodGroup and its members report Unschedulable")
    cond = state.group_condition("polite")
    assert cond["reason"] == "Unschedulable" and NOT_ELIGIBLE in cond["message"], cond
    assert all(state.pod_condition(n)["reason"] == "Unschedulable" for n in members), state.summary()

    def violated(s) -> bool:
        return bool(s.bound("polite")) or any(
            (s.pods.get(n) or {}).get("spec", {}).get("nodeName") != node or s.pod_condition(n, "DisruptionTarget")
            for n, node in placed.items())

    recorder.never(violated, window=timeouts.stays_pending, after=since,
                   describe="a gang with preemptionPolicy Never preempts nobody and is not bound")
