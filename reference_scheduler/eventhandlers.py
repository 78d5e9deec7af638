"""Event handlers: what an informer event does to the cache, the queue, the nominator and the waiting pods.

Mirrors pkg/scheduler/eventhandlers.go (``addNodeToCache`` … ``deletePod``, ``addPodGroup``,
``addCompositePodGroup``). Node changes and freed capacity move every entity out of the
unschedulable pool; other events requeue gated entities only as the gating plugin's queueing
hints say (``move_gated_on_event``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reference_scheduler.framework.types import EntityKey
from reference_scheduler.model import CompositePodGroup, Node, Pod, PodGroup

if TYPE_CHECKING:
    from reference_scheduler.scheduler import Scheduler


class EventHandlers:
    def __init__(self, sched: Scheduler) -> None:
        self.sched = sched

    def on_node(self, node: Node | None, name: str) -> None:
        """A node was added or changed (``node``) or deleted (``None``)."""
        cache = self.sched.cache
        if node is None:
            cache.remove_node(name)
        elif cache.set_node(name, node):
            self.sched.queue.move_all_to_active()

    def on_pod(self, pod: Pod | None, key: str) -> None:
        """A pod was added or changed (``pod``) or deleted (``None``)."""
        sched = self.sched
        cache, queue = sched.cache, sched.queue
        if pod is None or (pod.node_name == "" and pod.deleting):
            old = cache.remove_pod(key)
            sched.nominator.delete(key)
            sched.waiting_pods.pop(key)
            if old is not None and old.node_name:
                queue.move_all_to_active()  # freed capacity
            queue.delete_if_empty(old)
            return
        old = cache.update_pod(key, pod)
        if pod.node_name:
            sched.nominator.delete(key)
        if old is not None and old.node_name and not pod.active:
            queue.move_all_to_active()  # a finished pod frees its node
        if not pod.node_name and pod.scheduler_name in sched.scheduler_names and pod.active:
            queue.add(pod)
        if pod.node_name and (old is None or not old.node_name):
            queue.move_gated_on_event("AssignedPod", "Add", old, pod)
        elif old is None:
            queue.move_gated_on_event("UnscheduledPod", "Add", None, pod)
        else:
            queue.move_gated_on_event("Pod", "Update", old, pod)

    def on_composite_pod_group(self, cpg: CompositePodGroup | None, key: str) -> None:
        """A CompositePodGroup was added or changed, or deleted (``None``): its tree may now be complete."""
        sched = self.sched
        if cpg is None:
            sched.cache.remove_composite_pod_group(key)
            return
        if sched.cache.update_composite_pod_group(key, cpg):
            sched.queue.move_gated_on_event("CompositePodGroup", "Add", None, cpg)
            root = key if cpg.parent is None else sched.forest.root_of(cpg)
            if root:
                sched.queue.activate_entities(EntityKey.pod_group(leaf.key) for leaf in sched.forest.leaves(root))

    def on_pod_group(self, group: PodGroup | None, key: str) -> None:
        """A PodGroup was added or changed, or deleted (``None``)."""
        sched = self.sched
        if group is None:
            sched.cache.remove_pod_group(key)
            return
        old = sched.cache.update_pod_group(key, group)
        sched.queue.move_gated_on_event("PodGroup", "Add" if old is None else "Update", old, group)
        entity_key = EntityKey.pod_group(key)
        sched.queue.set_priority(entity_key, group.priority)
        decreased = old is not None and old.is_gang and group.is_gang and group.min_count < old.min_count
        if old is None or decreased:
            sched.queue.activate_entities([entity_key])
