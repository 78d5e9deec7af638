"""The framework runtime: one profile's plugins, run point by point.

Mirrors pkg/scheduler/framework/runtime/framework.go: one ``run_*`` per extension point, each
keeping the contract its interface documents (which statuses end the point, the order of
Unreserve, Permit waits per plugin, scores normalized and weighted, the first PlacementGenerate
plugin only). The scheduler's cycles call these and never a plugin directly.

Also here, as upstream keeps its batching in the runtime: the verdicts of the leading Filter
plugins that sign pods (:class:`~reference_scheduler.framework.interface.SignPlugin`), kept per
pod signature until a node changes, so that the members of a gang share them.
"""

from __future__ import annotations

import functools
from typing import Any

from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.framework.interface import (
    MAX_NODE_SCORE, BatchFilterScore, EnqueueExtensions, PlacementScoreExtensions, QueueSortKey, ScoreExtensions,
    SignPlugin)
from reference_scheduler.framework.registry import Profile
from reference_scheduler.framework.status import Code, Status
from reference_scheduler.framework.types import Placement, PlacementProgress

#: Upstream's maxTimeout: no Permit plugin makes a pod wait longer.
MAX_PERMIT_TIMEOUT = 15 * 60.0
#: The verdict of PlacementGenerate when its plugin proposed no placement.
NO_FEASIBLE_PLACEMENTS = "no feasible placements found"
#: Signed Filter verdicts kept at most (a new node set version drops them all).
_SIGNED_VERDICTS = 1024


def _by(status: Status, plugin: str) -> Status:
    return status if status.plugin == plugin else status.with_plugin(plugin)


def _score_out_of_range(plugin: str, score: int) -> Status | None:
    if 0 <= score <= MAX_NODE_SCORE:
        return None
    return Status.as_error(f'plugin "{plugin}" returns an invalid score {score}, it should in the range of '
                           f"[0, {MAX_NODE_SCORE}] after normalizing", plugin=plugin)


