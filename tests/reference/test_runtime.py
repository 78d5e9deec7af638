"""The framework runtime: every extension point runs, in upstream's order, with one CycleState per
cycle; scores are normalized and weighted; Permit waits per plugin; Bind and PreBind verdicts."""

from __future__ import annotations

import dataclasses

import pytest
from fakes import Cluster

from reference_scheduler import Pod, SimClock
from reference_scheduler.features import TOPOLOGY_AWARE, Features
from reference_scheduler.framework import EXTENSION_POINTS, Code, Status
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.types import EntityKey
from reference_scheduler.framework.waiting_pods import WaitingPods
from reference_scheduler.plugins.registry import in_tree_profile, in_tree_registry

RECORDER = "Recorder"


class Recorder:
    """A plugin at every extension point that changes nothing and writes down what ran, for which
    pod (or group), with which cycle state."""

    name = RECORDER

    def __init__(self) -> None:
        #: (point, pod or group name, cycle state, whether it was a pod-group cycle state then)
        self.calls: list[tuple[str, str, CycleState | None, bool]] = []

    def _saw(self, point: str, who, state: CycleState | None = None) -> None:
        assert state is None or isinstance(state, CycleState), (point, state)
        self.calls.append((point, getattr(who, "name", str(who)), state, state is not None and state.pod_group_cycle))

    def points(self, who: str | None = None) -> list[str]:
        """The points in the order they ran (repeats in a row counted once), for one pod or group."""
        out: list[str] = []
        for point, name, _, _ in self.calls:
            if (who is None or name == who) and (not out or out[-1] != point):
                out.append(point)
        return out

    def pre_enqueue(self, pod):
        self._saw("PreEnqueue", pod)
        return Status.success()

    def pre_filter(self, state, pod, snapshot):
        self._saw("PreFilter", pod, state)
        return None, Status.success()

    def filter(self, state, pod, node):
        self._saw("Filter", pod, state)
        return Status.success()

    def post_filter(self, state, pod, statuses):
        self._saw("PostFilter", pod, state)
        return None, Status.of(Code.UNSCHEDULABLE)

    def pre_score(self, state, pod, nodes):
        self._saw("PreScore", pod, state)
        return Status.success()

    def score(self, state, pod, node):
        self._saw("Score", pod, state)
        return 0, Status.success()

    def reserve(self, state, pod, node_name):
        self._saw("Reserve", pod, state)
        return Status.success()

    def unreserve(self, state, pod, node_name):
        self._saw("Unreserve", pod, state)

    def permit(self, state, pod, node_name):
        self._saw("Permit", pod, state)
        return Status.success(), 0

    def pre_bind_pre_flight(self, state, pod, node_name):
        return Status.success()

    def pre_bind(self, state, pod, node_name):
        self._saw("PreBind", pod, state)
        return Status.success()

    def bind(self, state, pod, node_name):
        self._saw("Bind", pod, state)
        return Status.of(Code.SKIP)  # the next Bind plugin (DefaultBinder) binds

    def post_bind(self, state, pod, node_name):
        self._saw("PostBind", pod, state)

    def generate_placements(self, state, group, parent):
        self._saw("PlacementGenerate", group.group, state)
        return [parent, dataclasses.replace(parent, name="again")], Status.success()  # two feasible: scored

    def placement_feasible(self, state, group, progress):
        self._saw("PlacementFeasible", group, state)
        return Status.success()

    def score_placement(self, state, group, assignments):
        self._saw("PlacementScore", group.group, state)
        return 0, Status.success()

    def pod_group_post_filter(self, state, group, schedule):
        self._saw("PodGroupPostFilter", group.group, state)
        return None, Status.of(Code.UNSCHEDULABLE)


def recorded(features: frozenset[str] = frozenset()) -> tuple[Cluster, Recorder]:
    """A fake cluster whose profile is the in-tree one with the recorder first at every point but
    QueueSort (it passes, and Skips Bind, so the in-tree plugins after it decide as they would alone)."""
    recorder = Recorder()
    registry = in_tree_registry()
    registry.register(RECORDER, lambda args, handle, features: recorder)
    profile = in_tree_profile(Features.of(features))
    for point in EXTENSION_POINTS:
        if point != "QueueSort":
            profile.plugins[point].insert(0, RECORDER)
    return Cluster(features=features, registry=registry, profile=profile), recorder


