"""The PreEnqueue quorum gate: a gang is not tried until minCount members exist."""

from __future__ import annotations

import pytest

from fixtures.pools import NodeShape


def _touched_by_the_scheduler(state, names) -> list[str]:
    """The pods among ``names`` that have a node, a PodScheduled condition or a FailedScheduling event."""
    return [
        name for name in names
        if name in state.pods and (
            state.pods[name]["spec"].get("nodeName")
            or state.pod_condition(name) is not None
            or state.events_for(name, "FailedScheduling")
        )
    ]


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
    recorder.never(lambda s: s.bound("trainer"), window=timeouts.stays_pending,
                   describe="no member of a gang below quorum is bound")
    state = recorder.current()
    assert not _touched_by_the_scheduler(state, members), state.summary()
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
    recorder.never(lambda s: s.bound("trainer"), window=timeouts.stays_pending,
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
    recorder.never(lambda s: _touched_by_the_scheduler(s, members), window=timeouts.stays_pending,
                   describe="pods of a missing PodGroup are neither bound nor attempted")

    gang.pod_group("late", min_count=3)
    recorder.eventually(lambda s: len(s.bound("late")) == 3, timeout=timeouts.gang_scheduled,
                        describe="all 3 pods bound once their PodGroup exists")
