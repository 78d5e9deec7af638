"""One protocol per extension point of v1.37.2, named as upstream names them, and the optional capabilities.

Mirrors the staged k8s.io/kube-scheduler/framework/interface.go (and, for PlacementFeasible,
pkg/scheduler/framework/interface.go). A plugin is any object with a ``name`` and the methods of
the points it is enabled at; the registry checks that when a profile is built (the Python form
of upstream's ``var _ framework.FilterPlugin = &NodeName{}``). Contracts that upstream writes on
its interfaces are written here on the protocols, and the runtime keeps them.

Optional capabilities are protocols too; the runtime asks ``isinstance(plugin, SignPlugin)``,
never ``getattr``. Types are loose (``Any`` for pods and nodes): the objects are those of
:mod:`reference_scheduler.model` and :mod:`reference_scheduler.backend.snapshot`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Hashable, Protocol, runtime_checkable

from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.status import Status
from reference_scheduler.framework.types import (
    Placement, PlacementProgress, PodGroupAssignments, PodGroupInfo, PodGroupPostFilterResult, PostFilterResult)

#: The highest score a Score or PlacementScore plugin gives after normalization (upstream's MaxNodeScore).
MAX_NODE_SCORE = 100
#: Runs a pod group's algorithm on a snapshot: the members' nodes, or nothing and why (PodGroupSchedulingFunc).
PodGroupSchedulingFunc = Callable[[Any], "tuple[list[tuple[Any, str]], str]"]


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
    def pre_filter(self, state: CycleState, pod: Any, snapshot: Any) -> tuple[frozenset[str] | None, Status]:
        """Prepare ``state`` for Filter at the start of the pod's cycle; may narrow the nodes to try.

        Not Success rejects the pod on every node; Skip skips this plugin's Filter for the pod. The
        node names returned (None: all) are the only ones Filter sees; the others are
        UnschedulableAndUnresolvable, out of reach of preemption.
        """


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    def filter(self, state: CycleState, pod: Any, node: Any) -> Status:
        """Whether ``pod`` fits on ``node``. Must not change ``state`` beyond its own entries.

        Reads the node it is given, which may be a copy with pods added or removed (preemption).
        """


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    def post_filter(self, state: CycleState, pod: Any,
                    statuses: dict[str, Status]) -> tuple[PostFilterResult | None, Status]:
        """Runs when no node fits a pod outside a pod-group cycle (preemption).

        ``statuses`` are the Filter verdicts per node. Success (with the node the pod is nominated
        to) ends the point; so does UnschedulableAndUnresolvable; Unschedulable lets the next
        plugin try, and the reasons of all are what the pod is told after its FitError.
        """


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    def pre_score(self, state: CycleState, pod: Any, nodes: list[Any]) -> Status:
        """Informational, over the nodes that passed Filter; not Success rejects the pod, Skip skips its Score."""


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    def score(self, state: CycleState, pod: Any, node: Any) -> tuple[int, Status]:
        """A score for ``node``: normalized to 0..100 over the feasible nodes (if the plugin
        normalizes, :class:`ScoreExtensions`), then multiplied by the plugin's weight; the node with
        the highest sum wins."""


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    def reserve(self, state: CycleState, pod: Any, node_name: str) -> Status:
        """Claim what the pod needs on ``node_name`` before binding; a failure unreserves every plugin.

        Runs when a pod is assumed: for each trial placement of the pod-group algorithm
        (``state.pod_group_cycle``) and when a placed pod is handed over to Permit and binding.
        """

    def unreserve(self, state: CycleState, pod: Any, node_name: str) -> None:
        """Undo :meth:`reserve`. Must be idempotent, and may be called even if reserve was not."""


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    def permit(self, state: CycleState, pod: Any, node_name: str) -> tuple[Status, float]:
        """Success, a rejection, or Wait with a timeout in seconds (the pod waits unbound until
        this plugin allows it, or is rejected at the timeout, with a message naming this plugin)."""


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    def pre_bind_pre_flight(self, state: CycleState, pod: Any, node_name: str) -> Status:
        """Cheap: Success if :meth:`pre_bind` has work for this pod, Skip if not."""

    def pre_bind(self, state: CycleState, pod: Any, node_name: str) -> Status:
        """Work that must be done before the Binding is written; a failure sends the pod back alone."""


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    def bind(self, state: CycleState, pod: Any, node_name: str) -> Status:
        """Write the binding; Skip lets the next bind plugin do it."""


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    def post_bind(self, state: CycleState, pod: Any, node_name: str) -> None:
        """Informational, after the pod's binding was handed over."""


@runtime_checkable
class PlacementGeneratePlugin(Plugin, Protocol):
    def generate_placements(self, state: CycleState, group: PodGroupInfo,
                            parent: Placement) -> tuple[list[Placement], Status]:
        """Candidate placements inside ``parent`` for the group (TopologyAwareWorkloadScheduling).

        Only the first PlacementGenerate plugin runs; with none, ``parent`` is the one candidate.
        No candidate at all is Unschedulable ("no feasible placements found").
        """


