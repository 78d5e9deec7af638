"""Placement plugins of TopologyAwareWorkloadScheduling (v1.37, alpha): GANG-TAS-001..003, GANG-SCORE-001.

With the gate on, every pod-group cycle runs the *placement algorithm*: a PlacementGenerate
plugin proposes candidate node sets, the ordinary pod-group algorithm runs once per
candidate, and PlacementScore plugins pick the best feasible one.

* **TopologyPlacement** (PlacementGenerate): a group without ``schedulingConstraints.topology``
  gets one placement, the node set it was given. With a topology key ``K`` there is one
  placement per distinct value of label ``K`` among those nodes (nodes without the label
  belong to none); once members are scheduled, only the domain they are in.
* **PodGroupPodsCount** (PlacementScore, normalized): members already scheduled plus the
  members the placement would take, scaled to 0..100 against the best candidate.
* **NodeResourcesFit** placement score: MostAllocated over the placement's nodes, the group's
  proposed pods included (tighter packing scores higher). Not normalized.

The weights are 1 each, as in the default profile. Upstream breaks ties at random; the
reference takes the first best in domain order, which is one of the outcomes random allows.
"""

from __future__ import annotations

from typing import Callable, Iterable

from reference_scheduler.backend.snapshot import NodeInfo
from reference_scheduler.framework import Code, Status
from reference_scheduler.framework.types import Placement
from reference_scheduler.model import Pod
from reference_scheduler.plugins.noderesources import most_allocated
from reference_scheduler.plugins.podgrouppodscount import PodGroupPodsCount

PLACEMENT = "TopologyPlacement"
NO_FEASIBLE_PLACEMENTS = "no feasible placements found"


def placements_unavailable(total: int, first: str) -> str:
    """The group's message when no candidate placement is feasible (v1.37 reports the first one's)."""
    return f"0/{total} placements are available, first placement status: {first}"


class TopologyPlacement:
    name = NAME = PLACEMENT

    def generate(self, key: str | None, parent: Placement, labels: Callable[[str], dict[str, str]],
                 scheduled_nodes: Iterable[str]) -> tuple[list[Placement], Status]:
        """Candidate placements inside ``parent`` for a group constrained by label ``key``.

        ``scheduled_nodes`` are the nodes the group's (or, under a CompositePodGroup, the
        tree's) already scheduled members run on: they pin the domain.
        """
        if key is None:
            return [parent], Status.success()
        required: str | None = None
        for node in scheduled_nodes:
            domain = labels(node).get(key)
            if domain is None:
                return [], Status.as_error(f"cannot determine domain for already scheduled pods: "
                                           f"no topology domain found for a pod on node {node}", plugin=self.name)
            if required is not None and required != domain:
                return [], Status.as_error(f"cannot determine domain for already scheduled pods: more than 1 "
                                           f"domain found for pod group: {required}, {domain}", plugin=self.name)
            required = domain
        domains: dict[str, set[str]] = {}
        for node in parent.nodes:
            domain = labels(node).get(key)
            if domain is not None and (required is None or domain == required):
                domains.setdefault(domain, set()).add(node)
        if not domains:
            return [], Status.of(Code.UNSCHEDULABLE, NO_FEASIBLE_PLACEMENTS, plugin=self.name)
        return [Placement(domain, frozenset(nodes)) for domain, nodes in sorted(domains.items())], Status.success()


def best_placement(candidates: list[tuple[Placement, int, list[Pod], list[NodeInfo]]]) -> tuple[int | None, Status]:
    """Index of the best of ``(placement, already scheduled, proposed pods, its nodes)``, or an error."""
    if len(candidates) == 1:
        return 0, Status.success()
    counts, status = PodGroupPodsCount.normalize(
        [PodGroupPodsCount.score(scheduled, len(proposed)) for _, scheduled, proposed, _ in candidates])
    if not status.ok:
        return None, status
    totals = [count + most_allocated(nodes, proposed) for count, (_, _, proposed, nodes) in zip(counts, candidates)]
    return max(range(len(totals)), key=lambda i: (totals[i], -i)), Status.success()
