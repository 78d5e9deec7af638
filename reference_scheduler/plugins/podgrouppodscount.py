"""PodGroupPodsCount: among feasible placements, prefer the one that holds more of the group (GANG-SCORE-001).

Mirrors pkg/scheduler/framework/plugins/podgrouppodscount (PlacementScore, normalized): the
members already scheduled plus the members the placement would take, scaled to 0..100 against
the best candidate.
"""

from __future__ import annotations

from reference_scheduler.framework import Status
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.handle import Handle
from reference_scheduler.framework.interface import MAX_NODE_SCORE
from reference_scheduler.framework.types import PodGroupAssignments, PodGroupInfo

NAME = "PodGroupPodsCount"
NO_PODS_ASSIGNED = "no pods from pod group are assigned to any of the candidate placements"


class PodGroupPodsCount:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def score_placement(self, state: CycleState, group: PodGroupInfo, assignments: PodGroupAssignments
                        ) -> tuple[int, Status]:
        groups = self.handle.pod_group_manager
        scheduled = sum(groups.state(leaf.namespace, leaf.name).scheduled for leaf in group.leaves)
        return scheduled + len(assignments.proposed), Status.success()

    def normalize_placement_score(self, state: CycleState, group: PodGroupInfo, scores: list[int]) -> Status:
        best = max(scores, default=0)
        if best == 0:
            return Status.as_error(NO_PODS_ASSIGNED, plugin=NAME)
        scores[:] = [score * MAX_NODE_SCORE // best for score in scores]
        return Status.success()
