"""TopologyPlacementGenerator: candidate placements per topology domain (TopologyAwareWorkloadScheduling, alpha).

Mirrors pkg/scheduler/framework/plugins/topologyaware (PlacementGenerate); GANG-TAS-001..003.
With the gate on, every pod-group cycle runs the placement algorithm: this plugin proposes node
sets, the ordinary pod-group algorithm runs once per candidate, and the PlacementScore plugins
pick the best feasible one. A group without ``schedulingConstraints.topology`` gets one
placement, the node set it was given. With a topology key ``K`` there is one placement per
distinct value of label ``K`` among those nodes (nodes without the label belong to none); once
members of the group (or, under a CompositePodGroup, of the tree) are scheduled, only the domain
they are in.
"""

from __future__ import annotations

from reference_scheduler.framework import Status
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.handle import Handle
from reference_scheduler.framework.types import Placement, PodGroupInfo

NAME = "TopologyPlacementGenerator"


class TopologyPlacementGenerator:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def generate_placements(self, state: CycleState, group: PodGroupInfo, parent: Placement
                            ) -> tuple[list[Placement], Status]:
        key = group.group.topology_key
        if key is None:
            return [parent], Status.success()
        snapshot = self.handle.snapshot_shared_lister()

        def domain_of(node: str) -> str | None:
            return snapshot[node].node.label(key) if node in snapshot else None

        required: str | None = None
        for leaf in group.leaves:
            for node in self.handle.pod_group_manager.scheduled_nodes(leaf):
                domain = domain_of(node)
                if domain is None:
                    return [], Status.as_error(f"cannot determine domain for already scheduled pods: "
                                               f"no topology domain found for a pod on node {node}", plugin=NAME)
                if required is not None and required != domain:
                    return [], Status.as_error(f"cannot determine domain for already scheduled pods: more than 1 "
                                               f"domain found for pod group: {required}, {domain}", plugin=NAME)
                required = domain
        domains: dict[str, set[str]] = {}
        for node in parent.nodes:
            domain = domain_of(node)
            if domain is not None and (required is None or domain == required):
                domains.setdefault(domain, set()).add(node)
        return [Placement(domain, frozenset(nodes)) for domain, nodes in sorted(domains.items())], Status.success()
