"""DynamicResources: the PodGroupPostFilter verdict v1.37.2 gives for a pod group without ResourceClaims.

Mirrors the PodGroupPostFilter of pkg/scheduler/framework/plugins/dynamicresources: it looks for
allocated claims whose release could help the group. The reference models no ResourceClaims, so
it always finds none and says so, as v1.37.2 does; it runs before DefaultPreemption (upstream
would rather free an idle claim than evict a pod). It says nothing for a CompositePodGroup, nor,
with TopologyAwareWorkloadScheduling on, for a PodGroup with a topology constraint (v1.37.2 does
not handle those).
"""

from __future__ import annotations

from reference_scheduler.features import Features
from reference_scheduler.framework import Code, Status
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.interface import PodGroupSchedulingFunc
from reference_scheduler.framework.types import PodGroupInfo
from reference_scheduler.model import PodGroup

NAME = "DynamicResources"
#: The verdict when it had no claim to release (v1.37.2 reports it for every PodGroup it looks at).
CLAIMS_RELEASED = "deallocation and deletion of ResourceClaims completed"


class DynamicResources:
    name = NAME

    def __init__(self, features: Features) -> None:
        self.topology_aware = features.topology_aware_workload_scheduling

    def pod_group_post_filter(self, state: CycleState, group: PodGroupInfo, schedule: PodGroupSchedulingFunc
                              ) -> tuple[None, Status]:
        podgroup = group.group
        if not isinstance(podgroup, PodGroup) or (self.topology_aware and podgroup.topology_key):
            return None, Status.of(Code.UNSCHEDULABLE, plugin=NAME)
        return None, Status.of(Code.UNSCHEDULABLE, CLAIMS_RELEASED, plugin=NAME)
