"""The fault profile's hook in the reference scheduler, and the Permit barrier it exposes, in virtual time.

The 5-minute Permit timeout runs on the :class:`~reference_scheduler.clock.SimClock`: each of
these tests takes milliseconds.
"""

from __future__ import annotations

import dataclasses

import pytest
from fakes import Cluster

from reference_scheduler import Code, Pod
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.plugins import fault
from reference_scheduler.plugins.gangscheduling import PERMIT_TIMEOUT_SECONDS
from reference_scheduler.framework.waiting_pods import permit_timeout_message

LABEL = "fault.gangconf.io/reserve"
#: A trial Reserve of the pod-group algorithm, and the Reserve of a pod handed over to binding.
TRIAL, HAND_OVER = CycleState(pod_group_cycle_state=CycleState()), CycleState()
TIMEOUT = "0/1 nodes are available: 1 rejected due to timeout after waiting 5m0s at plugin GangScheduling."


def failure(mode: str) -> str:
    return f"0/1 nodes are available: 1 {LABEL}={mode}: Reserve failed (injected)."


@pytest.fixture
def cluster() -> Cluster:
    return Cluster(fault_reserve_label=LABEL)


def gang_with_a_faulty_member(cluster: Cluster, mode: str) -> Pod:
    """Gang ``g`` (minCount 3) of 3 members on 3 nodes; ``g-1`` fails Reserve with ``mode``."""
    cluster.nodes(3, cpu="2")
    cluster.group("g", min_count=3)
    cluster.pod("g-0", group="g")
    faulty = cluster.pod("g-1", group="g", labels=((LABEL, mode),))
    cluster.pod("g-2", group="g")
    return faulty


# -- the plugin ------------------------------------------------------------------------------------


def pod(labels=(), uid="u1") -> Pod:
    return Pod("ns", "p", uid=uid, labels=tuple(labels))


def test_once_fails_the_first_hand_over_only_and_never_a_trial():
    plugin = fault.FaultReserve(LABEL)
    once = pod([(LABEL, "once")])
    assert plugin.reserve(TRIAL, once, "n").ok
    failed = plugin.reserve(HAND_OVER, once, "n")
    assert (failed.code, failed.message(), failed.plugin) == (Code.UNSCHEDULABLE, f"{LABEL}=once: Reserve failed (injected)",
                                                             fault.NAME)
    assert plugin.reserve(TRIAL, once, "n").ok and plugin.reserve(HAND_OVER, once, "n").ok
    assert not plugin.reserve(HAND_OVER, pod([(LABEL, "once")], uid="u2"), "n").ok, "a new pod starts afresh"


def test_always_fails_every_hand_over_and_the_trials_after_the_first_failure():
    plugin = fault.FaultReserve(LABEL)
    always = pod([(LABEL, "always")])
    assert plugin.reserve(TRIAL, always, "n").ok
    assert not plugin.reserve(HAND_OVER, always, "n").ok
    assert not plugin.reserve(TRIAL, always, "n").ok
    assert not plugin.reserve(HAND_OVER, always, "n").ok
    assert plugin.reserve(HAND_OVER, pod(), "n").ok, "the label removed lifts the fault"
    plugin.unreserve(HAND_OVER, always, "n")  # idempotent, nothing to undo


def test_an_unknown_mode_is_an_error_naming_the_two():
    status = fault.FaultReserve(LABEL).reserve(HAND_OVER, pod([(LABEL, "twice")]), "n")
    assert status.code is Code.ERROR and "'once' or 'always'" in status.message()


def test_the_plugin_is_enabled_only_with_a_label():
    assert [p.name for p in Cluster().scheduler.framework.profile.at("Reserve")] == []
    assert [p.name for p in Cluster(fault_reserve_label=LABEL).scheduler.framework.profile.at("Reserve")] == [fault.NAME]
    with pytest.raises(ValueError, match="is not a label key"):
        Cluster(fault_reserve_label="not a key")


@pytest.mark.parametrize(("seconds", "text"), [(300, "5m0s"), (90.5, "1m30.5s"), (3600, "1h0m0s"), (7, "7s")])
def test_the_timeout_is_written_as_go_prints_a_duration(seconds: float, text: str):
    assert permit_timeout_message(seconds, "GangScheduling") == (
        f"rejected due to timeout after waiting {text} at plugin GangScheduling")


