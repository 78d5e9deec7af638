"""The wait primitive over a timeline: exact over every recorded state, with useful failures.

These run on a Timeline fed by hand, without a cluster: the logic under test is pure.
"""

from __future__ import annotations

import threading
import time

import pytest

from fixtures import observe
from fixtures.errors import ConditionViolated, WaitTimeout
from fixtures.observe import Recorder
from fixtures.timeline import Observation, State, Timeline


def pod(name: str, node: str | None = None, group: str | None = "g") -> dict:
    spec: dict = {}
    if node:
        spec["nodeName"] = node
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {"metadata": {"name": name}, "spec": spec, "status": {"phase": "Pending"}}


class FakeRecorder(Recorder):
    """A Recorder whose timeline is fed by the test instead of watches."""

    def __init__(self) -> None:  # no API, no threads
        self.timeline = Timeline()
        self._errors = []
        self.waits = []
        self.heartbeat = None

    def add(self, kind: str, type_: str, obj: dict) -> None:
        self.timeline.append(Observation(time.monotonic(), kind, type_, obj))


def test_never_catches_a_transient_state_that_a_poller_would_miss():
    rec = FakeRecorder()
    rec.add("Pod", "ADDED", pod("a"))
    rec.add("Pod", "MODIFIED", pod("a", node="n1"))  # bound for one event only...
    rec.add("Pod", "DELETED", pod("a"))              # ...and gone again
    with pytest.raises(ConditionViolated, match="no member is bound") as info:
        rec.never(lambda s: s.bound("g"), window=0.05, describe="no member is bound")
    assert "n1" in str(info.value)  # the state at the moment of violation is shown


def test_never_passes_after_its_window_when_nothing_happens():
    rec = FakeRecorder()
    rec.add("Pod", "ADDED", pod("a"))
    started = time.monotonic()
    state = rec.never(lambda s: s.bound("g"), window=0.2, describe="nothing bound")
    assert time.monotonic() - started >= 0.2
    assert list(state.pods) == ["a"]


def _tried_later(rec: FakeRecorder, delay: float, *then: dict) -> threading.Thread:
    """Record, ``delay`` seconds from now, the probe ``p`` reported unschedulable, then ``then``."""
    def feed():
        time.sleep(delay)
        rec.add("Pod", "MODIFIED", {**pod("p", group=None), "status": {
            "phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False"}]}})
        for obj in then:
            time.sleep(delay)
            rec.add("Pod", "MODIFIED", obj)
    thread = threading.Thread(target=feed)
    thread.start()
    return thread


def _probe_tried(s: State) -> bool:
    return (s.pod_condition("p") or {}).get("status") == "False"


def test_never_closes_its_window_a_keep_after_the_proof():
    rec = FakeRecorder()
    rec.add("Pod", "ADDED", pod("a"))
    started = time.monotonic()
    feeder = _tried_later(rec, 0.1)
    rec.never(lambda s: s.bound("g"), window=30, describe="nothing bound", until=_probe_tried, keep=0.2)
    feeder.join()
    assert 0.3 <= time.monotonic() - started < 5
    assert rec.waits[-1].outcome == "held"


def test_never_still_fails_on_a_violation_within_the_keep_after_the_proof():
    rec = FakeRecorder()
    rec.add("Pod", "ADDED", pod("a"))
    feeder = _tried_later(rec, 0.05, pod("a", node="n1"))
    with pytest.raises(ConditionViolated, match="nothing bound"):
        rec.never(lambda s: s.bound("g"), window=30, describe="nothing bound", until=_probe_tried, keep=2)
    feeder.join()


def test_never_without_a_proof_keeps_its_whole_window():
    rec = FakeRecorder()
    rec.add("Pod", "ADDED", pod("a"))
    started = time.monotonic()
    rec.never(lambda s: s.bound("g"), window=0.3, describe="nothing bound", until=_probe_tried, keep=0.01)
    assert time.monotonic() - started >= 0.3


def test_eventually_wakes_on_a_new_observation_before_its_deadline():
    rec = FakeRecorder()
    rec.add("Pod", "ADDED", pod("a"))
    threading.Timer(0.1, lambda: rec.add("Pod", "MODIFIED", pod("a", node="n1"))).start()
    started = time.monotonic()
    state = rec.eventually(lambda s: s.bound("g"), timeout=10, describe="a bound")
    assert time.monotonic() - started < 5
    assert state.pods["a"]["spec"]["nodeName"] == "n1"


def test_eventually_times_out_with_the_description_and_the_last_state():
    rec = FakeRecorder()
    rec.add("Pod", "ADDED", pod("a"))
    with pytest.raises(WaitTimeout) as info:
        rec.eventually(lambda s: len(s.bound("g")) == 2, timeout=0.1, describe="both members bound")
    text = str(info.value)
    assert "both members bound" in text and "last observed state" in text and "a " in text


def test_state_queries_select_by_group_prefix_and_reason():
    state = State()
    for o in [
        Observation(0, "Pod", "ADDED", pod("job-a-0", node="n1", group=None)),
        Observation(0, "Pod", "ADDED", pod("job-b-0", group=None)),
        Observation(0, "Event", "ADDED", {"metadata": {"name": "e1"}, "reason": "FailedScheduling",
                                          "involvedObject": {"name": "job-b-0"}}),
    ]:
        state.apply(o)
    assert [p["metadata"]["name"] for p in state.bound(prefix="job-a-")] == ["job-a-0"]
    assert state.bound(prefix="job-b-") == []
    assert len(state.events_for("job-b-0", "FailedScheduling")) == 1
    assert state.events_for("job-a-0") == []


