"""The workload forest: CompositePodGroup trees over the cache's PodGroups and CompositePodGroups.

Mirrors pkg/scheduler/backend/queue/workload_forest.go. A PodGroup that names a parent is a leaf
of the tree under its root CompositePodGroup; with CompositePodGroup on, the tree is scheduled as
one entity.
"""

from __future__ import annotations

from reference_scheduler.backend.cache import Cache
from reference_scheduler.model import CompositePodGroup, PodGroup


class WorkloadForest:
    def __init__(self, cache: Cache, *, enabled: bool) -> None:
        self.cache = cache
        #: CompositePodGroup is on: PodGroups with a parent are scheduled as one tree.
        self.enabled = enabled

    def root_of(self, group: PodGroup | CompositePodGroup) -> str | None:
        """Key of the tree's root CompositePodGroup, or None when a CompositePodGroup on the way is missing."""
        key, seen = group.parent_key, set()
        while key is not None:
            if key in seen:
                return None  # a cycle: the apiserver should have refused it; treat as incomplete
            seen.add(key)
            parent = self.cache.composites.get(key)
            if parent is None:
                return None
            if parent.parent_key is None:
                return key
            key = parent.parent_key
        return None

    def tree_root(self, group: PodGroup) -> str | None:
        """The root CompositePodGroup a group is scheduled with, or None for a standalone group."""
        return self.root_of(group) if self.enabled and group.parent else None

    def children(self, cpg_key: str) -> list[PodGroup | CompositePodGroup]:
        """The direct children of a CompositePodGroup, in the order a cycle tries them (by name)."""
        found = [g for g in self.cache.groups.values() if g.parent_key == cpg_key]
        found += [c for c in self.cache.composites.values() if c.parent_key == cpg_key]
        return sorted(found, key=lambda g: g.name)

    def leaves(self, cpg_key: str) -> list[PodGroup]:
        out: list[PodGroup] = []
        for child in self.children(cpg_key):
            out.extend(self.leaves(child.key) if isinstance(child, CompositePodGroup) else [child])
        return out

    def in_tree(self, root_key: str, group_key: str) -> bool:
        """Whether a PodGroup or CompositePodGroup key belongs to the tree under ``root_key``."""
        group = self.cache.groups.get(group_key) or self.cache.composites.get(group_key)
        return group is not None and (group.key == root_key or self.root_of(group) == root_key)