def with_plugin(point: str, plugin, weight: int | None = None) -> Cluster:
    """A fake cluster whose profile is the in-tree one with ``plugin`` added last at ``point``."""
    registry = in_tree_registry()
    registry.register(plugin.name, lambda args, handle, features: plugin)
    profile = in_tree_profile(Features())
    profile.plugins[point].append(plugin.name)
    if weight is not None:
        profile.weights[plugin.name] = weight
    return Cluster(registry=registry, profile=profile)


def test_a_pod_meets_every_point_of_its_cycle_in_order_with_one_cycle_state():
    cluster, recorder = recorded()
    cluster.nodes(2)
    cluster.pod("solo")
    cluster.run()
    assert cluster.bound() == ["solo"]
    assert recorder.points("solo") == ["PreEnqueue", "PreFilter", "Filter", "PreScore", "Score", "Reserve", "Permit",
                                       "PreBind", "Bind", "PostBind"]
    states = {id(state) for _, _, state, _ in recorder.calls if state is not None}
    assert len(states) == 1 and not any(trial for *_, trial in recorder.calls)


def test_a_pod_that_does_not_fit_meets_post_filter():
    cluster, recorder = recorded()
    cluster.nodes(1, cpu="1")
    cluster.pod("big", cpu="2")
    cluster.run()
    assert recorder.points("big") == ["PreEnqueue", "PreFilter", "Filter", "PostFilter"]
    assert cluster.conditions["big"][1].startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_a_gang_meets_the_pod_group_points_with_a_state_per_pod_and_trial_reserves_reverted():
    cluster, recorder = recorded(frozenset({TOPOLOGY_AWARE}))
    cluster.nodes(2)
    cluster.group("g", min_count=2)
    cluster.pod("g-0", group="g")
    cluster.pod("g-1", group="g")
    cluster.run()
    assert sorted(cluster.bound()) == ["g-0", "g-1"]
    assert recorder.points("g") == ["PlacementGenerate", "PlacementFeasible", "PlacementScore"]
    trial = ["PreFilter", "Filter", "PreScore", "Score", "Reserve"]
    hand_over = ["Reserve", "Permit", "PreBind", "Bind", "PostBind"]
    # Both placements are tried, then the trial Reserves reverted; then the hand-over, member by member.
    assert recorder.points("g-0") == ["PreEnqueue", *trial, "Unreserve", *trial, "Unreserve", *hand_over]
    per_pod = [(point, state, trial) for point, name, state, trial in recorder.calls if name == "g-0"]
    tried = [(s, trial) for p, s, trial in per_pod if p in ("PreFilter", "Filter", "Score")]
    assert len({id(s) for s, _ in tried}) == 2 and all(trial for _, trial in tried), \
        "one pod-group cycle state per pod per placement tried"
    handed = [(s, trial) for p, s, trial in per_pod if p in ("Permit", "Bind")]
    assert all(s is handed[0][0] and not trial for s, trial in handed), "handed over with its state, out of the trial"


def test_a_gang_that_does_not_fit_meets_pod_group_post_filter():
    cluster, recorder = recorded()
    cluster.nodes(1, cpu="1")
    cluster.group("g", min_count=2)
    cluster.pod("g-0", group="g")
    cluster.pod("g-1", group="g")
    cluster.run()
    assert cluster.binds == []
    assert recorder.points("g") == ["PlacementFeasible", "PodGroupPostFilter"]
    assert "PostFilter" not in recorder.points(), "a pod-group cycle runs no PostFilter per pod"


