"""The PodGroup's life after scheduling: its condition, member and group deletion, protection.

CompositePodGroup halves of these behaviours (GANG-PROTECT-003 for CompositePodGroups) need
``scheduling.k8s.io/v1alpha3`` and belong to the alpha profile.

v1.37.2 writes a PodGroup's condition from its own copy of the PodGroup: a cycle run before its
informer delivered the ``True`` it wrote overwrites it (GANG-CYCLE-002). Checks that assert the
condition is kept, and checks that act once the PodGroup is gone, first wait until the
scheduler has handled every PodGroup write so far (:mod:`fixtures.barrier`).
"""

from __future__ import annotations

import pytest

from fixtures import (PROTECTION_FINALIZER, NodeShape, assert_refused, node_name, proven_never, scheduler_caught_up,
                      template)



def _names(pods) -> set[str]:
    return {p["metadata"]["name"] for p in pods}


def _terminating(state, group: str) -> bool:
    pg = state.podgroups.get(group)
    return bool(pg and pg["metadata"].get("deletionTimestamp"))


@pytest.mark.conformance(id="GANG-COND-001", profile="beta", tolerates="DEV-COND-TERMINAL")
def test_initially_scheduled_condition_stays_true_when_later_cycles_fail(pool, gang, recorder, timeouts):
    """Behaviour: GANG-COND-001, profile beta.

    Requirement: once ``PodGroupInitiallyScheduled`` is ``True`` it is terminal: later cycles of
    the same PodGroup that fail MUST NOT turn it ``False`` or change it.

    v1.37.2 keeps this only once its informer has delivered its own ``True``: a cycle that fails
    before then writes ``False`` over it (the deviation DEV-COND-TERMINAL, reproduced by
    ``suites/test_deviations.py``). The check tolerates that deviation: it waits for the scheduler
    to catch up (:mod:`fixtures.barrier`) before the later cycles, so its ``passed`` says the
    condition stays True once the scheduler knows it, not that the contract holds.

    Scenario:
      1. A pool of 2 nodes with 2 CPUs each; gang ``once`` with minCount 2 and 2 members of 2 CPUs:
         both bound, the condition is True / Scheduled.
      2. Delete both members and create 2 new members of 4 CPUs, which fit nowhere.
      3. The new members' cycles fail (each reports ``Unschedulable`` and gets a FailedScheduling
         event), and over the ``stays_pending`` window the condition stays exactly as it was.
    """
    pool.add(2, NodeShape(cpu="2"))
    first = gang.gang("once", 2, cpu="2")
    state = recorder.eventually(
        lambda s: len(s.bound("once")) == 2 and (s.group_condition("once") or {}).get("status") == "True",
        timeout=timeouts.gang_scheduled, describe="both members bound and the PodGroup Scheduled")
    scheduled = state.group_condition("once")
    assert scheduled["reason"] == "Scheduled", scheduled
    scheduler_caught_up(gang, recorder, timeout=timeouts.scheduler_reacts)
    since = recorder.mark()

    gang.delete_pods(first)
    recorder.eventually(lambda s: s.gone(*first), timeout=timeouts.cleanup, describe="the first members are gone",
                        after=since)
    later = gang.pods("once-late", 2, group="once", cpu="4")
    state = recorder.eventually(
        lambda s: all((s.pod_condition(n) or {}).get("status") == "False" and s.events_for(n, "FailedScheduling")
                      for n in later),
        timeout=timeouts.scheduler_reacts, describe="the new members' cycle fails")
    assert all(state.pod_condition(n)["reason"] == "Unschedulable" for n in later), state.summary()

    def changed(s) -> bool:
        cond = s.group_condition("once") or {}
        return any(cond.get(k) != scheduled.get(k) for k in ("status", "reason", "lastTransitionTime"))

    recorder.never(changed, window=timeouts.stays_pending, after=since,
                   describe="PodGroupInitiallyScheduled stays True/Scheduled after later cycles fail")
    assert not recorder.current().bound("once"), recorder.current().summary()


