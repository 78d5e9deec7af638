"""The plain pod-placement plugins: names, messages and codes as upstream has them in v1.37.

NodeResourcesFit, TaintToleration, NodeAffinity (nodeSelector and required node affinity),
NodeName, SchedulingGates and PrioritySort. Each exports ``NAME`` and its reason strings.
"""

from __future__ import annotations

from typing import Any

from reference_scheduler.framework import Code, Status
from reference_scheduler.framework.interface import ClusterEventWithHint
from reference_scheduler.model import CPU, MEMORY, Pod
from reference_scheduler.nodeinfo import NodeInfo

MAX_NODE_SCORE = 100


class NodeResourcesFit:
    """Filter: the pod's requests fit in what the node has free. Score: LeastAllocated (the default)."""

    name = NAME = "NodeResourcesFit"
    TOO_MANY_PODS = "Too many pods"

    @staticmethod
    def insufficient(pod: Pod, info: NodeInfo) -> list[str]:
        """The upstream reasons, in upstream order: pods, cpu, memory, then extended resources."""
        free = info.free()
        reasons = []
        if free.pods < 1:
            reasons.append(NodeResourcesFit.TOO_MANY_PODS)
        for name in (CPU, MEMORY):
            if pod.requests.get(name) and pod.requests.get(name) > free.get(name):
                reasons.append(f"Insufficient {name}")
        for name, amount in pod.requests.scalar:
            if amount and amount > free.get(name):
                reasons.append(f"Insufficient {name}")
        return reasons

    def filter(self, state: Any, pod: Pod, info: NodeInfo) -> Status:
        reasons = self.insufficient(pod, info)
        return Status.of(Code.UNSCHEDULABLE, *reasons, plugin=self.name) if reasons else Status.success()

    def score(self, state: Any, pod: Pod, info: NodeInfo) -> tuple[int, Status]:
        """LeastAllocated over cpu and memory, weight 1 each: more room left scores higher."""
        total = 0
        for name in (CPU, MEMORY):
            capacity = info.node.allocatable.get(name)
            used = info.requested.get(name) + pod.requests.get(name)
            total += 0 if capacity == 0 or used > capacity else (capacity - used) * MAX_NODE_SCORE // capacity
        return total // 2, Status.success()


class TaintToleration:
    name = NAME = "TaintToleration"
    #: Filter looks only at the node object and the pod's spec (the scheduler may cache it).
    static = True
    ERR_REASON = "node(s) had untolerated taint(s)"

    def filter(self, state: Any, pod: Pod, info: NodeInfo) -> Status:
        for taint in info.node.taints:
            if taint.effect not in ("NoSchedule", "NoExecute"):
                continue
            if not any(t.tolerates(taint) for t in pod.tolerations):
                return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, self.ERR_REASON, plugin=self.name)
        return Status.success()


def _matches_term(term: dict, labels: dict[str, str], node_name: str) -> bool:
    for expr in term.get("matchExpressions") or []:
        key, op, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
        have = labels.get(key)
        if op == "In" and have not in values:
            return False
        if op == "NotIn" and have in values:
            return False
        if op == "Exists" and have is None:
            return False
        if op == "DoesNotExist" and have is not None:
            return False
        if op in ("Gt", "Lt"):
            try:
                if have is None or not (int(have) > int(values[0]) if op == "Gt" else int(have) < int(values[0])):
                    return False
            except ValueError:
                return False
    for field in term.get("matchFields") or []:
        if field.get("key") == "metadata.name":
            inside = node_name in (field.get("values") or [])
            if (field.get("operator") == "In") != inside:
                return False
    return bool(term.get("matchExpressions") or term.get("matchFields"))


class NodeAffinity:
    """The pod's nodeSelector and its required node affinity (terms are ORed)."""

    name = NAME = "NodeAffinity"
    static = True
    ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"

    def filter(self, state: Any, pod: Pod, info: NodeInfo) -> Status:
        labels = dict(info.node.labels)
        if any(labels.get(k) != v for k, v in pod.node_selector):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, self.ERR_REASON_POD, plugin=self.name)
        if pod.required_affinity and not any(_matches_term(t, labels, info.name) for t in pod.required_affinity):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, self.ERR_REASON_POD, plugin=self.name)
        return Status.success()


class NodeName:
    name = NAME = "NodeName"
    static = True
    ERR_REASON = "node(s) didn't match the requested node name"

    def filter(self, state: Any, pod: Pod, info: NodeInfo) -> Status:
        if pod.node_name and pod.node_name != info.name:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, self.ERR_REASON, plugin=self.name)
        return Status.success()


class SchedulingGates:
    """PreEnqueue: a pod with scheduling gates stays out of the active queue."""

    name = NAME = "SchedulingGates"

    def pre_enqueue(self, pod: Pod) -> Status:
        if not pod.scheduling_gates:
            return Status.success()
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                         f"waiting for scheduling gates: [{' '.join(pod.scheduling_gates)}]", plugin=self.name)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        def gates_eliminated(pod: Pod, old: Any, new: Any) -> bool:
            return isinstance(new, Pod) and new.key == pod.key and not new.scheduling_gates

        return [ClusterEventWithHint("Pod", "Update", gates_eliminated)]


class PrioritySort:
    """QueueSort: higher priority first, then the earlier queue timestamp."""

    name = NAME = "PrioritySort"

    def less(self, a: Any, b: Any) -> bool:
        if a.priority != b.priority:
            return a.priority > b.priority
        return a.timestamp < b.timestamp

    @staticmethod
    def sort_key(entry: Any) -> tuple:
        """The order of :meth:`less` as a sort key (the queue sorts with it when a plugin has one)."""
        return -entry.priority, entry.timestamp
