"""Handle: what a plugin is given to reach the scheduler, and nothing more.

Mirrors the staged k8s.io/kube-scheduler/framework/interface.go ``Handle``, the parts of it the
in-tree plugins use: ``PodGroupManager`` (the pod-group state), ``PodActivator``, the waiting
pods, ``SnapshotSharedLister`` (the nodes as the current cycle sees them), the informer's pod
lister, ``APIDispatcher`` (the writer) and ``PluginsRunner`` (Filter of the profile). Plugin
factories get it (``factory(args, handle, features)``); plugins never see the scheduler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from reference_scheduler.framework.status import Status

if TYPE_CHECKING:
    from reference_scheduler.backend.pod_group_state import PodGroupManager
    from reference_scheduler.backend.snapshot import Snapshot
    from reference_scheduler.backend.writer import Writer
    from reference_scheduler.framework.cycle_state import CycleState
    from reference_scheduler.framework.runtime import Framework
    from reference_scheduler.framework.waiting_pods import WaitingPod, WaitingPods
    from reference_scheduler.model import Pod


class Handle:
    def __init__(self, profile_name: str, pod_group_manager: PodGroupManager, waiting_pods: WaitingPods,
                 api_dispatcher: Writer, pods: dict[str, Pod]) -> None:
        self.profile_name = profile_name
        #: PodGroups, CompositePodGroups and their members' state (upstream's PodGroupManager()).
        self.pod_group_manager = pod_group_manager
        #: The calls a plugin may make to the API server (binding, preemption).
        self.api_dispatcher = api_dispatcher
        self._waiting_pods = waiting_pods
        self._pods = pods
        # Set by the scheduler once it has built them from the profile (upstream's SetPodActivator).
        self._framework: Framework | None = None
        self._activate: Any = None
        self._snapshot: Snapshot | None = None

    def connect(self, framework: Framework, activate: Any) -> None:
        """Give the handle the runtime built from the profile and the queue's ``activate``."""
        self._framework, self._activate = framework, activate

    def set_snapshot(self, snapshot: Snapshot) -> None:
        """The snapshot a cycle starts with (the scheduler sets it; plugins read it)."""
        self._snapshot = snapshot

    def snapshot_shared_lister(self) -> Snapshot:
        """The nodes as the current cycle sees them: taken at its start, unchanged until its end."""
        return self._snapshot

    def activate(self, pods: Iterable[Pod]) -> None:
        """Move the entities of ``pods`` from the unschedulable pool to the active queue (PodActivator)."""
        self._activate(pods)

    def get_waiting_pod(self, pod: Pod) -> WaitingPod | None:
        """``pod`` if it waits at Permit (to allow or reject it), else None."""
        return self._waiting_pods.get(pod.key)

    def pods(self) -> Iterable[Pod]:
        """Every pod the informer shows, of any scheduler (the pod lister)."""
        return self._pods.values()

    def run_filter_plugins(self, state: CycleState, pod: Pod, info: Any) -> Status:
        """The profile's Filter plugins on one node (PluginsRunner), e.g. on a node with victims removed."""
        return self._framework.run_filter_plugins(state, pod, info)