@pytest.mark.conformance(id="GANG-DELETE-001", profile="beta")
def test_replacements_for_deleted_members_count_the_running_ones(pool, gang, recorder, timeouts):
    """Behaviour: GANG-DELETE-001, profile beta.

    Requirement: deleting members of a scheduled gang MUST leave the PodGroup's status unchanged. A
    replacement member MUST be bound when the running members plus the replacements reach minCount,
    and MUST wait while they do not.

    Scenario:
      1. A pool of 3 nodes with 2 CPUs each; gang ``crew`` with minCount 3 and 3 members of 2 CPUs:
         all bound, Scheduled.
      2. Delete ``crew-0``: the PodGroup's condition is unchanged. Create ``crew-r0``: it is bound
         (2 running + 1 = minCount).
      3. Delete ``crew-1`` and ``crew-r0`` and create ``crew-r1``: with 1 running + 1 new < 3 it is not
         bound over the ``stays_pending`` window.
      4. Create ``crew-r2``: both replacements are bound.
    """
    pool.add(3, NodeShape(cpu="2"))
    gang.gang("crew", 3, cpu="2")
    state = recorder.eventually(
        lambda s: len(s.bound("crew")) == 3 and (s.group_condition("crew") or {}).get("status") == "True",
        timeout=timeouts.gang_scheduled, describe="all 3 members bound and the PodGroup Scheduled")
    status_before = state.podgroups["crew"].get("status")
    scheduler_caught_up(gang, recorder, timeout=timeouts.scheduler_reacts)

    # Waits look only at what follows the deletions (``after``): the state where the 3 original
    # members were bound satisfies a count.
    since = recorder.mark()
    gang.delete_pod("crew-0")
    recorder.eventually(lambda s: s.gone("crew-0"), timeout=timeouts.cleanup, describe="crew-0 is gone",
                        after=since)
    gang.pod("crew-r0", group="crew", cpu="2")
    state = recorder.eventually(lambda s: _names(s.bound("crew")) == {"crew-1", "crew-2", "crew-r0"},
                                timeout=timeouts.gang_scheduled,
                                describe="the replacement crew-r0 bound beside the 2 running members")
    assert state.podgroups["crew"].get("status") == status_before, (status_before, state.podgroups["crew"])

    since = recorder.mark()
    gang.delete_pods(["crew-1", "crew-r0"])
    recorder.eventually(lambda s: s.gone("crew-1", "crew-r0"), timeout=timeouts.cleanup,
                        describe="crew-1 and crew-r0 are gone", after=since)
    gang.pod("crew-r1", group="crew", cpu="2")
    proven_never(gang, recorder, lambda s: s.bound("crew", prefix="crew-r1"), timeouts=timeouts,
                 describe="a replacement is not bound while running + replacements < minCount")
    gang.pod("crew-r2", group="crew", cpu="2")
    state = recorder.eventually(lambda s: _names(s.bound("crew")) == {"crew-2", "crew-r1", "crew-r2"},
                                timeout=timeouts.gang_scheduled, describe="both replacements bound beside crew-2")
    assert state.podgroups["crew"].get("status") == status_before, (status_before, state.podgroups["crew"])


@pytest.mark.conformance(id="GANG-DELETE-002", profile="beta")
def test_pending_members_wait_when_their_podgroup_is_deleted(pool, gang, recorder, timeouts):
    """Behaviour: GANG-DELETE-002, profile beta.

    Requirement: when a PodGroup with running and pending members is deleted, it MUST stay
    (Terminating, held by its finalizer) while members are active; once it is gone, its pending
    members and any new ones MUST wait unbound even when room appears, and the running members
    MUST NOT be touched. Creating the PodGroup again MUST release the waiting members.

    v1.37.2 differs from the catalogue, which says pending members wait as soon as the PodGroup is
    deleted: a delete only sets the deletionTimestamp (the protection finalizer keeps the object
    while members are active), and the v1.37.2 scheduler ignores the deletionTimestamp, so a
    pending member of a Terminating PodGroup is still scheduled when room appears. Members wait
    only once the object is really gone (the scheduler's PodGroup Delete event). The check asserts
    both.

    Scenario:
      1. A pool of 2 nodes with 2 CPUs each; gang ``gone`` with minCount 2 and 3 members of 2 CPUs:
         2 bound, 1 pending.
      2. Delete the PodGroup: it is still there, with a deletionTimestamp and its finalizer.
      3. Add a node: the pending member is bound (v1.37.2, see above).
      4. Remove the finalizer (as a user may): the PodGroup is gone, and the scheduler has seen
         it go. Add 2 nodes and members ``gone-3`` and ``gone-4``: over the ``stays_pending``
         window neither is bound, and the running members keep their nodes.
      5. Create PodGroup ``gone`` again: both waiting members are bound.
    """
    pool.add(2, NodeShape(cpu="2"))
    members = gang.gang("gone", 3, min_count=2, cpu="2")
    state = recorder.eventually(lambda s: len(s.bound("gone")) == 2, timeout=timeouts.gang_scheduled,
                                describe="2 of 3 members bound")
    pending = next(n for n in members if n not in _names(state.bound("gone")))

    gang.delete_pod_group("gone")
    state = recorder.eventually(lambda s: _terminating(s, "gone"), timeout=timeouts.observe,
                                describe="the PodGroup is Terminating")
    assert PROTECTION_FINALIZER in (state.podgroups["gone"]["metadata"].get("finalizers") or []), state.podgroups["gone"]
    pool.add(1, NodeShape(cpu="2"))
    state = recorder.eventually(lambda s: len(s.bound("gone")) == 3, timeout=timeouts.gang_scheduled,
                                describe=f"{pending} bound while its PodGroup is only Terminating")
    running = {p["metadata"]["name"]: node_name(p) for p in state.bound("gone")}
    since = recorder.mark()

    gang.drop_finalizers("gone")
    recorder.eventually(lambda s: "gone" not in s.podgroups, timeout=timeouts.observe, after=since,
                        describe="the PodGroup is gone once its finalizer is removed")
    scheduler_caught_up(gang, recorder, timeout=timeouts.scheduler_reacts)
    pool.add(2, NodeShape(cpu="2"))
    waiting = gang.pods("gone", 2, start=3, group="gone", cpu="2")

    def violated(s) -> bool:
        return (bool(_names(s.bound("gone")) & set(waiting))
                or any(node_name(s.pods.get(n) or {}) != node for n, node in running.items()))

    proven_never(gang, recorder, violated, timeouts=timeouts, after=since,
                 describe="members of a deleted PodGroup wait unbound; running members keep their nodes")

    gang.pod_group("gone", min_count=2)
    recorder.eventually(lambda s: _names(s.bound("gone")) >= set(waiting), timeout=timeouts.gang_scheduled,
                        describe="the waiting members bound once the PodGroup exists again")


