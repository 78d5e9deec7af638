"""The reference scheduler's plugins, as tables: inputs, expected code and message."""

from __future__ import annotations

import dataclasses

import pytest

from reference_scheduler.backend.pod_group_state import GroupState
from reference_scheduler.features import Features
from reference_scheduler import Code
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.types import PlacementProgress
from reference_scheduler.model import Node, Pod, PodGroup, Resources, Taint, Toleration
from reference_scheduler.backend.snapshot import NodeInfo
from reference_scheduler.plugins import gangscheduling as gs
from reference_scheduler.plugins.nodeaffinity import NodeAffinity
from reference_scheduler.plugins.nodename import NodeName
from reference_scheduler.plugins.noderesources import NodeResourcesFit
from reference_scheduler.plugins.queuesort import PrioritySort
from reference_scheduler.plugins.registry import in_tree_profile, in_tree_registry
from reference_scheduler.plugins.schedulinggates import SchedulingGates
from reference_scheduler.plugins.tainttoleration import TaintToleration


def node(name="n1", cpu="4", memory="8Gi", pods="10", gpus=0, labels=None, taints=()) -> NodeInfo:
    alloc = {"cpu": cpu, "memory": memory, "pods": pods, **({"nvidia.com/gpu": str(gpus)} if gpus else {})}
    return NodeInfo(Node(name, tuple(sorted((labels or {}).items())), tuple(taints), Resources.from_map(alloc)))


def pod(name="p", cpu="1", memory="1Gi", gpus=0, group=None, **kw) -> Pod:
    req = {"cpu": cpu, "memory": memory, **({"nvidia.com/gpu": str(gpus)} if gpus else {})}
    return dataclasses.replace(Pod("ns", name, requests=Resources.from_map(req) + Resources(pods=1),
                                   pod_group=group), **kw)


@pytest.mark.parametrize(
    ("the_pod", "info", "reasons"),
    [
        (pod(cpu="1"), node(cpu="4"), []),
        (pod(cpu="5"), node(cpu="4"), ["Insufficient cpu"]),
        (pod(cpu="5", memory="9Gi"), node(cpu="4"), ["Insufficient cpu", "Insufficient memory"]),
        (pod(gpus=1), node(gpus=0), ["Insufficient nvidia.com/gpu"]),
        (pod(gpus=1), node(gpus=1), []),
        (pod(), node(pods="0"), ["Too many pods"]),
    ],
    ids=["fits", "cpu", "cpu-and-memory", "no-gpu", "gpu", "pods"],
)
def test_node_resources_fit(the_pod, info, reasons):
    status = NodeResourcesFit().filter(None, the_pod, info)
    assert list(status.reasons) == reasons
    assert status.code == (Code.UNSCHEDULABLE if reasons else Code.SUCCESS)


def test_node_resources_fit_counts_what_is_already_on_the_node():
    info = node(cpu="2")
    info.add(pod("a", cpu="1500m"))
    assert NodeResourcesFit().filter(None, pod("b", cpu="1"), info).reasons == ("Insufficient cpu",)
    info.remove(pod("a", cpu="1500m"))
    assert NodeResourcesFit().filter(None, pod("b", cpu="1"), info).ok


def test_least_allocated_prefers_the_emptier_node():
    empty, busy = node("empty"), node("busy")
    busy.add(pod("x", cpu="3", memory="6Gi"))
    fit = NodeResourcesFit()
    assert fit.score(None, pod(), empty)[0] > fit.score(None, pod(), busy)[0]


