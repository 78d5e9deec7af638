"""NodeAffinity: the pod's nodeSelector and its required node affinity.

Mirrors pkg/scheduler/framework/plugins/nodeaffinity (its Filter).
"""

from __future__ import annotations

from typing import Any

from reference_scheduler.backend.snapshot import NodeInfo
from reference_scheduler.framework import Code, Status
from reference_scheduler.model import Pod


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
    ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"

    def sign_pod(self, pod: Pod) -> tuple:
        return (("v1.Pod.Spec.Affinity.NodeSelector", pod.node_selector),
                ("v1.Pod.Spec.Affinity.NodeAffinity", repr(pod.required_affinity)))

    def filter(self, state: Any, pod: Pod, info: NodeInfo) -> Status:
        labels = dict(info.node.labels)
        if any(labels.get(k) != v for k, v in pod.node_selector):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, self.ERR_REASON_POD, plugin=self.name)
        if pod.required_affinity and not any(_matches_term(t, labels, info.name) for t in pod.required_affinity):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, self.ERR_REASON_POD, plugin=self.name)
        return Status.success()