@pytest.mark.conformance(id="GANG-PROTECT-002", profile="beta")
def test_protection_finalizer_is_removed_only_when_no_active_member_remains(pool, gang, recorder, timeouts):
    """Behaviour: GANG-PROTECT-002, profile beta.

    Requirement: the kube-controller-manager MUST remove ``scheduling.k8s.io/podgroup-protection``
    from a deleted PodGroup only when no active pod (phase not Succeeded or Failed: Pending,
    Running, Unknown) refers to it; until then the PodGroup MUST stay, Terminating.

    Scenario:
      1. A pool of 2 nodes with 2 CPUs each; basic group ``kept`` with 3 members of 2 CPUs: 2 bound
         (Running), 1 Pending.
      2. Delete the PodGroup: over the ``stays_pending`` window it stays, Terminating, finalizer on.
      3. Mark the running members Succeeded and Failed: with the Pending member still active it
         stays over another ``stays_pending`` window.
      4. Delete the Pending member: the PodGroup disappears.
    """
    pool.add(2, NodeShape(cpu="2"))
    gang.pod_group("kept")
    members = gang.pods("kept", 3, group="kept", cpu="2")
    state = recorder.eventually(
        lambda s: len(s.bound("kept")) == 2 and all(s.phase(p["metadata"]["name"]) == "Running"
                                                    for p in s.bound("kept")),
        timeout=timeouts.gang_scheduled, describe="2 members bound and Running")
    bound = sorted(_names(state.bound("kept")))
    pending = next(n for n in members if n not in bound)

    gang.delete_pod_group("kept")
    recorder.eventually(lambda s: _terminating(s, "kept"), timeout=timeouts.observe,
                        describe="the PodGroup is Terminating")
    since = recorder.mark()
    recorder.never(lambda s: "kept" not in s.podgroups, window=timeouts.stays_pending, after=since,
                   describe="a deleted PodGroup with Running and Pending members stays")

    gang.mark_phase(bound[0], "Succeeded")
    gang.mark_phase(bound[1], "Failed")
    recorder.eventually(lambda s: s.phase(bound[0]) == "Succeeded" and s.phase(bound[1]) == "Failed",
                        timeout=timeouts.observe, describe="the bound members are finished")
    recorder.never(lambda s: "kept" not in s.podgroups, window=timeouts.stays_pending, after=since,
                   describe="a deleted PodGroup with a Pending member stays")
    assert PROTECTION_FINALIZER in (recorder.current().podgroups["kept"]["metadata"].get("finalizers") or [])

    gang.delete_pod(pending)
    recorder.eventually(lambda s: "kept" not in s.podgroups, timeout=timeouts.scheduler_reacts, after=since,
                        describe="the PodGroup is gone once no active member remains")


@pytest.mark.conformance(id="GANG-PROTECT-003", profile="beta")
def test_workload_has_no_finalizer_and_is_deleted_at_once(gang):
    """Behaviour: GANG-PROTECT-003, profile beta.

    Requirement: v1.37 puts no finalizer on a Workload: the create response MUST carry none, and a
    delete MUST remove the Workload at once (nothing holds it in Terminating).

    Scenario:
      1. Create a Workload with one gang template: the response has no finalizers.
      2. Delete it: reading it right after the delete returns 404.
    """
    created = gang.create(gang.workload_manifest("plain", [template("workers", min_count=2)]))
    assert not created["metadata"].get("finalizers"), created["metadata"]
    gang.delete_workload("plain")
    assert_refused(gang.get_workload, "plain", status=404)
