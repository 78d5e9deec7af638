"""Placement properties of the reference scheduler over random clusters and gangs (hypothesis).

The preemption properties (victims' priority, ``disruptionMode: all``) are in test_preemption.py.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fakes import Cluster

from reference_scheduler.plugins.noderesources import NodeResourcesFit
from reference_scheduler.plugins.registry import in_tree_registry

node_cpus = st.lists(st.integers(min_value=1, max_value=8), min_size=1, max_size=8)
gang_shapes = st.lists(
    st.tuples(st.integers(min_value=1, max_value=6),   # members
              st.integers(min_value=1, max_value=6),   # minCount (clipped to members)
              st.integers(min_value=1, max_value=4)),  # cpu per member
    min_size=1, max_size=5)


def _build(cpus: list[int], gangs: list[tuple[int, int, int]]) -> tuple[Cluster, dict[str, int]]:
    cluster = Cluster()
    for i, cpu in enumerate(cpus):
        cluster.nodes(1, cpu=str(cpu), prefix=f"n{i}-")
    quorum = {}
    for g, (members, min_count, cpu) in enumerate(gangs):
        name = f"g{g}"
        quorum[name] = min(min_count, members)
        cluster.group(name, min_count=quorum[name])
        for m in range(members):
            cluster.pod(f"{name}-{m}", group=name, cpu=str(cpu))
            cluster.clock.advance(0.001)
    cluster.run()
    return cluster, quorum


@settings(max_examples=150, deadline=None)
@given(node_cpus, gang_shapes)
def test_all_or_nothing_holds_at_initial_placement(cpus, gangs):
    cluster, quorum = _build(cpus, gangs)
    for name, need in quorum.items():
        bound = len(cluster.bound(f"{name}-"))
        assert bound == 0 or bound >= need, (name, bound, need, cpus, gangs)


@settings(max_examples=150, deadline=None)
@given(node_cpus, gang_shapes)
def test_no_node_is_ever_overcommitted(cpus, gangs):
    cluster, _ = _build(cpus, gangs)
    for info in cluster.scheduler.cache.nodes.values():
        assert info.requested.milli_cpu <= info.node.allocatable.milli_cpu, info
        used = sum(p.requests.milli_cpu for p in info.pods.values())
        assert used == info.requested.milli_cpu


@settings(max_examples=150, deadline=None)
@given(node_cpus, st.integers(min_value=1, max_value=4), st.integers(min_value=1, max_value=10),
       st.integers(min_value=1, max_value=10))
def test_a_homogeneous_gang_that_fits_somewhere_is_placed(cpus, cpu, members, min_count):
    min_count = min(min_count, members)
    capacity = sum(c // cpu for c in cpus)  # identical members: how many fit in total
    cluster, _ = _build(cpus, [(members, min_count, cpu)])
    bound = len(cluster.bound("g0-"))
    if capacity >= min_count:
        assert bound == min(members, capacity), (cpus, cpu, members, min_count, bound)
    else:
        assert bound == 0


class PlainFit:
    """NodeResourcesFit node by node: the in-tree plugin without its all-nodes-at-once method."""

    name = NodeResourcesFit.NAME

    def __init__(self) -> None:
        self.fit = NodeResourcesFit()

    def filter(self, state, pod, info):
        return self.fit.filter(state, pod, info)

    def score(self, state, pod, info):
        return self.fit.score(state, pod, info)


@settings(max_examples=100, deadline=None)
@given(node_cpus, gang_shapes, st.integers(min_value=0, max_value=2))
def test_the_vectorized_resource_fit_decides_exactly_as_the_plain_one(cpus, gangs, gpus):
    def build(vector: bool):
        registry = in_tree_registry()
        if not vector:
            registry.unregister(NodeResourcesFit.NAME)
            registry.register(NodeResourcesFit.NAME, lambda args, handle, features: PlainFit())
        cluster = Cluster(registry=registry)
        assert (cluster.scheduler.framework.batch_filter_score is not None) == vector
        for i, cpu in enumerate(cpus):
            cluster.nodes(1, cpu=str(cpu), gpus=gpus if i % 2 else 0, prefix=f"n{i}-")
        for g, (members, min_count, cpu) in enumerate(gangs):
            cluster.group(f"g{g}", min_count=min(min_count, members))
            for m in range(members):
                cluster.pod(f"g{g}-{m}", group=f"g{g}", cpu=str(cpu), gpus=1 if g % 2 else 0)
                cluster.clock.advance(0.001)
        cluster.run()
        return cluster

    fast, plain = build(True), build(False)
    assert fast.binds == plain.binds
    assert fast.conditions == plain.conditions
    assert fast.group_conditions == plain.group_conditions


racks_of_nodes = st.lists(st.tuples(st.integers(min_value=0, max_value=2),   # rack
                                    st.integers(min_value=1, max_value=6)),  # cpu
                          min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(racks_of_nodes, gang_shapes)
def test_a_topology_constrained_gang_never_spans_two_domains(nodes, gangs):
    from reference_scheduler.features import TOPOLOGY_AWARE

    cluster = Cluster(features=frozenset({TOPOLOGY_AWARE}))
    for i, (rack, cpu) in enumerate(nodes):
        cluster.nodes(1, cpu=str(cpu), prefix=f"r{rack}-{i}-", labels={"rack": f"r{rack}"})
    quorum = {}
    for g, (members, min_count, cpu) in enumerate(gangs):
        name = f"g{g}"
        quorum[name] = min(min_count, members)
        cluster.group(name, min_count=quorum[name], topology="rack")
        for m in range(members):
            cluster.pod(f"{name}-{m}", group=name, cpu=str(cpu))
            cluster.clock.advance(0.001)
    cluster.run()
    for name, need in quorum.items():
        bound = cluster.bound(f"{name}-")
        assert len(bound) == 0 or len(bound) >= need, (name, bound, need)
        assert len({cluster.node_of(p).split("-")[0] for p in bound}) <= 1, (name, bound)