def _failed(event: str, pod_name: str, **counts) -> Observation:
    return Observation(0, "Event", "ADDED", {"metadata": {"name": event}, "reason": "FailedScheduling",
                                             "involvedObject": {"name": pod_name}, **counts})


def test_attempts_count_a_series_once_at_its_highest_and_each_new_event():
    """kube-scheduler folds repeats into one event's ``count`` (core/v1) or ``series.count``
    (events.k8s.io); another scheduler may write an event per attempt: both add up."""
    state = State()
    for o in [Observation(0, "Pod", "ADDED", pod("p")), _failed("e1", "p", count=1), _failed("e1", "p", count=3),
              _failed("e2", "p", series={"count": 2}), _failed("e3", "p"), _failed("e4", "other", count=9)]:
        state.apply(o)
    assert state.attempts("p") == 3 + 2 + 1
    assert state.attempts("other") == 9 and state.attempts("nobody") == 0


def test_touched_names_the_pods_a_scheduler_acted_on():
    state = State()
    conditioned = pod("conditioned")
    conditioned["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]
    for o in [Observation(0, "Pod", "ADDED", pod("bound", node="n1")), Observation(0, "Pod", "ADDED", conditioned),
              Observation(0, "Pod", "ADDED", pod("failed")), _failed("e1", "failed"),
              Observation(0, "Pod", "ADDED", pod("untouched"))]:
        state.apply(o)
    assert state.touched(["bound", "conditioned", "failed", "untouched", "never-created"]) == [
        "bound", "conditioned", "failed"]


def test_bound_count_counts_by_group_or_prefix():
    state = State()
    for o in [Observation(0, "Pod", "ADDED", pod("a-0", node="n1", group="a")),
              Observation(0, "Pod", "ADDED", pod("a-1", group="a")),
              Observation(0, "Pod", "ADDED", pod("job-0", node="n2", group=None))]:
        state.apply(o)
    assert (state.bound_count("a"), state.bound_count(prefix="job-"), state.bound_count()) == (1, 1, 2)


def test_gone_means_seen_deleted_and_not_back():
    state = State()
    for o in [Observation(0, "Pod", "ADDED", pod("x")), Observation(0, "Pod", "ADDED", pod("y")),
              Observation(1, "Pod", "DELETED", pod("x"))]:
        state.apply(o)
    assert state.gone("x") and not state.gone("x", "y")
    assert not state.gone("never-created")  # not created yet is not gone
    state.apply(Observation(2, "Pod", "ADDED", pod("x")))
    assert not state.gone("x")  # recreated under the same name


def test_a_state_remembers_disruptions_nominations_and_deletions_after_the_pod_is_gone():
    rec = FakeRecorder()
    victim = pod("v", node="n1", group=None)
    rec.add("Pod", "ADDED", victim)
    marked = {**victim, "status": {"phase": "Running", "conditions": [
        {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler", "message": "m"}]}}
    rec.add("Pod", "MODIFIED", marked)
    rec.add("Pod", "DELETED", {"metadata": {"name": "v"}})
    waiting = pod("p")
    rec.add("Pod", "ADDED", waiting)
    rec.add("Pod", "MODIFIED", {**waiting, "status": {"phase": "Pending", "nominatedNodeName": "n1"}})
    rec.add("Pod", "MODIFIED", pod("p", node="n1"))  # bound: the nomination is cleared on the object
    state = rec.current()
    assert "v" not in state.pods and state.deleted == {"v"}
    assert state.disrupted["v"]["reason"] == "PreemptionByScheduler"
    assert state.nominated == {"p": "n1"}
    assert "marked DisruptionTarget: v (deleted)" in state.summary() and "nominated: p->n1" in state.summary()


def test_every_wait_is_kept_with_its_span_and_outcome():
    rec = FakeRecorder()
    rec.add("Pod", "ADDED", pod("a"))
    rec.eventually(lambda s: "a" in s.pods, timeout=1, describe="a is there")
    with pytest.raises(WaitTimeout):
        rec.eventually(lambda s: s.bound("g"), timeout=0.05, describe="a is bound")
    rec.never(lambda s: s.bound("g"), window=0.05, describe="nothing bound")
    rec.add("Pod", "MODIFIED", pod("a", node="n1"))
    with pytest.raises(ConditionViolated):
        rec.never(lambda s: s.bound("g"), window=1, describe="still nothing bound")
    assert [(w.kind, w.describe, w.outcome) for w in rec.waits] == [
        ("eventually", "a is there", "met"), ("eventually", "a is bound", "timed out"),
        ("never", "nothing bound", "held"), ("never", "still nothing bound", "violated")]
    assert all(w.start <= w.end <= w.deadline + 0.5 for w in rec.waits)
    assert rec.waits[1].end >= rec.waits[1].deadline  # a timed-out wait lasted to its deadline
    assert rec.waits[3].end < rec.waits[3].deadline   # a violation ends the window at once


def test_a_wait_that_lasts_calls_the_heartbeat_while_it_is_open(monkeypatch):
    monkeypatch.setattr(observe, "HEARTBEAT_SECONDS", 0.05)
    rec = FakeRecorder()
    beats = []
    rec.heartbeat = lambda wait: beats.append((wait.describe, wait.end, time.monotonic() - wait.start))
    rec.add("Pod", "ADDED", pod("a"))
    rec.never(lambda s: s.bound("g"), window=0.28, describe="nothing bound")
    assert len(beats) >= 3, beats
    assert all(describe == "nothing bound" and end is None for describe, end, _ in beats)
    assert [round(b[2], 2) >= 0.05 * (i + 1) - 0.01 for i, b in enumerate(beats)] == [True] * len(beats)
    beats.clear()
    rec.eventually(lambda s: "a" in s.pods, timeout=5, describe="a is there")
    assert beats == []  # a wait that ends at once says nothing