@runtime_checkable
class PlacementScorePlugin(Plugin, Protocol):
    def score_placement(self, state: CycleState, group: PodGroupInfo,
                        assignments: PodGroupAssignments) -> tuple[int, Status]:
        """A score for one feasible placement: 0..100 after normalization (if the plugin normalizes,
        :class:`PlacementScoreExtensions`), then multiplied by the plugin's weight."""


@runtime_checkable
class PlacementFeasiblePlugin(Plugin, Protocol):
    def placement_feasible(self, state: CycleState, group: Any, progress: PlacementProgress) -> Status:
        """During a pod-group algorithm: whether the group can still reach its quorum.

        Called before the first member (or child) is tried and after each one. Unschedulable ends
        the algorithm early; Wait means "not yet satisfied" and is turned into Unschedulable at the end.
        """


@runtime_checkable
class PodGroupPostFilterPlugin(Plugin, Protocol):
    def pod_group_post_filter(self, state: CycleState, group: PodGroupInfo, schedule: PodGroupSchedulingFunc
                              ) -> tuple[PodGroupPostFilterResult | None, Status]:
        """Runs when a pod-group cycle placed nothing; ``schedule`` runs the group's algorithm on a snapshot.

        Success (with the members' nominated nodes) or UnschedulableAndUnresolvable ends the point
        and is the outcome on its own; Unschedulable lets the next plugin try, the reasons gathered.
        """


# -- optional capabilities ---------------------------------------------------------------------------


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


@runtime_checkable
class SignPlugin(Plugin, Protocol):
    def sign_pod(self, pod: Any) -> tuple[tuple[str, Hashable], ...] | None:
        """The fragments of the pod this plugin's verdicts depend on (KEP-5598), or None if it cannot sign.

        Fragments are ``(key, value)`` pairs; equal keys carry equal values for the same pod. The
        reference asks more of a signing Filter plugin than upstream does: its verdict on a node
        depends on the node object and the fragments only, not on the pods on the node, so that
        the verdicts of the leading signing Filter plugins are kept until a node changes.
        """


@runtime_checkable
class ScoreExtensions(Plugin, Protocol):
    def normalize_score(self, state: CycleState, pod: Any, scores: list[int]) -> Status:
        """Rewrite this plugin's ``scores`` (one per feasible node, in order) in place to 0..100."""


@runtime_checkable
class PlacementScoreExtensions(Plugin, Protocol):
    def normalize_placement_score(self, state: CycleState, group: PodGroupInfo, scores: list[int]) -> Status:
        """Rewrite this plugin's ``scores`` (one per feasible placement, in order) in place to 0..100."""


@runtime_checkable
class QueueSortKey(Plugin, Protocol):
    def sort_key(self, entry: Any) -> tuple:
        """Not upstream's: a key that orders entries as :meth:`QueueSortPlugin.less` does, so the
        queue sorts without a comparison per pair."""


@runtime_checkable
class BatchFilterScore(Plugin, Protocol):
    def filter_and_score_all(self, state: CycleState, pod: Any, snapshot: Any, candidates: list[str]
                             ) -> tuple[str | None, dict[str, Status]] | None:
        """Not upstream's: Filter and Score of this plugin for ``pod`` over every candidate node at
        once, with the verdicts, scores and choice (the first best, in node order) the node-by-node
        methods give; None when it cannot for this snapshot. The runtime uses it when this plugin is
        the only Filter plugin that does not sign and the only Score plugin, and scores unnormalized."""


#: Extension point name -> the protocol a plugin enabled there must implement, in the order a pod meets them.
EXTENSION_POINTS: dict[str, type] = {
    "PreEnqueue": PreEnqueuePlugin,
    "QueueSort": QueueSortPlugin,
    "PlacementGenerate": PlacementGeneratePlugin,
    "PlacementFeasible": PlacementFeasiblePlugin,
    "PreFilter": PreFilterPlugin,
    "Filter": FilterPlugin,
    "PostFilter": PostFilterPlugin,
    "PreScore": PreScorePlugin,
    "Score": ScorePlugin,
    "PlacementScore": PlacementScorePlugin,
    "PodGroupPostFilter": PodGroupPostFilterPlugin,
    "Reserve": ReservePlugin,
    "Permit": PermitPlugin,
    "PreBind": PreBindPlugin,
    "Bind": BindPlugin,
    "PostBind": PostBindPlugin,
}


def missing_methods(plugin: object, point: str) -> list[str]:
    """The methods ``plugin`` lacks for ``point`` (empty when it conforms)."""
    protocol = EXTENSION_POINTS[point]
    wanted = [m for m in protocol.__dict__ if not m.startswith("_") and callable(protocol.__dict__[m])]
    return [m for m in wanted if not callable(getattr(plugin, m, None))]
