"""The runner's loop: informer events into the core, timers on the monotonic clock, cycles.

Mirrors scheduler.go's ``Run`` (informers started, then ``ScheduleOne`` in a loop). Informers
feed one event queue; this single loop applies the events to the
:class:`~reference_scheduler.scheduler.Scheduler`, fires due timers and runs cycles. All scheduler
state is touched by the loop only, so the core needs no locks; writes go out through the
:class:`~reference_scheduler.runner.api_writer.ApiWriter`, so the loop never waits on a round trip.
A malformed object, a refused write or a lost connection is logged in one line and the loop goes on.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any

from kubernetes import client

from reference_scheduler.clock import SimClock
from reference_scheduler.model import CompositePodGroup, Node, Pod, PodGroup
from reference_scheduler.runner import COMPOSITE_API, READY_LINE, SCHEDULING
from reference_scheduler.runner.api_writer import ApiWriter
from reference_scheduler.runner.errors import one_line
from reference_scheduler.runner.informer import ListWatch
from reference_scheduler.scheduler import Scheduler

log = logging.getLogger("reference_scheduler")
#: The loop's event for a binding that a writer thread saw fail.
BIND_FAILED = "BindFailed"


class Runner:
    def __init__(self, api: client.ApiClient, scheduler_name: str, features: frozenset[str] = frozenset(),
                 fault_reserve_label: str | None = None, also_serve: tuple[str, ...] = ()):
        self.api = api
        self.clock = SimClock(start=time.monotonic())
        self.events: queue.Queue = queue.Queue()
        self.writer = ApiWriter(api, scheduler_name, on_bind_failure=lambda pod, node, status: self.events.put(
            (BIND_FAILED, (node, status.message()), pod.key)))
        self.scheduler = Scheduler(scheduler_name, self.clock, self.writer, features=features,
                                   fault_reserve_label=fault_reserve_label, also_serve=also_serve)
        self.stop = threading.Event()
        core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
        sources = [
            ("Node", core.list_node, {}),
            ("PodGroup", custom.list_cluster_custom_object,
             {"group": SCHEDULING[0], "version": SCHEDULING[1], "plural": "podgroups"}),
            ("Pod", core.list_pod_for_all_namespaces, {}),
        ]
        if self.scheduler.features.composite_pod_group:
            sources.insert(2, ("CompositePodGroup", custom.list_cluster_custom_object,
                               {"group": COMPOSITE_API[0], "version": COMPOSITE_API[1], "plural": "compositepodgroups"}))
        self.informers = [ListWatch(lister, kwargs, self._enqueue(kind), on_error=self._relisting(kind), stop=self.stop,
                                    watch_timeout=120, pause=1.0, name=f"informer-{kind}")
                          for kind, lister, kwargs in sources]

    def _enqueue(self, kind: str):
        """The informer's events onto the loop's queue, as (kind, object or None when deleted, key)."""
        return lambda event, key, obj: self.events.put((kind, None if event == "DELETED" else obj, key))

    @staticmethod
    def _relisting(kind: str):
        def relist(exc: BaseException) -> bool:
            log.warning("%s informer: %s; relisting", kind, one_line(exc))
            return True
        return relist

    def apply(self, kind: str, obj: Any, key: str) -> None:
        try:
            if kind == BIND_FAILED:
                self.scheduler.binding_failed(key, *obj)
            elif kind == "Node":
                self.scheduler.on_node(Node.from_api(obj) if obj else None, key)
            elif kind == "PodGroup":
                self.scheduler.on_pod_group(PodGroup.from_api(obj) if obj else None, key)
                if obj is None:
                    self.writer.forget(key)
            elif kind == "CompositePodGroup":
                self.scheduler.on_composite_pod_group(CompositePodGroup.from_api(obj) if obj else None, key)
            else:
                self.scheduler.on_pod(Pod.from_api(obj) if obj else None, key)
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("ignoring malformed %s %s: %s", kind, key, one_line(exc))

    def drain(self, timeout: float) -> None:
        try:
            item = self.events.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return
        self.apply(*item)
        while True:
            try:
                self.apply(*self.events.get_nowait())
            except queue.Empty:
                return

    def run(self) -> None:
        for informer in self.informers:
            informer.start()
        announced = False
        while not self.stop.is_set():
            due = self.clock.next_due()
            self.drain(0.5 if due is None else min(0.5, max(0.0, due - time.monotonic())))
            if not announced and all(informer.synced.is_set() for informer in self.informers):
                self.drain(0)
                log.info(READY_LINE)
                announced = True
            self.clock.run(until=time.monotonic())
            if announced:
                while not self.stop.is_set() and self.scheduler.schedule_next():
                    self.drain(0)
