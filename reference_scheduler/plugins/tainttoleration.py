"""TaintToleration: a node's NoSchedule and NoExecute taints keep out pods that do not tolerate them.

Mirrors pkg/scheduler/framework/plugins/tainttoleration (its Filter).
"""

from __future__ import annotations

from typing import Any

from reference_scheduler.backend.snapshot import NodeInfo
from reference_scheduler.framework import Code, Status
from reference_scheduler.model import Pod


class TaintToleration:
    name = NAME = "TaintToleration"
    ERR_REASON = "node(s) had untolerated taint(s)"

    def sign_pod(self, pod: Pod) -> tuple:
        return (("v1.Pod.Spec.Tolerations", pod.tolerations),)

    def filter(self, state: Any, pod: Pod, info: NodeInfo) -> Status:
        for taint in info.node.taints:
            if taint.effect not in ("NoSchedule", "NoExecute"):
                continue
            if not any(t.tolerates(taint) for t in pod.tolerations):
                return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, self.ERR_REASON, plugin=self.name)
        return Status.success()
