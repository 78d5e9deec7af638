"""NodeName: a pod that names a node fits only there.

Mirrors pkg/scheduler/framework/plugins/nodename.
"""

from __future__ import annotations

from typing import Any

from reference_scheduler.backend.snapshot import NodeInfo
from reference_scheduler.framework import Code, Status
from reference_scheduler.model import Pod


class NodeName:
    name = NAME = "NodeName"
    ERR_REASON = "node(s) didn't match the requested node name"

    def sign_pod(self, pod: Pod) -> tuple:
        return (("v1.Pod.Spec.NodeName", pod.node_name),)

    def filter(self, state: Any, pod: Pod, info: NodeInfo) -> Status:
        if pod.node_name and pod.node_name != info.name:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, self.ERR_REASON, plugin=self.name)
        return Status.success()
