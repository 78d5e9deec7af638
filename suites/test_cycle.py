"""The pod-group scheduling cycle: all-or-nothing placement and its conditions."""

from __future__ import annotations

import pytest

from fixtures.observe import condition
from fixtures.pools import NodeShape


@pytest.mark.conformance(id="GANG-CYCLE-003", profile="beta")
def test_no_member_is_bound_when_the_gang_cannot_fit(pool, gang, recorder, timeouts):
    """Behaviour: GANG-CYCLE-003, profile beta.

    Requirement: when fewer than minCount members fit, the scheduler MUST bind no member at all.
    Every member MUST get ``PodScheduled=False`` with reason ``Unschedulable``; a member that fit
    on its own carries a message that starts with ``pod group is unschedulable``; the PodGroup
    MUST get ``PodGroupInitiallyScheduled=False``, reason ``Unschedulable``, with the group
    status ``minCount (4) cannot be satisfied: ...``; each member gets a FailedScheduling event.

    Scenario:
      1. A pool of 3 nodes with 2 CPUs each: room for 3 members of 2 CPUs.
      2. A gang of 4 members of 2 CPUs with minCount 4.
      3. Every member and the PodGroup report the failure as above.
      4. Over the whole recording, including the ``stays_pending`` window, no member is ever bound.
    """
    pool.add(3, NodeShape(cpu="2"))
    members = gang.gang("trainer", 4, cpu="2")

    def all_reported(s) -> bool:
        conds = [s.pod_condition(n) for n in members]
        return all(c and c.get("status") == "False" for c in conds) and s.group_condition("trainer") is not None

    state = recorder.eventually(all_reported, timeout=timeouts.scheduler_reacts,
                                describe="PodScheduled=False on all 4 members and a PodGroup condition")
    for name in members:
        cond = condition(state.pods[name], "PodScheduled")
        assert cond["reason"] == "Unschedulable", (name, cond)
    messages = [condition(state.pods[n], "PodScheduled")["message"] for n in members]
    assert any(m.startswith("pod group is unschedulable") for m in messages), messages
    group = state.group_condition("trainer")
    assert (group["status"], group["reason"]) == ("False", "Unschedulable"), group
    assert "minCount (4)" in group["message"] and "cannot be satisfied" in group["message"], group

    recorder.eventually(lambda s: all(s.events_for(n, "FailedScheduling") for n in members),
                        timeout=timeouts.scheduler_reacts, describe="a FailedScheduling event per member")
    recorder.never(lambda s: s.bound("trainer"), window=timeouts.stays_pending,
                   describe="no member of a gang that cannot fit is ever bound")


@pytest.mark.conformance(id="GANG-CYCLE-002", profile="beta")
def test_gang_binds_what_fits_and_reports_scheduled_when_min_count_fits(pool, gang, recorder, timeouts):
    """Behaviour: GANG-CYCLE-002, profile beta.

    Requirement: when at least minCount members fit, the scheduler MUST bind every member that
    fits; a member that does not fit gets ``PodScheduled=False``, reason ``Unschedulable`` with its
    own fit error (``... nodes are available: ...``); the PodGroup gets
    ``PodGroupInitiallyScheduled=True``, reason ``Scheduled``, whose ``observedGeneration`` (when
    set) equals the PodGroup's ``metadata.generation``.

    v1.37.2 differs from the catalogue here: the catalogue says ``observedGeneration`` = the
    PodGroup's generation, but the v1.37.2 apiserver sets no ``metadata.generation`` on PodGroups
    and the scheduler writes the condition without ``observedGeneration`` (and with an empty
    message). The check asserts the two agree, which is what v1.37.2 does (both absent).

    Scenario:
      1. A pool of 3 nodes with 2 CPUs each.
      2. A PodGroup with minCount 3 and 4 members of 2 CPUs.
      3. Exactly 3 members are bound; the 4th reports its fit error; the PodGroup reports Scheduled.
    """
    pool.add(3, NodeShape(cpu="2"))
    members = gang.gang("trainer", 4, min_count=3, cpu="2")

    state = recorder.eventually(lambda s: len(s.bound("trainer")) == 3, timeout=timeouts.gang_scheduled,
                                describe="3 of 4 members bound")
    left = next(n for n in members if n not in {p["metadata"]["name"] for p in state.bound("trainer")})
    state = recorder.eventually(
        lambda s: (s.pod_condition(left) or {}).get("status") == "False"
        and s.group_condition("trainer") is not None,
        timeout=timeouts.scheduler_reacts, describe=f"{left} reports why it does not fit, and the group condition")
    cond = condition(state.pods[left], "PodScheduled")
    assert cond["reason"] == "Unschedulable" and "nodes are available" in cond["message"], cond
    group = state.group_condition("trainer")
    assert (group["status"], group["reason"]) == ("True", "Scheduled"), group
    generation = state.podgroups["trainer"]["metadata"].get("generation")
    assert group.get("observedGeneration") == generation, (group, generation)
    recorder.never(lambda s: len(s.bound("trainer")) > 3, window=timeouts.stays_pending,
                   describe="the member that does not fit is never bound")


@pytest.mark.conformance(id="GANG-BASIC-001", profile="beta")
def test_basic_group_places_members_independently(pool, gang, recorder, timeouts):
    """Behaviour: GANG-BASIC-001, profile beta.

    Requirement: a ``basic`` PodGroup has no quorum: the scheduler MUST place every member that
    fits even when others do not (partial placement is allowed), report the ones that do not fit
    with their own fit error, and set ``PodGroupInitiallyScheduled=True``, reason ``Scheduled``.
    A basic group none of whose members fits MUST get ``PodGroupInitiallyScheduled=False``, reason
    ``Unschedulable``, with ``minCount (1) cannot be satisfied``.

    Scenario:
      1. A pool of 2 nodes with 2 CPUs each.
      2. Basic group ``some`` with 3 members of 2 CPUs: 2 bound, 1 Unschedulable, group Scheduled.
      3. Basic group ``none`` with 2 members of 4 CPUs: none bound, group Unschedulable.
    """
    pool.add(2, NodeShape(cpu="2"))
    gang.pod_group("some")
    some = gang.pods("some", 3, group="some", cpu="2")
    state = recorder.eventually(lambda s: len(s.bound("some")) == 2, timeout=timeouts.gang_scheduled,
                                describe="2 of 3 members of the basic group bound")
    left = next(n for n in some if n not in {p["metadata"]["name"] for p in state.bound("some")})
    state = recorder.eventually(
        lambda s: (s.pod_condition(left) or {}).get("status") == "False"
        and (s.group_condition("some") or {}).get("status") == "True",
        timeout=timeouts.scheduler_reacts, describe=f"{left} Unschedulable and group 'some' Scheduled")
    assert condition(state.pods[left], "PodScheduled")["reason"] == "Unschedulable"
    assert "nodes are available" in condition(state.pods[left], "PodScheduled")["message"]
    assert state.group_condition("some")["reason"] == "Scheduled"

    gang.pod_group("none")
    gang.pods("none", 2, group="none", cpu="4")
    state = recorder.eventually(lambda s: (s.group_condition("none") or {}).get("status") == "False",
                                timeout=timeouts.scheduler_reacts, describe="group 'none' reports Unschedulable")
    group = state.group_condition("none")
    assert group["reason"] == "Unschedulable" and "minCount (1) cannot be satisfied" in group["message"], group
    assert not state.bound("none"), state.summary()
