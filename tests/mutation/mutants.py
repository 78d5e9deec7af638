"""Deliberately broken variants (mutants) of the reference scheduler, for the mutation check.

Each :class:`Mutant` names one bug a gang scheduler could plausibly have, applies it by
replacing, in the current process, one public seam of ``reference_scheduler`` (a plugin in the
in-tree registry, a method of a backend object or a cycle, a function of the preemption
evaluator; the package itself holds no mutation code), and declares its *killers*: the conformance checks
that must notice it. ``tests/test_mutation.py`` runs each mutant's killers against a
reference scheduler started through ``launch.py`` and requires at least one of them to fail.

A killer names a test file and either test names (``tests``) or a marker expression on the
behaviour ID (``marker``), so that a killer can be declared by the behaviour it checks.
Killers are listed cheapest first: a child run stops at the first failure.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent.parent


@dataclasses.dataclass(frozen=True)
class Killer:
    """Checks of one suite file that must fail against a mutant."""

    #: The suite file, relative to the repository.
    file: str
    #: Test function names in that file (every parameter of each).
    tests: tuple[str, ...] = ()
    #: Or a ``-m`` expression (``conformance(id='GANG-...')``) for checks named by behaviour.
    marker: str | None = None

    @property
    def exists(self) -> bool:
        return (REPO / self.file).is_file()

    def args(self) -> list[str]:
        """The child pytest's selection: node ids, or the file and ``-m``."""
        if self.tests:
            return [f"{self.file}::{name}" for name in self.tests]
        return [self.file, "-m", self.marker or ""]

    def __str__(self) -> str:
        return f"{self.file}::{'|'.join(self.tests)}" if self.tests else f"{self.file} -m \"{self.marker}\""


@dataclasses.dataclass(frozen=True)
class Mutant:
    name: str
    #: The bug, in one line.
    bug: str
    apply: Callable[[], None]
    killers: tuple[Killer, ...]

    @property
    def missing_killers(self) -> list[str]:
        """The killer files that do not exist yet."""
        return [k.file for k in self.killers if not k.exists]


def _behaviour(*ids: str) -> str:
    return " or ".join(f"conformance(id='{i}')" for i in ids)


def _replace(owner: Any, attr: str, make: Callable[[Any], Any]) -> None:
    """Replace ``owner.attr`` with ``make(original)``; the process is the mutant's alone."""
    original = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
    if isinstance(original, property):
        raise TypeError(f"{owner!r}.{attr} is a property; mutate its users instead")
    setattr(owner, attr, make(original))


def _wrap_plugin(name: str, method: str, make: Callable[[Callable, Any], Callable]) -> None:
    """Replace the in-tree plugin ``name`` in the registry with one whose extension-point method
    ``method`` is ``make(original, handle)`` (``original`` bound to the plugin the registry built).

    Whatever class the registry builds under that name is mutated, and the mutant fails to apply
    (not silently) if the scheduler no longer enables a plugin of that name with that method.
    """
    from reference_scheduler import FEATURES, Scheduler, SimClock
    from reference_scheduler.plugins import registry

    build = registry.IN_TREE[name]

    def factory(args, handle, features):
        plugin = build(args, handle, features)
        setattr(plugin, method, make(getattr(plugin, method), handle))
        return plugin

    registry.IN_TREE[name] = factory
    plugin = Scheduler("mutant-check", SimClock(), writer=None, features=FEATURES).framework.profile.plugins.get(name)
    if plugin is None or method not in vars(plugin):
        raise LookupError(f"the reference scheduler enables no plugin {name} with {method}()")


# -- the mutants -----------------------------------------------------------------------------------
# Each applies one bug at a public seam of the reference scheduler: a plugin replaced in the
# registry, a method of a backend object or of a cycle, a function of the preemption evaluator.
# Imports are inside, so that ``launch.py --list`` needs no reference scheduler.


def _no_quorum_gate() -> None:
    from reference_scheduler import Status
    from reference_scheduler.plugins import gangscheduling as gang

    def make(original, handle):
        def pre_enqueue(pod):
            status = original(pod)
            return Status.success() if status.message() == gang.WAITING_FOR_QUORUM else status
        return pre_enqueue

    _wrap_plugin(gang.NAME, "pre_enqueue", make)


def _placement_never_ends_early() -> None:
    from reference_scheduler import Code, Status
    from reference_scheduler.plugins import gangscheduling as gang

    def make(original, handle):
        def placement_feasible(state, group, progress):
            status = original(state, group, progress)
            # "cannot be satisfied" demoted to Wait: the cycle goes on to the last member, and the
            # Wait left at the end still fails the group, with the same message.
            return Status.of(Code.WAIT, *status.reasons, plugin=status.plugin) \
                if status.code is Code.UNSCHEDULABLE else status
        return placement_feasible

    _wrap_plugin(gang.NAME, "placement_feasible", make)


def _min_count_decrease_ignored() -> None:
    from reference_scheduler.plugins import gangscheduling as gang

    def make(original, handle):
        def events_to_register():
            return [e for e in original() if (e.resource, e.action) != ("PodGroup", "Update")]
        return events_to_register

    _wrap_plugin(gang.NAME, "events_to_register", make)