class Framework:
    """The plugins of one profile and the extension points that run them."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        at = profile.at
        self._pre_enqueue, self._pre_filter, self._post_filter = at("PreEnqueue"), at("PreFilter"), at("PostFilter")
        self._pre_score, self._score, self._reserve, self._permit = at("PreScore"), at("Score"), at("Reserve"), at("Permit")
        self._pre_bind, self._bind, self._post_bind = at("PreBind"), at("Bind"), at("PostBind")
        self._placement_generate, self._placement_score = at("PlacementGenerate"), at("PlacementScore")
        self._placement_feasible, self._pod_group_post_filter = at("PlacementFeasible"), at("PodGroupPostFilter")
        sort = at("QueueSort")[0]
        #: The queue's order as a sort key (QueueSortFunc).
        self.queue_sort_key = sort.sort_key if isinstance(sort, QueueSortKey) else functools.cmp_to_key(
            lambda a, b: -1 if sort.less(a, b) else (1 if sort.less(b, a) else 0))
        self.filters = filters = at("Filter")
        signed = 0
        while signed < len(filters) and isinstance(filters[signed], SignPlugin):
            signed += 1
        #: The leading Filter plugins that sign pods, and the others (run on every node, every time).
        self.signed_filters, self.unsigned_filters = filters[:signed], filters[signed:]
        self._signed_verdicts: dict[tuple, tuple[list[str], dict[str, Status]]] = {}
        only = self.unsigned_filters[0] if len(self.unsigned_filters) == 1 else None
        #: The plugin that filters and scores every node at once, when the profile lets it.
        self.batch_filter_score: BatchFilterScore | None = (
            only if isinstance(only, BatchFilterScore) and self._score == (only,)
            and not isinstance(only, ScoreExtensions) and not self._pre_score else None)
        #: Plugin name -> (resource, action) -> its queueing hints (from EnqueueExtensions).
        self.queueing_hints: dict[str, dict[tuple[str, str], list]] = {}
        for plugin in profile.plugins.values():
            if isinstance(plugin, EnqueueExtensions):
                for event in plugin.events_to_register():
                    self.queueing_hints.setdefault(plugin.name, {}).setdefault((event.resource, event.action), []).append(
                        event.hint or (lambda pod, old, new: True))

    # -- the queue ----------------------------------------------------------------------------------

    def run_pre_enqueue_plugins(self, pods: list[Any]) -> Status:
        """Every PreEnqueue plugin on every pod of an entity; the first refusal holds the entity."""
        for plugin in self._pre_enqueue:
            for pod in pods:
                status = plugin.pre_enqueue(pod)
                if not status.ok:
                    return _by(status, plugin.name)
        return Status.success()

    # -- finding a node -------------------------------------------------------------------------------

    def run_pre_filter_plugins(self, state: CycleState, pod: Any, snapshot: Any
                               ) -> tuple[frozenset[str] | None, Status, tuple[str, ...]]:
        """The nodes the PreFilter plugins leave (None: all), the verdict, and the plugins that narrowed the nodes.

        A plugin that returns Skip has its Filter skipped for this pod; the first refusal ends the point.
        """
        allowed: frozenset[str] | None = None
        skipped: set[str] = set()
        narrowed_by: list[str] = []
        for plugin in self._pre_filter:
            result, status = plugin.pre_filter(state, pod, snapshot)
            if status.code is Code.SKIP:
                skipped.add(plugin.name)
                continue
            if not status.ok:
                return None, _by(status, plugin.name), ()
            if result is not None:
                allowed = result if allowed is None else allowed & result
                narrowed_by.append(plugin.name)
        state.skip_filter_plugins = frozenset(skipped)
        return allowed, Status.success(), tuple(sorted(narrowed_by))

    def run_filter_plugins(self, state: CycleState, pod: Any, info: Any, plugins: tuple | None = None) -> Status:
        """The Filter plugins (or ``plugins``) on one node: the first rejection is the verdict (upstream stops there)."""
        skipped = state.skip_filter_plugins
        for plugin in self.filters if plugins is None else plugins:
            if skipped and plugin.name in skipped:
                continue
            status = plugin.filter(state, pod, info)
            if not status.ok:
                return _by(status, plugin.name)
        return Status.success()

    def sign_pod(self, pod: Any) -> tuple | None:
        """The pod's signature from the signing Filter plugins' fragments (the first value of a key counts)."""
        fragments: dict[str, Any] = {}
        for plugin in self.signed_filters:
            signed = plugin.sign_pod(pod)
            if signed is None:
                return None
            for key, value in signed:
                fragments.setdefault(key, value)
        return tuple(fragments.items())

    def run_signed_filter_plugins(self, state: CycleState, pod: Any, snapshot: Any) -> tuple[list[str], dict[str, Status]]:
        """The signing Filter plugins over every node: the nodes that pass (in node order) and why the others fail.

        Their verdicts depend on the node objects and the pod's signature only, so they are kept
        per signature until a node changes (``snapshot.version``): the members of a gang share them.
        """
        signature = self.sign_pod(pod)
        key = (snapshot.version, signature, state.skip_filter_plugins)
        cached = self._signed_verdicts.get(key) if signature is not None else None
        if cached is not None:
            return cached
        passing: list[str] = []
        failed: dict[str, Status] = {}
        for name in snapshot:
            status = self.run_filter_plugins(state, pod, snapshot[name], self.signed_filters)
            if status.ok:
                passing.append(name)
            else:
                failed[name] = status
        if signature is not None:
            if len(self._signed_verdicts) > _SIGNED_VERDICTS or (
                    self._signed_verdicts and next(iter(self._signed_verdicts))[0] != snapshot.version):
                self._signed_verdicts.clear()
            self._signed_verdicts[key] = (passing, failed)
        return passing, failed

    def run_post_filter_plugins(self, state: CycleState, pod: Any, statuses: dict[str, Status]) -> tuple[Any, Status]:
        """PostFilter until one succeeds or is UnschedulableAndUnresolvable; else Unschedulable with every reason."""
        reasons: list[str] = []
        rejector = ""
        for plugin in self._post_filter:
            result, status = plugin.post_filter(state, pod, statuses)
            if status.ok or status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE or not status.rejected:
                return (result if status.ok else None), _by(status, plugin.name)
            reasons.extend(status.reasons)
            rejector = rejector or plugin.name
        return None, Status.of(Code.UNSCHEDULABLE, *reasons, plugin=rejector)

    def run_pre_score_plugins(self, state: CycleState, pod: Any, nodes: list[Any]) -> Status:
        """PreScore over the feasible nodes; Skip skips the plugin's Score for this pod."""
        skipped: set[str] = set()
        for plugin in self._pre_score:
            status = plugin.pre_score(state, pod, nodes)
            if status.code is Code.SKIP:
                skipped.add(plugin.name)
            elif not status.ok:
                return _by(status, plugin.name)
        state.skip_score_plugins = frozenset(skipped)
        return Status.success()

    def run_score_plugins(self, state: CycleState, pod: Any, nodes: list[Any]) -> tuple[list[int], Status]:
        """Each node's total: every Score plugin's score, normalized if the plugin normalizes, times its weight."""
        plugins = [p for p in self._score if p.name not in state.skip_score_plugins]
        return self._weighted_totals(
            plugins, len(nodes), lambda plugin: [plugin.score(state, pod, info) for info in nodes],
            lambda plugin, scores: plugin.normalize_score(state, pod, scores) if isinstance(plugin, ScoreExtensions)
            else Status.success())

    def _weighted_totals(self, plugins: list[Any], count: int, score: Any, normalize: Any) -> tuple[list[int], Status]:
        """Upstream's score run: ``score(plugin)`` per plugin (a (score, status) per candidate), then
        ``normalize(plugin, scores)``, each score checked to be 0..100, times the plugin's weight, summed."""
        totals = [0] * count
        for plugin in plugins:
            scores = []
            for value, status in score(plugin):
                if not status.ok:
                    return [], _by(status, plugin.name)
                scores.append(value)
            status = normalize(plugin, scores)
            if not status.ok:
                return [], _by(status, plugin.name)
            weight = self.profile.weights.get(plugin.name, 1)
            for i, value in enumerate(scores):
                wrong = _score_out_of_range(plugin.name, value)
                if wrong is not None:
                    return [], wrong
                totals[i] += value * weight
        return totals, Status.success()

    # -- the pod-group algorithm ----------------------------------------------------------------------

    def run_placement_generate_plugins(self, state: CycleState, group: Any, parent: Placement
                                       ) -> tuple[list[Placement], Status]:
        """The first PlacementGenerate plugin's candidates inside ``parent``; ``parent`` alone without one."""
        if not self._placement_generate:
            return [parent], Status.success()
        plugin = self._placement_generate[0]
        placements, status = plugin.generate_placements(state, group, parent)
        if not status.ok:
            return [], _by(status, plugin.name)
        if not placements:
            return [], Status.of(Code.UNSCHEDULABLE, NO_FEASIBLE_PLACEMENTS, plugin=plugin.name)
        return placements, Status.success()

    def run_placement_feasible_plugins(self, state: CycleState, group: Any, progress: PlacementProgress) -> Status:
        """Success if every plugin is satisfied; the first Unschedulable (or other failure) ends the
        point; otherwise the last Wait."""
        result = Status.success()
        for plugin in self._placement_feasible:
            status = plugin.placement_feasible(state, group, progress)
            if status.ok:
                continue
            if status.code is Code.WAIT:
                result = _by(status, plugin.name)
                continue
            return _by(status, plugin.name)
        return result

    def run_placement_score_plugins(self, state: CycleState, group: Any, assignments: list[Any]
                                    ) -> tuple[list[int], Status]:
        """Each feasible placement's total: every PlacementScore plugin's score, normalized if the plugin
        normalizes, times its weight."""
        return self._weighted_totals(
            list(self._placement_score), len(assignments),
            lambda plugin: [plugin.score_placement(state, group, assignment) for assignment in assignments],
            lambda plugin, scores: plugin.normalize_placement_score(state, group, scores)
            if isinstance(plugin, PlacementScoreExtensions) else Status.success())

    def run_pod_group_post_filter_plugins(self, state: CycleState, group: Any, schedule: Any) -> tuple[Any, Status]:
        """PodGroupPostFilter until one succeeds or is UnschedulableAndUnresolvable (that verdict alone is
        the outcome); else Unschedulable with the reasons of all, in order."""
        reasons: list[str] = []
        rejector = ""
        for plugin in self._pod_group_post_filter:
            result, status = plugin.pod_group_post_filter(state, group, schedule)
            if status.ok or status.code is not Code.UNSCHEDULABLE:
                return (result if status.ok else None), _by(status, plugin.name)
            reasons.extend(status.reasons)
            rejector = rejector or plugin.name
        return None, Status.of(Code.UNSCHEDULABLE, *reasons, plugin=rejector)

    # -- assume, permit, bind -------------------------------------------------------------------------

    def run_reserve_plugins_reserve(self, state: CycleState, pod: Any, node: str) -> Status:
        """Every Reserve plugin in order; the first failure is the verdict (the caller unreserves)."""
        for plugin in self._reserve:
            status = plugin.reserve(state, pod, node)
            if not status.ok:
                return _by(status, plugin.name)
        return Status.success()

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Any, node: str) -> None:
        """Every Reserve plugin's Unreserve, in reverse order (upstream's)."""
        for plugin in reversed(self._reserve):
            plugin.unreserve(state, pod, node)

    def run_permit_plugins(self, state: CycleState, pod: Any, node: str) -> tuple[dict[str, float], Status]:
        """Success; a rejection (the first ends the point); or Wait, with each waiting plugin's timeout
        (at most :data:`MAX_PERMIT_TIMEOUT`)."""
        waits: dict[str, float] = {}
        waiting: Status | None = None
        for plugin in self._permit:
            status, timeout = plugin.permit(state, pod, node)
            if status.code is Code.WAIT:
                waits[plugin.name] = min(timeout, MAX_PERMIT_TIMEOUT)
                waiting = _by(status, plugin.name)
            elif not status.ok:
                return {}, _by(status, plugin.name)
        return (waits, waiting) if waiting is not None else ({}, Status.success())

    def run_pre_bind_plugins(self, state: CycleState, pod: Any, node: str) -> Status:
        """PreBind of every plugin whose PreBindPreFlight did not Skip; the first failure is the verdict."""
        for plugin in self._pre_bind:
            flight = plugin.pre_bind_pre_flight(state, pod, node)
            if flight.code is Code.SKIP:
                continue
            status = flight if not flight.ok else plugin.pre_bind(state, pod, node)
            if not status.ok:
                return _by(status, plugin.name)
        return Status.success()

    def run_bind_plugins(self, state: CycleState, pod: Any, node: str) -> Status:
        """The Bind plugins in order until one does not Skip; Skip if every one did (or there is none)."""
        for plugin in self._bind:
            status = plugin.bind(state, pod, node)
            if status.code is not Code.SKIP:
                return _by(status, plugin.name) if not status.ok else status
        return Status.of(Code.SKIP, "no Bind plugin bound the pod")

    def run_post_bind_plugins(self, state: CycleState, pod: Any, node: str) -> None:
        for plugin in self._post_bind:
            plugin.post_bind(state, pod, node)
