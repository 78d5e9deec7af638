"""The preemption evaluator: which victims a pod or a pod group evicts (GANG-PREEMPT-001 to 005).

Mirrors pkg/scheduler/framework/preemption (``Evaluator``, ``PodGroupEvaluator``, the victims
of ``types.go``); the DefaultPreemption plugin calls it.

Victims come in *units*: a bound pod on its own, or, when its PodGroup has
``disruptionMode: all``, every bound member of that PodGroup together (across nodes). A
unit's priority is its PodGroup's priority whenever the pod has one, even with ``single``.

* A **pod** preempts node by node: on each node where it could fit, remove every unit of
  lower priority that has a pod there, then give units back (reprieve), most important
  first, as long as the pod still fits. The node whose victims matter least wins.
* A **pod group** preempts cluster-wide: remove every unit of lower priority than the
  group and run the group's placement once. That placement is then fixed: units are given
  back most important first, each one kept only if every member of the group still fits
  the node the placement gave it (the members checked in order, each added before the
  next). A unit that does not fit back is a victim; the members are nominated to their
  nodes. A group (or pod) with ``preemptionPolicy: Never`` does not preempt.

Importance, most important first: higher priority; a PodGroup unit before a single pod;
the larger unit; the earlier start.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from reference_scheduler.backend.snapshot import NodeInfo, Snapshot
from reference_scheduler.model import Pod, PodGroup

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS_FOR_POD = "No preemption victims found for incoming pod"


@dataclasses.dataclass(frozen=True)
class Unit:
    """Pods that are evicted together, with the priority they are judged by."""

    pods: tuple[Pod, ...]
    priority: int
    group: PodGroup | None = None

    @property
    def importance(self) -> tuple:
        """Sort key, most important first."""
        started = min((p.started or p.created for p in self.pods), default="")
        return (-self.priority, 0 if self.group is not None else 1, -len(self.pods), started)


def victim_units(bound: list[Pod], groups: dict[str, PodGroup]) -> list[Unit]:
    """Group the bound, running, not terminating pods into eviction units."""
    units: list[Unit] = []
    by_group: dict[str, list[Pod]] = {}
    for pod in bound:
        if not pod.active or pod.deleting:
            continue
        group = groups.get(pod.group_key) if pod.group_key else None
        if group is not None and group.disruption_mode == "all":
            by_group.setdefault(group.key, []).append(pod)
        else:
            units.append(Unit((pod,), group.priority if group is not None else pod.priority, group))
    for key, pods in by_group.items():
        group = groups[key]
        units.append(Unit(tuple(sorted(pods, key=lambda p: p.key)), group.priority, group))
    return sorted(units, key=lambda u: u.importance)


def without(snapshot: Snapshot, units: list[Unit]) -> Snapshot:
    """A copy of ``snapshot`` with the units' pods removed from their nodes."""
    copy = snapshot.fork()
    for unit in units:
        for pod in unit.pods:
            if pod.node_name in copy:
                copy.writable(pod.node_name).remove(pod)
    return copy


@dataclasses.dataclass(frozen=True)
class GroupPreemption:
    """What a pod group's preemption found."""

    #: The units to evict.
    victims: list[Unit]
    #: Where the group's members go once the victims are gone (their nominated nodes); empty when
    #: the group does not place even with every lower-priority unit gone.
    assignments: list[tuple[Pod, str]]
    #: Why it did not place then (the trial placement's verdict); empty when it did.
    failure: str = ""


def preempt_for_group(
    priority: int,
    snapshot: Snapshot,
    units: list[Unit],
    place: Callable[[Snapshot], tuple[list[tuple[Pod, str]], str]],
    fits: Callable[[Pod, NodeInfo], bool],
) -> GroupPreemption:
    """The units a group of ``priority`` must evict to be placed, as v1.37's PodGroupEvaluator finds them.

    ``place`` runs the group's placement on a snapshot and returns the members' nodes, or nothing
    and the failure's text when the group does not place. The caller has checked that some unit
    has a lower priority than ``priority``.
    """
    candidates = [u for u in units if u.priority < priority]
    assignments, failure = place(without(snapshot, candidates))
    if not assignments:
        return GroupPreemption([], [], failure)

    def still_fits(state: Snapshot) -> bool:
        state = state.fork()
        for pod, node in assignments:
            if not fits(pod, state[node]):
                return False
            state.writable(node).add(pod)
        return True

    removed = list(candidates)  # the units not given back (yet)
    victims: list[Unit] = []
    for unit in sorted(candidates, key=lambda u: u.importance):  # reprieve the most important first
        removed = [u for u in removed if u is not unit]
        if not still_fits(without(snapshot, removed)):
            removed.append(unit)
            victims.append(unit)
    return GroupPreemption(victims, assignments)


def preempt_for_pod(
    pod: Pod,
    snapshot: Snapshot,
    units: list[Unit],
    fits: Callable[[Pod, NodeInfo], bool],
    helpful: Callable[[str], bool],
) -> tuple[str | None, list[Unit], dict[str, str]]:
    """Where a single pod can go by preemption, and whom it evicts there.

    Returns the node (or None), the victim units, and per node why it was no candidate.
    """
    reasons: dict[str, str] = {}
    best: tuple[tuple, str, list[Unit]] | None = None
    for name in snapshot:
        if not helpful(name):
            reasons[name] = NOT_HELPFUL
            continue
        here = [u for u in units if u.priority < pod.priority and any(p.node_name == name for p in u.pods)]
        if not here or not fits(pod, without(snapshot, here)[name]):
            reasons[name] = NO_VICTIMS_FOR_POD
            continue
        victims = list(here)
        for unit in sorted(here, key=lambda u: u.importance):
            trial = [v for v in victims if v is not unit]
            if fits(pod, without(snapshot, trial)[name]):
                victims = trial
        evicted = [p for u in victims for p in u.pods]
        rank = (max(u.priority for u in victims), len(evicted), sum(u.priority for u in victims), name)
        if best is None or rank < best[0]:
            best = (rank, name, victims)
    if best is None:
        return None, [], reasons
    return best[1], best[2], reasons