def _disruption_mode_ignored() -> None:
    from reference_scheduler.framework import preemption

    def make(original):
        def victim_units(bound, groups):
            return original(bound, {k: dataclasses.replace(g, disruption_mode="single") for k, g in groups.items()})
        return victim_units

    _replace(preemption, "victim_units", make)


def _victims_by_pod_priority() -> None:
    from reference_scheduler.framework import preemption

    def make(original):
        def victim_units(bound, groups):
            units = [dataclasses.replace(u, priority=max(p.priority for p in u.pods)) for u in original(bound, groups)]
            return sorted(units, key=lambda u: u.importance)
        return victim_units

    _replace(preemption, "victim_units", make)


def _group_preemption_without_reprieve() -> None:
    from reference_scheduler.framework import preemption

    def make(original):
        def preempt_for_group(priority, snapshot, units, place, fits):
            found = original(priority, snapshot, units, place, fits)
            if not found.assignments:
                return found
            # Every lower-priority unit is evicted; none is given back once the group fits.
            return dataclasses.replace(found, victims=[u for u in units if u.priority < priority])
        return preempt_for_group

    _replace(preemption, "preempt_for_group", make)


def _condition_not_terminal() -> None:
    from reference_scheduler.schedule_one_podgroup import PodGroupCycle

    def make(original):
        def update_pod_group_condition(self, group, status, reason, message):
            groups = self.sched.cache.groups
            current = groups.get(group.key, group)
            if current.initially_scheduled and not status:
                # Forget that it was True, so the original writes the failure over it.
                current = groups[group.key] = dataclasses.replace(current, initially_scheduled=False)
            return original(self, current, status, reason, message)
        return update_pod_group_condition

    _replace(PodGroupCycle, "update_pod_group_condition", make)


def _ignore_validation(prefix: str) -> Callable[[], None]:
    def apply() -> None:
        from reference_scheduler.schedule_one_podgroup import PodGroupCycle

        def make(original):
            def validate_pod_group(self, group, pods):
                error = original(self, group, pods)
                return None if error is not None and error.startswith(prefix) else error
            return validate_pod_group

        _replace(PodGroupCycle, "validate_pod_group", make)
    return apply


def _missing_podgroup_not_held() -> None:
    from reference_scheduler import Status
    from reference_scheduler import PodGroup
    from reference_scheduler.plugins import gangscheduling as gang
    from reference_scheduler.schedule_one_podgroup import PodGroupCycle

    def make_gate(original, handle):
        def pre_enqueue(pod):
            if pod.pod_group is not None and handle.pod_group_manager.pod_group(pod.namespace, pod.pod_group) is None:
                return Status.success()
            return original(pod)
        return pre_enqueue

    def make_cycle(original):
        def schedule_one_pod_group(self, entity):
            groups = self.sched.cache.groups
            key = entity.key.key
            if key in groups:
                return original(self, entity)
            # Schedule the members as a basic group of their own, as if the PodGroup did not matter.
            groups[key] = PodGroup(entity.key.namespace, entity.key.name)
            try:
                return original(self, entity)
            finally:
                groups.pop(key, None)
        return schedule_one_pod_group

    _wrap_plugin(gang.NAME, "pre_enqueue", make_gate)
    _replace(PodGroupCycle, "schedule_one_pod_group", make_cycle)


def _gate_holds_only_its_pod() -> None:
    from reference_scheduler.backend.queue import SchedulingQueue

    def make(original):
        def pending_members(self, key):
            # A gated member simply sits out the cycle; the group's other members go ahead.
            return [p for p in original(self, key) if not p.scheduling_gates]
        return pending_members

    _replace(SchedulingQueue, "pending_members", make)


def _basic_group_is_all_or_nothing() -> None:
    from reference_scheduler import Code, Status
    from reference_scheduler.plugins import gangscheduling as gang
    from reference_scheduler.schedule_one_podgroup import (
        POD_GROUP_UNSCHEDULABLE, PodGroupAlgorithmResult, PodGroupAlgorithms)

    def make(original):
        def pod_group_default_algorithm(self, state, group, pods, snapshot, allowed):
            result = original(self, state, group, pods, snapshot, allowed)
            if group.is_gang or not result.status.ok or not result.misfits:
                return result
            # A basic group judged as a gang of all its pending members.
            failed = Status.of(Code.UNSCHEDULABLE, gang.cannot_be_satisfied(len(pods), len(result.placed), 0),
                               plugin=gang.NAME)
            return PodGroupAlgorithmResult(failed.with_error(POD_GROUP_UNSCHEDULABLE), misfits=result.misfits,
                                           tried=result.tried)
        return pod_group_default_algorithm

    _replace(PodGroupAlgorithms, "pod_group_default_algorithm", make)


def _no_retry_without_an_event() -> None:
    from reference_scheduler.backend.queue import SchedulingQueue

    def make(original):
        def back_off(self, entity, *args, **kwargs):
            # Into the unschedulable pool like a single pod that does not fit: only a cluster event
            # (or 5 minutes) brings it back.
            self.add_unschedulable(entity)
        return back_off

    _replace(SchedulingQueue, "back_off", make)


