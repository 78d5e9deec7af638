"""The scheduler: the composition root of the core, and its one entry point per cycle.

Mirrors pkg/scheduler/scheduler.go (``New``: cache, queue, profiles, handlers) and
``ScheduleOne`` of schedule_one.go. Pure and deterministic: it is driven by calls (``on_*`` for
cluster changes, :meth:`Scheduler.schedule_next` for one cycle) and talks to the outside only
through a :class:`~reference_scheduler.backend.writer.Writer` (bind, conditions, events) and a
:class:`~reference_scheduler.clock.Clock`. The same object runs in unit tests in virtual time and,
through :mod:`reference_scheduler.runner`, against a real API server.

Where things are: the cache, queue, nominator and pod-group state in :mod:`reference_scheduler.backend`;
the profile's plugins and their extension points in :mod:`reference_scheduler.framework`; what an
event does in :mod:`~reference_scheduler.eventhandlers`; the pod cycle in
:mod:`~reference_scheduler.schedule_one`; the pod-group and tree cycles in
:mod:`~reference_scheduler.schedule_one_podgroup`.
"""

from __future__ import annotations

from reference_scheduler.backend.cache import Cache
from reference_scheduler.backend.nominator import Nominator
from reference_scheduler.backend.pod_group_state import PodGroupManager
from reference_scheduler.backend.queue import SchedulingQueue
from reference_scheduler.backend.workload_forest import WorkloadForest
from reference_scheduler.backend.writer import Writer
from reference_scheduler.clock import Clock
from reference_scheduler.eventhandlers import EventHandlers
from reference_scheduler.features import Features
from reference_scheduler.framework.handle import Handle
from reference_scheduler.framework.registry import ProfileConfig, Registry
from reference_scheduler.framework.runtime import Framework
from reference_scheduler.framework.types import POD
from reference_scheduler.framework.waiting_pods import WaitingPods
from reference_scheduler.model import CompositePodGroup, Node, Pod, PodGroup
from reference_scheduler.plugins.registry import in_tree_profile, in_tree_registry
from reference_scheduler.schedule_one import PodCycle
from reference_scheduler.schedule_one_podgroup import PodGroupCycle


class Scheduler:
    """One scheduler (its profiles share one queue) over one cluster."""

    def __init__(self, scheduler_name: str, clock: Clock, writer: Writer, *, registry: Registry | None = None,
                 profile: ProfileConfig | None = None, features: frozenset[str] = frozenset(),
                 fault_reserve_label: str | None = None, also_serve: tuple[str, ...] = ()):
        """``features`` are the gates on; ``fault_reserve_label`` enables the fault profile's Reserve plugin.
        ``registry`` and ``profile`` replace the in-tree plugins and profile (tests, other plugins)."""
        self.features = Features.of(features)
        self.scheduler_name = scheduler_name
        #: Every ``spec.schedulerName`` this scheduler is responsible for: like kube-scheduler with
        #: several profiles (same plugins here), one queue serves them all, so the members of one
        #: PodGroup that name different profiles meet in one entity (GANG-SCHEDNAME-001).
        self.scheduler_names = frozenset((scheduler_name, *also_serve))
        self.clock = clock
        self.writer = writer
        self.cache = Cache()
        self.forest = WorkloadForest(self.cache, enabled=self.features.composite_pod_group)
        self.nominator = Nominator()
        self.waiting_pods = WaitingPods(clock)
        self.pod_group_manager = PodGroupManager(self.cache, self.forest, self.scheduler_names)
        self.handle = Handle(scheduler_name, self.pod_group_manager, self.waiting_pods, writer, self.cache.pods)
        self.framework = Framework((registry or in_tree_registry()).build_profile(
            scheduler_name, profile or in_tree_profile(self.features, fault_reserve_label),
            handle=self.handle, features=self.features))
        self.queue = SchedulingQueue(clock, self.framework, self.cache, self.waiting_pods, self.scheduler_names)
        self.handle.connect(self.framework, self.queue.activate)
        self.event_handlers = EventHandlers(self)
        self.pod_cycle = PodCycle(self)
        self.pod_group_cycle = PodGroupCycle(self)

    # -- informer events (eventhandlers.py) --------------------------------------------------------------

    def on_node(self, node: Node | None, name: str) -> None:
        """A node was added or changed (``node``) or deleted (``None``)."""
        self.event_handlers.on_node(node, name)

    def on_pod(self, pod: Pod | None, key: str) -> None:
        """A pod was added or changed (``pod``) or deleted (``None``)."""
        self.event_handlers.on_pod(pod, key)

    def on_pod_group(self, group: PodGroup | None, key: str) -> None:
        """A PodGroup was added or changed (``group``) or deleted (``None``)."""
        self.event_handlers.on_pod_group(group, key)

    def on_composite_pod_group(self, cpg: CompositePodGroup | None, key: str) -> None:
        """A CompositePodGroup was added or changed (``cpg``) or deleted (``None``)."""
        self.event_handlers.on_composite_pod_group(cpg, key)

    def binding_failed(self, pod_key: str, node: str, message: str) -> None:
        """The writer reports that the binding of an assumed pod failed: it is forgotten and retried after backoff."""
        self.pod_cycle.handle_binding_failure(pod_key, node, message)

    # -- cycles ----------------------------------------------------------------------------------------

    def schedule_next(self) -> bool:
        """Run one cycle for the first ready entity (ScheduleOne); return False when none is ready."""
        entity = self.queue.pop()
        if entity is None:
            return False
        if entity.key.type == POD:
            self.pod_cycle.schedule_one_pod(entity)
        else:
            self.pod_group_cycle.schedule_one_pod_group(entity)
        return True

    def run_until_idle(self, limit: int = 10_000) -> int:
        """Run cycles until no entity is ready (virtual-time tests); return how many ran."""
        for count in range(limit):
            if not self.schedule_next():
                return count
        raise RuntimeError(f"still scheduling after {limit} cycles")
