"""PodGroupPodsCount: among feasible placements, prefer the one that holds more of the group.

Mirrors pkg/scheduler/framework/plugins/podgrouppodscount (PlacementScore, normalized): the
members already scheduled plus the members the placement would take, scaled to 0..100 against
the best candidate.
"""

from __future__ import annotations

from reference_scheduler.framework import Status
from reference_scheduler.framework.interface import MAX_NODE_SCORE

PODS_COUNT = "PodGroupPodsCount"
NO_PODS_ASSIGNED = "no pods from pod group are assigned to any of the candidate placements"


class PodGroupPodsCount:
    name = NAME = PODS_COUNT

    @staticmethod
    def score(scheduled: int, proposed: int) -> int:
        return scheduled + proposed

    @staticmethod
    def normalize(scores: list[int]) -> tuple[list[int], Status]:
        best = max(scores, default=0)
        if best == 0:
            return scores, Status.as_error(NO_PODS_ASSIGNED, plugin=PODS_COUNT)
        return [score * MAX_NODE_SCORE // best for score in scores], Status.success()