_SCHEDULER_NAME_ERROR = "all pods in a single pod group should have the same .spec.schedulerName"
_PRIORITY_ERROR = "all pods in a single pod group should have the same priority as the pod group's priority"

def _pod_groups_not_namespaced() -> None:
    from reference_scheduler.backend.pod_group_state import GroupState, PodGroupManager

    def make(original):
        def state(self, namespace, name):
            own = original(self, namespace, name)
            # Members of a same-named PodGroup in any other namespace counted as the group's own.
            elsewhere = [original(self, group.namespace, group.name) for group in self.pod_groups.values()
                         if group.name == name and group.namespace != namespace]
            return GroupState(all_pods=own.all_pods + sum(s.all_pods for s in elsewhere), scheduled=own.scheduled,
                              assumed=own.assumed, unscheduled=own.unscheduled)
        return state

    _replace(PodGroupManager, "state", make)


MUTANTS: dict[str, Mutant] = {m.name: m for m in (
    Mutant("no-quorum-gate", "PreEnqueue lets a gang below minCount into the queue",
           _no_quorum_gate,
           (Killer("suites/test_quorum.py", ("test_gang_stays_pending_when_fewer_than_min_count_members_exist",)),)),
    Mutant("placement-never-ends-early", "PlacementFeasible never ends a cycle early; every member is tried",
           _placement_never_ends_early,
           (Killer("suites/test_cycle.py", ("test_cycle_ends_early_once_min_count_can_no_longer_be_met",)),)),
    Mutant("min-count-decrease-ignored", "lowering minCount does not requeue a gang held below quorum",
           _min_count_decrease_ignored,
           (Killer("suites/test_mincount.py", ("test_lowering_min_count_releases_a_gated_gang",)),)),
    Mutant("disruption-mode-ignored", "every preemption victim is a single pod, even in a disruptionMode all group",
           _disruption_mode_ignored,
           (Killer("suites/test_preemption.py", marker=_behaviour("GANG-PREEMPT-002", "GANG-PREEMPT-003")),)),
    Mutant("victims-by-pod-priority", "victims are judged by their pods' priority, not their PodGroup's",
           _victims_by_pod_priority,
           (Killer("suites/test_preemption.py", marker=_behaviour("GANG-PREEMPT-002", "GANG-PREEMPT-003")),)),
    Mutant("group-preemption-without-reprieve", "a preempting pod group evicts every lower-priority pod, not only those in its way",
           _group_preemption_without_reprieve,
           (Killer("suites/test_preemption.py",
                   ("test_gang_preempts_lower_priority_pods_and_is_placed_when_it_outranks_them",)),)),
    Mutant("condition-not-terminal", "a failing cycle turns PodGroupInitiallyScheduled from True to False",
           _condition_not_terminal,
           (Killer("suites/test_cycle.py", ("test_satisfied_gang_stays_scheduled_when_a_new_member_does_not_fit",)),)),
    Mutant("schedulername-mismatch-accepted", "members with different schedulerNames are not rejected",
           _ignore_validation(_SCHEDULER_NAME_ERROR),
           (Killer("suites/test_consistency.py", marker=_behaviour("GANG-SCHEDNAME-001")),)),
    Mutant("priority-mismatch-accepted", "members whose priority differs from the PodGroup's are not rejected",
           _ignore_validation(_PRIORITY_ERROR),
           (Killer("suites/test_consistency.py", marker=_behaviour("GANG-PRIORITY-001")),)),
    Mutant("missing-podgroup-not-held", "pods of a PodGroup that does not exist are scheduled at once",
           _missing_podgroup_not_held,
           (Killer("suites/test_quorum.py", ("test_pods_wait_untouched_when_their_podgroup_does_not_exist",)),)),
    Mutant("gate-holds-only-its-pod", "a scheduling gate on one member holds only that member, not its group",
           _gate_holds_only_its_pod,
           (Killer("suites/test_quorum.py", ("test_one_gated_member_holds_the_whole_group",)),
            Killer("suites/test_quorum.py",
                   ("test_gated_member_added_to_a_running_basic_group_holds_its_unscheduled_members",)))),
    Mutant("basic-as-gang", "a basic group is placed all-or-nothing, like a gang of all its members",
           _basic_group_is_all_or_nothing,
           (Killer("suites/test_cycle.py", ("test_basic_group_places_members_independently",)),)),
    Mutant("no-retry-without-event", "a failed gang waits for a cluster event instead of retrying after backoff",
           _no_retry_without_an_event,
           (Killer("suites/test_queue.py", ("test_failed_gang_is_retried_without_a_cluster_event",)),)),
    Mutant("podgroups-not-namespaced", "a member of a same-named PodGroup in another namespace counts toward the quorum",
           _pod_groups_not_namespaced,
           (Killer("suites/test_quorum.py", ("test_a_member_of_a_same_named_podgroup_in_another_namespace_does_not_count",)),)),
)}