# -- the Permit barrier ------------------------------------------------------------------------------


def test_permit_002_a_member_that_fails_its_hand_over_is_retried_at_once_and_completes_the_gang(cluster):
    gang_with_a_faulty_member(cluster, "once")
    cluster.run()  # no clock advance: the retry needs no backoff and no cluster event
    assert sorted(cluster.bound("g-")) == ["g-0", "g-1", "g-2"]
    assert cluster.conditions == {"g-1": ("Unschedulable", failure("once"))}
    assert cluster.group_conditions["g"] == [(True, "Scheduled", "")]
    assert cluster.nominations == {} and cluster.waiting() == set()


def test_permit_001_members_wait_nominated_and_unbound_until_the_fault_is_lifted(cluster):
    faulty = gang_with_a_faulty_member(cluster, "always")
    cluster.run()
    assert cluster.binds == []
    assert cluster.waiting() == {"ns/g-0", "ns/g-2"}
    assert set(cluster.nominations) == {"g-0", "g-2"}
    assert cluster.conditions == {"g-1": ("Unschedulable", failure("always"))}
    cluster.clock.advance(60)
    cluster.run()  # the faulty member's retries now fail in the algorithm's trial, with backoff
    assert cluster.binds == [] and cluster.waiting() == {"ns/g-0", "ns/g-2"}
    assert cluster.group_conditions["g"] == [(True, "Scheduled", "")], "True is terminal (GANG-COND-001)"

    cluster.scheduler.on_pod(dataclasses.replace(faulty, labels=()), faulty.key)
    cluster.clock.advance(10)  # at most the longest backoff
    cluster.run()
    assert sorted(cluster.bound("g-")) == ["g-0", "g-1", "g-2"]
    assert cluster.nominations == {}, "binding clears the nominations"


def test_permit_003_waiting_members_are_rejected_after_exactly_five_minutes(cluster):
    gang_with_a_faulty_member(cluster, "always")
    cluster.run()
    cluster.clock.advance(PERMIT_TIMEOUT_SECONDS - 0.001)
    cluster.run()
    assert cluster.binds == [] and len(cluster.waiting()) == 2
    cluster.clock.advance(0.001)
    assert cluster.conditions["g-0"] == ("Unschedulable", TIMEOUT)
    assert cluster.conditions["g-2"] == ("Unschedulable", TIMEOUT)
    assert cluster.waiting() == set() and cluster.scheduler.cache.assumed == {}
    assert cluster.nominations == {}, "a rejected member is no longer nominated"
    cluster.clock.advance(600)
    cluster.run()
    assert cluster.binds == [], "with the faulty member still there the gang never completes"


def test_activate_001_after_the_timeout_too_few_members_are_held_by_the_quorum_gate(cluster):
    faulty = gang_with_a_faulty_member(cluster, "always")
    cluster.run()
    cluster.scheduler.on_pod(None, faulty.key)
    cluster.clock.advance(PERMIT_TIMEOUT_SECONDS)
    assert cluster.conditions["g-0"][1] == cluster.conditions["g-2"][1] == TIMEOUT
    writes = dict(cluster.conditions)
    cluster.clock.advance(60)
    cluster.run()
    assert cluster.conditions == writes and cluster.binds == [], "2 of minCount 3: gated, never tried again"
    assert cluster.entity("g").gated_by == "GangScheduling"
    cluster.pod("g-3", group="g")
    cluster.run()
    assert sorted(cluster.bound("g-")) == ["g-0", "g-2", "g-3"]


def test_a_pod_without_a_group_that_always_fails_reserve_is_backed_off_not_bound(cluster):
    cluster.nodes(1)
    cluster.pod("solo", labels=((LABEL, "always"),))
    cluster.run()
    assert cluster.binds == [] and cluster.conditions["solo"] == ("Unschedulable", failure("always"))
    assert cluster.scheduler.cache.assumed == {}
    cluster.clock.advance(30)
    cluster.run()
    assert cluster.binds == []