class PreferNode:
    """A Score plugin with raw scores far above 100 (1000 for its node, 800 for the others) that
    normalizes them to 0..100 (100 and 80)."""

    name = "PreferNode"

    def __init__(self, node: str, normalizes: bool = True) -> None:
        self.node = node
        if not normalizes:
            self.normalize_score = None

    def score(self, state, pod, info):
        return (1000 if info.name == self.node else 800), Status.success()

    def normalize_score(self, state, pod, scores):
        top = max(scores) or 1
        scores[:] = [s * 100 // top for s in scores]
        return Status.success()


@pytest.mark.parametrize(("weight", "chosen"), [(1, "n0"), (3, "n1")])
def test_scores_are_normalized_then_weighted(weight, chosen):
    """n0 is empty and n1 half full: NodeResourcesFit (LeastAllocated) gives n0 87 and n1 61; the other
    plugin prefers n1 by 20 after normalizing, so n1 wins only when its weight makes that more than 26."""
    cluster = with_plugin("Score", PreferNode("n1"), weight)
    cluster.nodes(2, cpu="4")
    busy = Pod("ns", "busy", node_name="n1", requests=cluster.pod("probe", cpu="2").requests)
    cluster.scheduler.on_pod(None, "ns/probe")
    cluster.binds.clear()
    cluster.scheduler.on_pod(busy, busy.key)
    cluster.pod("p", cpu="1")
    cluster.run()
    assert cluster.node_of("p") == chosen


def test_a_score_out_of_range_after_normalizing_is_an_error():
    cluster = with_plugin("Score", PreferNode("n1", normalizes=False))
    cluster.nodes(2, cpu="4")
    cluster.pod("p", cpu="1")
    cluster.run()
    assert cluster.binds == []
    assert cluster.conditions["p"] == ("SchedulerError", 'plugin "PreferNode" returns an invalid score 800, it '
                                                         "should in the range of [0, 100] after normalizing")


def test_each_permit_plugin_has_its_own_timer_and_the_rejection_names_the_one_that_timed_out():
    clock = SimClock()
    waiting = WaitingPods(clock)
    outcomes: list[Status] = []
    pod = Pod("ns", "p")
    held = waiting.add(pod, "n1", CycleState(), {"Slow": 600.0, "Quick": 90.5}, lambda w, status: outcomes.append(status))
    held.allow("Slow")  # one of the two lets it go: it still waits for the other
    assert "ns/p" in waiting and outcomes == []
    clock.advance(90.5)
    assert outcomes == [Status.of(Code.UNSCHEDULABLE, "rejected due to timeout after waiting 1m30.5s at plugin Quick",
                                  plugin="Quick")]
    assert "ns/p" not in waiting and clock.pending == 0, "the other plugin's timer is cancelled with it"

    again = waiting.add(pod, "n1", CycleState(), {"A": 10.0, "B": 20.0}, lambda w, status: outcomes.append(status))
    again.allow("A")
    again.allow("B")
    assert outcomes[-1].ok and "ns/p" not in waiting and clock.pending == 0


class FailingPreBind:
    name = "FailingPreBind"

    def pre_bind_pre_flight(self, state, pod, node_name):
        return Status.success() if pod.name.startswith("fail") else Status.of(Code.SKIP)

    def pre_bind(self, state, pod, node_name):
        return Status.as_error("volume not ready", plugin=self.name)


def test_a_pre_bind_failure_sends_the_pod_back_and_a_skipping_pre_flight_skips_pre_bind():
    cluster = with_plugin("PreBind", FailingPreBind())
    cluster.nodes(1)
    cluster.pod("fail-0")
    cluster.pod("ok-0")
    cluster.run()
    assert cluster.bound() == ["ok-0"]
    assert cluster.conditions["fail-0"] == ("SchedulerError", "volume not ready")
    assert cluster.scheduler.cache.assumed == {}, "the failed pod is forgotten"


class Waiter:
    """A Permit plugin that holds every pod for ten seconds and never allows it."""

    name = "Waiter"

    def permit(self, state, pod, node_name):
        return Status.of(Code.WAIT, "held", plugin=self.name), 10.0


def test_a_pod_without_a_group_waits_at_permit_and_is_rejected_at_its_plugins_timeout():
    cluster = with_plugin("Permit", Waiter())
    cluster.nodes(1)
    solo = cluster.pod("solo")
    cluster.run()
    entity = cluster.scheduler.queue.get(EntityKey.of(solo))
    assert cluster.waiting() == {"ns/solo"} and cluster.binds == [] and entity.backoff_until == 0, "waiting, not failed"
    cluster.clock.advance(10)
    assert cluster.conditions["solo"] == (
        "Unschedulable", "0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin Waiter.")
    assert cluster.waiting() == set() and entity.backoff_until > cluster.clock.now(), "rejected, then backed off"