@pytest.mark.parametrize(
    ("tolerations", "taints", "code"),
    [
        ((), (Taint("k", "v", "NoSchedule"),), Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
        ((Toleration("k", "Equal", "v", "NoSchedule"),), (Taint("k", "v", "NoSchedule"),), Code.SUCCESS),
        ((Toleration("k", "Exists"),), (Taint("k", "v", "NoExecute"),), Code.SUCCESS),
        ((Toleration("k", "Equal", "w"),), (Taint("k", "v", "NoSchedule"),), Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
        ((), (Taint("k", "v", "PreferNoSchedule"),), Code.SUCCESS),
    ],
    ids=["untolerated", "equal", "exists", "wrong-value", "prefer"],
)
def test_taint_toleration(tolerations, taints, code):
    status = TaintToleration().filter(None, pod(tolerations=tolerations), node(taints=taints))
    assert status.code == code
    if code != Code.SUCCESS:
        assert status.reasons == (TaintToleration.ERR_REASON,)


def test_node_affinity_selector_and_required_terms():
    plugin = NodeAffinity()
    labelled = node(labels={"pool": "a", "zone": "z1"})
    assert plugin.filter(None, pod(node_selector=(("pool", "a"),)), labelled).ok
    assert plugin.filter(None, pod(node_selector=(("pool", "b"),)), labelled).reasons == (NodeAffinity.ERR_REASON_POD,)
    terms = ({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z2"]}]},
             {"matchExpressions": [{"key": "zone", "operator": "Exists"}]})
    assert plugin.filter(None, pod(required_affinity=terms), labelled).ok
    assert not plugin.filter(None, pod(required_affinity=terms[:1]), labelled).ok


def test_node_name_and_scheduling_gates():
    assert not NodeName().filter(None, pod(node_name="n2"), node("n1")).ok
    assert NodeName().filter(None, pod(node_name="n1"), node("n1")).ok
    status = SchedulingGates().pre_enqueue(pod(scheduling_gates=("a", "b")))
    assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE and status.message() == "waiting for scheduling gates: [a b]"


def test_priority_sort_orders_by_priority_then_time():
    @dataclasses.dataclass
    class Entry:
        priority: int
        timestamp: float
    less = PrioritySort().less
    assert less(Entry(10, 5), Entry(1, 1)) and less(Entry(1, 1), Entry(1, 2)) and not less(Entry(1, 2), Entry(1, 1))


class FakeGroups:
    """The handle's PodGroupManager, as a table."""

    def __init__(self, groups: dict[str, PodGroup], states: dict[str, GroupState]):
        self.groups, self.states = groups, states

    def pod_group(self, namespace, name):
        return self.groups.get(name)

    def state(self, namespace, name):
        return self.states.get(name, GroupState(0, 0))


class FakeHandle:
    """The parts of the Handle GangScheduling uses: the groups, the activator, the waiting pods."""

    def __init__(self, groups: dict[str, PodGroup], states: dict[str, GroupState]):
        self.pod_group_manager = FakeGroups(groups, states)
        self.states = states
        self.activated: list[Pod] = []
        self.allowed: list[str] = []

    def activate(self, pods):
        self.activated.extend(pods)

    def get_waiting_pod(self, pod):
        handle = self

        class Waiting:
            def allow(self, plugin):
                handle.allowed.append(pod.name)
        return Waiting()


def gang(handle: FakeHandle) -> gs.GangScheduling:
    return gs.GangScheduling(handle, Features())


def test_gang_pre_enqueue_gates_until_the_podgroup_and_quorum_exist():
    handle = FakeHandle({"g": PodGroup("ns", "g", min_count=3), "b": PodGroup("ns", "b")},
                        {"g": GroupState(all_pods=2, scheduled=0)})
    plugin = gang(handle)
    assert plugin.pre_enqueue(pod()).ok  # not in a group
    missing = plugin.pre_enqueue(pod(group="nope"))
    assert missing.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert missing.message() == 'waiting for pods\'s pod group "nope" to appear in scheduling queue'
    assert plugin.pre_enqueue(pod(group="g")).message() == gs.WAITING_FOR_QUORUM
    assert plugin.pre_enqueue(pod(group="b")).ok  # basic: no quorum
    handle.states["g"] = GroupState(all_pods=3, scheduled=1)
    assert plugin.pre_enqueue(pod(group="g")).ok


@pytest.mark.parametrize(
    ("min_count", "scheduled", "remaining", "code", "message"),
    [
        (4, 0, 3, Code.UNSCHEDULABLE, "minCount (4) cannot be satisfied: 0 scheduled, 3 remaining"),
        (4, 2, 2, Code.WAIT, "minCount (4) is not yet satisfied: 2 scheduled, 2 remaining"),
        (4, 4, 0, Code.SUCCESS, ""),
        (None, 0, 0, Code.UNSCHEDULABLE, "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining"),
    ],
    ids=["cannot", "not-yet", "satisfied", "basic-none"],
)
def test_gang_placement_feasible(min_count, scheduled, remaining, code, message):
    status = gang(FakeHandle({}, {})).placement_feasible(
        CycleState(), PodGroup("ns", "g", min_count=min_count), PlacementProgress(scheduled, remaining))
    assert status.code == code and status.message() == message


def test_gang_permit_waits_five_minutes_then_the_last_member_allows_the_rest():
    waiting = (pod("a", group="g"), pod("b", group="g"))
    handle = FakeHandle({"g": PodGroup("ns", "g", min_count=3)},
                        {"g": GroupState(all_pods=3, scheduled=2, assumed=waiting, unscheduled=(pod("c", group="g"),))})
    plugin = gang(handle)
    status, timeout = plugin.permit(CycleState(), pod("b", group="g"), "n1")
    assert status.code == Code.WAIT and status.message() == gs.WAITING_AT_PERMIT and timeout == 300
    assert [p.name for p in handle.activated] == ["c"]
    handle.states["g"] = GroupState(all_pods=3, scheduled=3, assumed=waiting + (pod("c", group="g"),))
    status, timeout = plugin.permit(CycleState(), pod("c", group="g"), "n1")
    assert status.ok and timeout == 0 and handle.allowed == ["a", "b", "c"]


def test_gang_requeue_hint_queues_only_on_a_min_count_decrease():
    plugin = gang(FakeHandle({}, {}))
    hint = next(e.hint for e in plugin.events_to_register() if (e.resource, e.action) == ("PodGroup", "Update"))
    member = pod(group="g")
    assert hint(member, PodGroup("ns", "g", min_count=4), PodGroup("ns", "g", min_count=3))
    assert not hint(member, PodGroup("ns", "g", min_count=3), PodGroup("ns", "g", min_count=4))
    assert not hint(member, PodGroup("ns", "g", min_count=3), PodGroup("ns", "g", min_count=3))
    assert not hint(member, PodGroup("ns", "h", min_count=4), PodGroup("ns", "h", min_count=1))


def test_the_in_tree_profile_builds_with_every_gate_on():
    """The one in-tree profile (the scheduler's): each plugin implements the points it is listed
    under (the registry checks it), and there is one instance per plugin."""
    features = Features(topology_aware_workload_scheduling=True, composite_pod_group=True,
                        pod_group_preemption_policy=True)
    profile = in_tree_registry().build_profile(
        "default-scheduler", in_tree_profile(features, "example.com/fault"), handle=FakeHandle({}, {}), features=features)
    assert profile.plugins["NodeResourcesFit"] is profile.at("Score")[0]  # one instance per plugin
    assert set(profile.plugins) == set(in_tree_registry().names())
