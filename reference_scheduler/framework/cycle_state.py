"""CycleState: what the plugins of one scheduling cycle share, made once per cycle.

Mirrors pkg/scheduler/framework/cycle_state.go. A pod's own cycle has one; a pod-group cycle has
one for the group and one per pod it tries, each of those pointing at the group's
(``IsPodGroupSchedulingCycle``); when a placed pod is handed over to Permit and binding its state
leaves the pod-group cycle (upstream's ``SetPodGroupSchedulingCycle(nil)``).
"""

from __future__ import annotations

from typing import Any


class CycleState:
    """Plugin data by key, the plugins PreFilter told to skip, and whether this is a pod-group cycle."""

    __slots__ = ("_data", "_pod_group_cycle_state", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self, pod_group_cycle_state: CycleState | None = None) -> None:
        self._data: dict[str, Any] = {}
        self._pod_group_cycle_state = pod_group_cycle_state
        #: Filter plugins whose PreFilter returned Skip for this pod.
        self.skip_filter_plugins: frozenset[str] = frozenset()
        #: Score plugins whose PreScore returned Skip for this pod.
        self.skip_score_plugins: frozenset[str] = frozenset()

    @property
    def pod_group_cycle(self) -> bool:
        """Upstream's ``IsPodGroupSchedulingCycle()``: True while the pod-group algorithm tries
        placements (its Reserve calls are trials, reverted at the end of the algorithm), False in a
        pod's own cycle and once a placed pod is handed over to Permit and binding."""
        return self._pod_group_cycle_state is not None

    @property
    def pod_group_cycle_state(self) -> CycleState | None:
        """The state of the pod-group cycle this pod is tried in, if any."""
        return self._pod_group_cycle_state

    def leave_pod_group_cycle(self) -> None:
        """The pod is handed over to Permit and binding: its plugins now see a binding, not a trial."""
        self._pod_group_cycle_state = None

    def read(self, key: str) -> Any:
        """The data a plugin wrote under ``key``; KeyError if none was written in this cycle."""
        return self._data[key]

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def delete(self, key: str) -> None:
        self._data.pop(key, None)
