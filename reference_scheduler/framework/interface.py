"""One protocol per extension point, named as upstream names them.

A plugin is any object with a ``name`` and the methods of the points it is enabled at; the
registry checks that when a profile is built (the Python form of upstream's
``var _ framework.FilterPlugin = &NodeName{}``). Contracts that upstream writes on its
interfaces are written here on the protocols.

Types are loose on purpose (``Any`` for pods, nodes and cycle state): the objects are those of
:mod:`reference_scheduler` and the framework does not look inside them.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Protocol, runtime_checkable

from reference_scheduler.framework.status import Status

#: The highest score a Score or PlacementScore plugin gives after normalization (upstream's MaxNodeScore).
MAX_NODE_SCORE = 100


@dataclasses.dataclass(frozen=True)
class CycleState:
    """What a plugin may learn about the cycle it is called in.

    ``pod_group_cycle`` is upstream's ``IsPodGroupSchedulingCycle()``: True while the pod-group
    algorithm tries placements (its Reserve calls are trials, reverted at the end of the
    algorithm), False when a placed pod is handed over to Permit and binding, and for a pod
    without a group.
    """

    pod_group_cycle: bool = False


TRIAL = CycleState(pod_group_cycle=True)
HAND_OVER = CycleState(pod_group_cycle=False)


@runtime_checkable
class Plugin(Protocol):
    name: str


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    def pre_enqueue(self, pod: Any) -> Status:
        """Whether ``pod`` may enter the active queue at all; not Success parks it as gated.

        Must be cheap: it runs on every add and update of an unscheduled pod.
        """


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    def less(self, a: Any, b: Any) -> bool:
        """Whether queue entry ``a`` goes before ``b``. Exactly one QueueSort plugin is enabled."""


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    def pre_filter(self, state: Any, pod: Any, nodes: list[Any]) -> tuple[Any, Status]:
        """Prepare the cycle state for Filter; may narrow the candidate nodes. Skip skips this plugin's Filter."""


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    def filter(self, state: Any, pod: Any, node: Any) -> Status:
        """Whether ``pod`` fits on ``node``. Must not change ``state`` beyond its own entries."""


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    def post_filter(self, state: Any, pod: Any, statuses: dict[str, Status]) -> tuple[Any, Status]:
        """Runs when no node fits (preemption); may nominate a node for the next attempt."""


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    def score(self, state: Any, pod: Any, node: Any) -> tuple[int, Status]:
        """A score for ``node``; normalized to 0..100 over the feasible nodes, then weighted."""


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    def reserve(self, state: CycleState, pod: Any, node_name: str) -> Status:
        """Claim what the pod needs on ``node_name`` before binding; a failure unreserves every plugin.

        Runs when a pod is assumed: for each trial placement of the pod-group algorithm
        (``state.pod_group_cycle``) and when a placed pod is handed over to Permit and binding.
        """

    def unreserve(self, state: Any, pod: Any, node_name: str) -> None:
        """Undo :meth:`reserve`. Must be idempotent, and may be called even if reserve was not."""


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    def permit(self, state: Any, pod: Any, node_name: str) -> tuple[Status, float]:
        """Success, a rejection, or Wait with a timeout in seconds (the pod waits unbound until allowed)."""


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    def pre_bind(self, state: Any, pod: Any, node_name: str) -> Status:
        """Work that must be done before the Binding is written; a failure sends the pod back alone."""


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    def bind(self, state: Any, pod: Any, node_name: str) -> Status:
        """Write the binding; Skip lets the next bind plugin do it."""


@runtime_checkable
class PlacementFeasiblePlugin(Plugin, Protocol):
    def placement_feasible(self, state: Any, group: Any, scheduled: int, remaining: int) -> Status:
        """During a pod-group cycle: whether the group can still reach its quorum.

        Called before the first pod is tried and after each one. Unschedulable ends the cycle
        early; Wait means "not yet satisfied" and is turned into Unschedulable at the end.
        """


@dataclasses.dataclass(frozen=True)
class ClusterEventWithHint:
    """A cluster event that may make a parked pod schedulable, and the hint that decides.

    ``hint(pod, old, new)`` returns True to requeue (upstream's Queue) or False (QueueSkip).
    """

    resource: str  # "Pod", "AssignedPod", "UnscheduledPod", "Node", "PodGroup", ...
    action: str  # "Add", "Update", "Delete"
    hint: Callable[[Any, Any, Any], bool] | None = None


@runtime_checkable
class EnqueueExtensions(Plugin, Protocol):
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """The events after which a pod this plugin rejected is worth trying again."""


#: Extension point name -> the protocol a plugin enabled there must implement.
EXTENSION_POINTS: dict[str, type] = {
    "PreEnqueue": PreEnqueuePlugin,
    "QueueSort": QueueSortPlugin,
    "PreFilter": PreFilterPlugin,
    "Filter": FilterPlugin,
    "PostFilter": PostFilterPlugin,
    "Score": ScorePlugin,
    "Reserve": ReservePlugin,
    "Permit": PermitPlugin,
    "PreBind": PreBindPlugin,
    "Bind": BindPlugin,
    "PlacementFeasible": PlacementFeasiblePlugin,
}


def missing_methods(plugin: object, point: str) -> list[str]:
    """The methods ``plugin`` lacks for ``point`` (empty when it conforms)."""
    protocol = EXTENSION_POINTS[point]
    wanted = [m for m in protocol.__dict__ if not m.startswith("_") and callable(protocol.__dict__[m])]
    return [m for m in wanted if not callable(getattr(plugin, m, None))]
