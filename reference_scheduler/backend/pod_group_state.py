"""Pod-group state: what the scheduler knows of a PodGroup's (or a tree's) members right now.

Mirrors pkg/scheduler/backend/cache/podgroupstate.go and the ``PodGroupManager`` the handle
gives plugins (k8s.io/kube-scheduler/framework/listers.go). Only the members this scheduler
serves and that are active count.
"""

from __future__ import annotations

import dataclasses

from reference_scheduler.backend.cache import Cache
from reference_scheduler.backend.workload_forest import WorkloadForest
from reference_scheduler.model import CompositePodGroup, Pod, PodGroup


@dataclasses.dataclass(frozen=True)
class GroupState:
    """A PodGroup's members: how many there are, how many are scheduled, which are assumed or unscheduled."""

    all_pods: int
    #: Members assumed (placed in this scheduler's memory, not yet bound) or bound.
    scheduled: int
    assumed: tuple[Pod, ...] = ()
    unscheduled: tuple[Pod, ...] = ()


class PodGroupManager:
    def __init__(self, cache: Cache, forest: WorkloadForest, scheduler_names: frozenset[str]) -> None:
        self.cache, self.forest, self.scheduler_names = cache, forest, scheduler_names

    @property
    def pod_groups(self) -> dict[str, PodGroup]:
        """Every PodGroup by key (the PodGroup lister)."""
        return self.cache.groups

    def pod_group(self, namespace: str, name: str) -> PodGroup | None:
        return self.cache.groups.get(f"{namespace}/{name}")

    def state(self, namespace: str, name: str) -> GroupState:
        key = f"{namespace}/{name}"
        assumed_nodes = self.cache.assumed
        mine = [p for p in self.cache.members(key) if p.scheduler_name in self.scheduler_names and p.active]
        assumed = tuple(p for p in mine if p.key in assumed_nodes and not p.node_name)
        unscheduled = tuple(p for p in mine if not p.node_name and p.key not in assumed_nodes)
        return GroupState(all_pods=len(mine), scheduled=sum(1 for p in mine if p.node_name) + len(assumed),
                          assumed=assumed, unscheduled=unscheduled)

    def scheduled_nodes(self, group: PodGroup) -> list[str]:
        """The nodes the group's members are bound or assumed to."""
        assumed = self.cache.assumed
        return [p.node_name or assumed[p.key] for p in self.cache.members(group.key)
                if p.active and (p.node_name or p.key in assumed)]

    # -- trees (CompositePodGroup on) -----------------------------------------------------------------

    def root_of(self, group: PodGroup) -> str | None:
        """Key of the tree's root CompositePodGroup, or None when a CompositePodGroup on the way is missing."""
        return self.forest.root_of(group)

    def in_tree(self, root_key: str, group_key: str) -> bool:
        return self.forest.in_tree(root_key, group_key)

    def tree_state(self, root_key: str) -> GroupState:
        """The members of every leaf of the tree, together."""
        states = [self.state(leaf.namespace, leaf.name) for leaf in self.forest.leaves(root_key)]
        return GroupState(
            all_pods=sum(s.all_pods for s in states), scheduled=sum(s.scheduled for s in states),
            assumed=tuple(p for s in states for p in s.assumed), unscheduled=tuple(p for s in states for p in s.unscheduled))

    def tree_ready(self, root_key: str, count: str) -> bool:
        """Whether the tree meets its quorum, counting each leaf's ``all`` members or ``scheduled`` ones."""
        def ready(node: PodGroup | CompositePodGroup) -> bool:
            if isinstance(node, CompositePodGroup):
                return sum(1 for child in self.forest.children(node.key) if ready(child)) >= node.quorum
            state = self.state(node.namespace, node.name)
            return (state.all_pods if count == "all" else state.scheduled) >= node.quorum

        root = self.cache.composites.get(root_key)
        return root is not None and ready(root)
