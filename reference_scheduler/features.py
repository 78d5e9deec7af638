"""Feature gates the reference scheduler follows, and the ``--feature-gates`` flag.

Mirrors pkg/features (the gate names) and pkg/scheduler/framework/plugins/feature (the gates as
the scheduler and its plugins read them). GenericWorkload is always on: the reference scheduler
is a gang scheduler.
"""

from __future__ import annotations

import dataclasses

GENERIC_WORKLOAD = "GenericWorkload"
TOPOLOGY_AWARE = "TopologyAwareWorkloadScheduling"
COMPOSITE = "CompositePodGroup"
PREEMPTION_POLICY = "PodGroupPreemptionPolicy"
#: The gates the reference scheduler knows beyond GenericWorkload (which it always has).
FEATURES = frozenset({TOPOLOGY_AWARE, COMPOSITE, PREEMPTION_POLICY})


@dataclasses.dataclass(frozen=True)
class Features:
    """The gates as the core and the plugin factories read them."""

    #: Every pod-group cycle runs the placement algorithm (PlacementGenerate, PlacementScore).
    topology_aware_workload_scheduling: bool = False
    #: PodGroups with a parent are scheduled as one tree under their root CompositePodGroup.
    composite_pod_group: bool = False
    #: A PodGroup's own ``preemptionPolicy`` decides whether it preempts, and its members must
    #: agree with it; without it, any member with ``Never`` stops the group.
    pod_group_preemption_policy: bool = False

    @classmethod
    def of(cls, gates: frozenset[str]) -> Features:
        """The features with ``gates`` on; a gate the reference scheduler does not know is a ValueError."""
        unknown = set(gates) - FEATURES
        if unknown:
            raise ValueError(f"unknown feature gate(s) for the reference scheduler: {', '.join(sorted(unknown))}")
        return cls(topology_aware_workload_scheduling=TOPOLOGY_AWARE in gates, composite_pod_group=COMPOSITE in gates,
                   pod_group_preemption_policy=PREEMPTION_POLICY in gates)


def parse_feature_gates(flag: str) -> frozenset[str]:
    """``A=true,B=false`` to the set of gates on; GenericWorkload is accepted and always on."""
    on: set[str] = set()
    for item in filter(None, (part.strip() for part in flag.split(","))):
        gate, sep, value = item.partition("=")
        if not sep or value.lower() not in ("true", "false"):
            raise ValueError(f"--feature-gates: {item!r} is not GATE=true or GATE=false")
        if gate != GENERIC_WORKLOAD and gate not in FEATURES:
            raise ValueError(f"--feature-gates: unknown gate {gate!r}; known: {GENERIC_WORKLOAD}, "
                             f"{', '.join(sorted(FEATURES))}")
        if value.lower() == "true" and gate in FEATURES:
            on.add(gate)
    return frozenset(on)
