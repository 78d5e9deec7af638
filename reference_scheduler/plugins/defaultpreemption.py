"""DefaultPreemption: PostFilter for a pod, PodGroupPostFilter for a pod group (workload-aware).

Mirrors pkg/scheduler/framework/plugins/defaultpreemption; the victims are chosen by the
evaluator in :mod:`reference_scheduler.framework.preemption`. Its verdicts and the
DisruptionTarget message are v1.37.2's.
"""

from __future__ import annotations

NAME = "DefaultPreemption"
#: What v1.37.2 puts before every PodGroupPostFilter verdict of this plugin.
PREFIX = "pod group preemption: "
NO_VICTIMS_FOR_GROUP = f"{PREFIX}No preemption victims found for incoming preemptor"
NOT_ELIGIBLE = f"{PREFIX}not eligible due to preemptionPolicy=Never."


def found_placement(victims: int) -> str:
    """The verdict of a successful PodGroupPostFilter; ``victims`` counts pods, not units."""
    return f"{PREFIX}found a placement for podgroup, preempting {victims} victims"


def disruption_message(scheduler_name: str, by_group: bool) -> str:
    return f"{scheduler_name}: preempting to accommodate a higher priority {'podgroup' if by_group else 'pod'}"
