"""The all-or-nothing verdict (fixtures.allornothing) over recorded timelines of both kinds.

A correct scheduler's binding burst (members bound one at a time, in any order, within a
moment) must pass; a real partial binding (a member bound while the gang cannot be completed,
or a partial state that outlasts the burst) must fail. The timelines in ``data/timelines`` were
recorded from real runs (see each case); the others are written by hand for one rule each. No
cluster: the verdict is pure.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from fixtures.allornothing import Gang, partial_bindings
from fixtures.errors import ConditionViolated
from fixtures.timeline import Observation
from test_observe import FakeRecorder

TIMELINES = Path(__file__).resolve().parent / "data" / "timelines"
BURST = 3.0


def pod(name: str, group: str | None, node: str | None = None) -> dict:
    spec: dict = {"schedulingGroup": {"podGroupName": group}} if group else {}
    if node:
        spec["nodeName"] = node
    return {"metadata": {"name": name}, "spec": spec, "status": {}}


def podgroup(name: str, min_count: int | None) -> dict:
    policy = {"gang": {"minCount": min_count}} if min_count else {"basic": {}}
    return {"metadata": {"name": name}, "spec": {"schedulingPolicy": policy}}


def timeline(*steps) -> list[Observation]:
    """Observations from ``(seconds, kind, type, object)`` steps."""
    return [Observation(at, kind, type_, obj) for at, kind, type_, obj in steps]


def gang_of_two(*binds) -> list[Observation]:
    """PodGroup ``g`` (minCount 2), members ``g-0`` and ``g-1`` at 0 s, then ``binds``: (seconds, member)."""
    return timeline((0.0, "PodGroup", "ADDED", podgroup("g", 2)),
                    (0.0, "Pod", "ADDED", pod("g-0", "g")), (0.0, "Pod", "ADDED", pod("g-1", "g")),
                    *[(at, "Pod", "MODIFIED", pod(name, "g", node=f"n-{name}")) for at, name in binds])


def recorded(name: str) -> tuple[list[Observation], float]:
    """A timeline dumped by the harness (``timeline.jsonl`` of a failure directory) and when it ended."""
    observations = []
    for line in (TIMELINES / name).read_text().splitlines():
        entry = json.loads(line)
        observations.append(Observation(entry["t"], entry["kind"], entry["type"], entry["object"]))
    return observations, observations[-1].at


def messages(violations) -> list[str]:
    return [v.message for v in violations]


def test_a_gang_bound_member_by_member_within_a_burst_is_all_or_nothing():
    assert partial_bindings(gang_of_two((1.0, "g-1"), (1.02, "g-0")), burst=BURST, now=100) == []


def test_a_gang_bound_in_two_bursts_within_the_burst_time_is_all_or_nothing():
    # The later member's binding may trail by up to the burst time (a loaded machine).
    assert partial_bindings(gang_of_two((1.0, "g-0"), (3.9, "g-1")), burst=BURST, now=100) == []


def test_a_member_bound_alone_for_longer_than_a_burst_is_a_partial_binding():
    found = partial_bindings(gang_of_two((1.0, "g-0")), burst=BURST, now=10.0)
    assert messages(found) == [
        "g has had 1 of its minCount 2 members bound for 9.0s since g-0's binding, longer than a binding burst (3.0s)"]
    assert "g-0" in found[0].summary


def test_a_burst_still_young_at_the_end_of_the_recording_is_not_judged_yet():
    assert partial_bindings(gang_of_two((1.0, "g-0")), burst=BURST, now=2.0) == []


def test_a_gang_completed_only_after_the_burst_time_is_a_partial_binding():
    found = partial_bindings(gang_of_two((1.0, "g-0"), (8.0, "g-1")), burst=BURST)
    assert messages(found) == ["g was partly bound for 7.0s from g-0's binding until it was completed, "
                               "longer than a binding burst (3.0s)"]


def test_a_member_bound_while_the_gang_has_too_few_members_is_a_partial_binding():
    steps = timeline((0.0, "PodGroup", "ADDED", podgroup("g", 3)),
                     (0.0, "Pod", "ADDED", pod("g-0", "g")), (0.0, "Pod", "ADDED", pod("g-1", "g")),
                     (0.5, "Pod", "MODIFIED", pod("g-0", "g", node="n1")),
                     (0.6, "Pod", "MODIFIED", pod("g-1", "g", node="n2")))
    found = partial_bindings(steps, burst=BURST, now=3.6)
    assert messages(found) == ["g-0 was bound while g had 2 members, fewer than its minCount 3: "
                               "the gang cannot be completed",
                               "g has had 2 of its minCount 3 members bound for 3.1s since g-0's binding, longer "
                               "than a binding burst (3.0s)"]
    assert found[0].at == 0.5 and "n2" not in found[0].summary  # the state at the binding


def test_a_lowered_min_count_recorded_after_the_bindings_it_allowed_is_the_one_judged():
    # The PodGroup comes on its own watch: the scheduler acted on minCount 2 before the recorder saw it.
    steps = timeline((0.0, "PodGroup", "ADDED", podgroup("g", 4)),
                     (0.0, "Pod", "ADDED", pod("g-0", "g")), (0.0, "Pod", "ADDED", pod("g-1", "g")),
                     (1.0, "Pod", "MODIFIED", pod("g-0", "g", node="n1")),
                     (1.01, "Pod", "MODIFIED", pod("g-1", "g", node="n2")),
                     (1.5, "PodGroup", "MODIFIED", podgroup("g", 2)))
    assert partial_bindings(steps, burst=BURST, now=100) == []


def test_members_deleted_from_a_bound_gang_open_no_burst():
    steps = gang_of_two((1.0, "g-0"), (1.01, "g-1"))
    steps += timeline((5.0, "Pod", "DELETED", {"metadata": {"name": "g-0"}}))
    assert partial_bindings(steps, burst=BURST, now=100) == []


def test_a_replacement_bound_beside_the_running_members_completes_the_gang():
    steps = gang_of_two((1.0, "g-0"), (1.01, "g-1"))
    steps += timeline((5.0, "Pod", "DELETED", {"metadata": {"name": "g-0"}}),
                      (6.0, "Pod", "ADDED", pod("g-r", "g")), (6.5, "Pod", "MODIFIED", pod("g-r", "g", node="n3")))
    assert partial_bindings(steps, burst=BURST, now=100) == []


def test_members_created_on_their_nodes_are_not_bindings():
    steps = timeline((0.0, "PodGroup", "ADDED", podgroup("g", 2)),
                     (0.0, "Pod", "ADDED", pod("g-0", "g", node="n1")), (5.0, "Pod", "ADDED", pod("g-1", "g", node="n2")))
    assert partial_bindings(steps, burst=BURST, now=100) == []


def test_a_basic_group_may_be_partly_bound():
    steps = timeline((0.0, "PodGroup", "ADDED", podgroup("b", None)),
                     (0.0, "Pod", "ADDED", pod("b-0", "b")), (0.0, "Pod", "ADDED", pod("b-1", "b")),
                     (1.0, "Pod", "MODIFIED", pod("b-0", "b", node="n1")))
    assert partial_bindings(steps, burst=BURST, now=100) == []


def test_a_lowered_min_count_is_the_one_judged():
    steps = timeline((0.0, "PodGroup", "ADDED", podgroup("g", 4)),
                     (0.0, "Pod", "ADDED", pod("g-0", "g")), (0.0, "Pod", "ADDED", pod("g-1", "g")),
                     (2.0, "PodGroup", "MODIFIED", podgroup("g", 2)),
                     (2.1, "Pod", "MODIFIED", pod("g-0", "g", node="n1")),
                     (2.2, "Pod", "MODIFIED", pod("g-1", "g", node="n2")))
    assert partial_bindings(steps, burst=BURST, now=100) == []


def test_leaves_judged_together_are_one_gang():
    steps = timeline((0.0, "PodGroup", "ADDED", podgroup("a", 1)), (0.0, "PodGroup", "ADDED", podgroup("b", 1)),
                     (0.0, "Pod", "ADDED", pod("a-0", "a")), (0.0, "Pod", "ADDED", pod("b-0", "b")),
                     (1.0, "Pod", "MODIFIED", pod("a-0", "a", node="n1")))
    tree = Gang.of("tree", ["a", "b"], 2)
    assert partial_bindings(steps, burst=BURST, now=100) == []  # each leaf on its own is whole
    assert messages(partial_bindings(steps, burst=BURST, now=100, gangs=[tree])) == [
        "tree has had 1 of its minCount 2 members bound for 99.0s since a-0's binding, longer than a binding "
        "burst (3.0s)"]


def test_a_recorded_v1_37_2_binding_burst_is_all_or_nothing():
    """Recorded: kube-scheduler v1.37.2 with MostAllocated placing GANG-PLACEMENT-001's heterogeneous
    gang (the strict ``never(one member bound)`` failed on it). ``mixed-big``, which completed
    minCount at Permit, was bound first and never nominated; ``mixed-small``, which waited at
    Permit, was nominated only after that binding, then bound."""
    observations, end = recorded("v1.37.2-most-allocated-heterogeneous-burst.jsonl")
    pods = [(o.name, o.obj["spec"].get("nodeName"), o.obj["status"].get("nominatedNodeName"))
            for o in observations if o.kind == "Pod"]
    first_bound = next(i for i, (_, node, _) in enumerate(pods) if node)
    nominated = next(i for i, (name, _, nnn) in enumerate(pods) if nnn)
    assert pods[first_bound][0] == "mixed-big" and pods[nominated][0] == "mixed-small" and nominated > first_bound
    assert not any(nnn for name, _, nnn in pods if name == "mixed-big")
    assert partial_bindings(observations, burst=BURST, now=end) == []


def test_a_recorded_partial_binding_without_the_gang_plugin_is_caught():
    """Recorded: kube-scheduler v1.37.2 with GangScheduling disabled (the negative control) on
    GANG-PLACEMENT-001's heterogeneous gang: ``mixed-small`` bound before ``mixed-big`` even
    existed, ``mixed-big`` never (it does not fit beside it)."""
    observations, end = recorded("v1.37.2-gang-disabled-heterogeneous-partial.jsonl")
    assert messages(partial_bindings(observations, burst=BURST, now=end)) == [
        "mixed-small was bound while mixed had 1 member, fewer than its minCount 2: the gang cannot be completed",
        f"mixed has had 1 of its minCount 2 members bound for {end - 0.304:.1f}s since mixed-small's binding, "
        "longer than a binding burst (3.0s)"]
    # Bound before mixed-big existed: the first rule, judged once no lowered minCount could still come.
    early = [o for o in observations if o.at <= 0.31]
    assert partial_bindings(early, burst=BURST, now=0.31) == []
    first = partial_bindings(early, burst=BURST, now=3.31)[0]
    assert first.at == 0.304 and first.message.endswith("the gang cannot be completed"), first


def partly_bound_recorder() -> FakeRecorder:
    """A recorder that has recorded gang ``g`` (minCount 2) with ``g-0`` bound and ``g-1`` not yet."""
    rec = FakeRecorder()
    rec.add("PodGroup", "ADDED", podgroup("g", 2))
    rec.add("Pod", "ADDED", pod("g-0", "g"))
    rec.add("Pod", "ADDED", pod("g-1", "g"))
    rec.add("Pod", "MODIFIED", pod("g-0", "g", node="n1"))
    return rec


def test_the_recorder_fails_as_soon_as_a_burst_outlasts_the_burst_time():
    rec = partly_bound_recorder()
    started = time.monotonic()
    with pytest.raises(ConditionViolated, match="g has had 1 of its minCount 2 members bound") as info:
        rec.assert_all_or_nothing(burst=0.2, window=10, describe="g is all or nothing")
    assert time.monotonic() - started < 5  # at the burst's end, not the window's
    assert "violated: g is all or nothing" in str(info.value) and "n1" in str(info.value)


def test_the_recorder_waits_for_a_burst_open_at_the_end_of_its_window_to_close():
    rec = partly_bound_recorder()
    threading.Timer(0.1, lambda: rec.add("Pod", "MODIFIED", pod("g-1", "g", node="n2"))).start()
    state = rec.assert_all_or_nothing(burst=2.0)
    assert len(state.bound("g")) == 2
