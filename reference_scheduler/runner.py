"""Run the reference scheduler against a real API server.

Informers (a list, then a watch, per kind) feed one event queue; a single loop applies the
events to the :class:`~reference_scheduler.scheduler.Scheduler`, fires due timers and runs
cycles. All scheduler state is touched by that loop only, so the core needs no locks.

It writes to the cluster only what a scheduler writes: Bindings, the PodScheduled condition,
the ``PodGroupInitiallyScheduled`` condition, nominated nodes, Scheduled / FailedScheduling /
Preempted events, and for preemption victims the DisruptionTarget condition and their deletion.
The writes are made by a pool of threads, in order per object (:class:`ApiWriter`), so the loop
never waits on a round trip. Every API error is logged in one line and the loop goes on: a malformed object, a refused
write or a lost connection never stops the scheduler.
"""

from __future__ import annotations

import collections
import datetime
import json
import logging
import queue
import signal
import socket
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

from reference_scheduler.clock import SimClock
from reference_scheduler.framework import Status
from reference_scheduler.model import CompositePodGroup, Node, Pod, PodGroup
from reference_scheduler.plugins.fault import check_label_key
from reference_scheduler.scheduler import FEATURES, Scheduler

log = logging.getLogger("reference_scheduler")
SCHEDULING = ("scheduling.k8s.io", "v1beta1")
#: CompositePodGroup exists only in v1alpha3 in v1.37.
COMPOSITE_API = ("scheduling.k8s.io", "v1alpha3")
#: Printed to the log once every informer has listed: the harness waits for it.
READY_LINE = "reference scheduler ready: informers synced"
#: The loop's event for a binding that a writer thread saw fail.
BIND_FAILED = "BindFailed"


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _micro_now() -> str:
    """Now as a MicroTime (an event's ``eventTime``): attempts a second apart can be told apart."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _short(exc: BaseException) -> str:
    if isinstance(exc, ApiException):
        try:
            return f"{exc.status} {json.loads(exc.body).get('message', '')}"[:300]
        except (TypeError, ValueError):
            return f"{exc.status} {exc.reason}"
    return f"{type(exc).__name__}: {exc}"[:300]


#: Concurrent writes. Upstream binds each pod in a goroutine of its own and records events
#: through an asynchronous broadcaster; a pool of this size keeps the scheduling loop from waiting
#: on round trips without flooding the API server.
WRITERS = 16
#: PodGroup status conditions are a map keyed by type (patchStrategy merge): a strategic merge
#: patch sets one condition and leaves the others as they are, with no read before the write.
STRATEGIC = "application/strategic-merge-patch+json"


def _done(response: Any) -> None:
    """Read a raw (``_preload_content=False``) response to its end and give its connection back
    to the pool: an unread response keeps its connection, and the next call opens a new one."""
    try:
        response.read()
    finally:
        response.release_conn()


class RawWatch(watch.Watch):
    """A watch that only decodes each event's JSON: its users (the runner's informers, the
    harness's Recorder) read ``raw_object`` and never the typed model the client would otherwise
    build for every event."""

    def get_return_type(self, func: Callable[..., Any]) -> None:
        return None


class ApiWriter:
    """The scheduler's writes, as API calls. Failures are logged (and a failed binding reported).

    Every write is made off the scheduling loop, by a pool of threads: the methods return at
    once. Writes to one object keep the order in which the loop asked for them (each object has a
    queue of its own, run by one pool thread at a time): a pod's nomination and its clearing, its
    ``PodScheduled=False`` and a later binding, a victim's DisruptionTarget and its deletion, a
    PodGroup's successive conditions. An event is written after the write it reports. A failed
    binding is reported to ``on_bind_failure`` (the runner turns it into an event of its loop).
    """

    def __init__(self, api: client.ApiClient, scheduler_name: str, *,
                 on_bind_failure: Callable[[Pod, str, Status], None] | None = None, workers: int = WRITERS):
        self.core = client.CoreV1Api(api)
        self.custom = client.CustomObjectsApi(api)
        self.name = scheduler_name
        self.instance = f"{scheduler_name}-{socket.gethostname()}"[:128]
        self.on_bind_failure = on_bind_failure or (lambda pod, node, status: None)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="writer")
        self._lock = threading.Lock()
        #: Object -> the writes queued for it; present while a pool thread works through them.
        self._queues: dict[str, collections.deque] = {}
        #: PodGroup key -> (uid, status, lastTransitionTime) of the condition this writer last wrote.
        self._written: dict[str, tuple[str, str, str]] = {}

    def close(self) -> None:
        """Finish the writes queued and in flight."""
        self._pool.shutdown(wait=True)

    def forget(self, group_key: str) -> None:
        """A PodGroup was deleted: drop what this writer remembers of its condition."""
        self._written.pop(group_key, None)

    def _in_order(self, key: str, write: Callable[..., None], *args: Any) -> None:
        """Run ``write(*args)`` on the pool, after every write queued before it for object ``key``."""
        with self._lock:
            queued = self._queues.get(key)
            if queued is not None:
                queued.append((write, args))
                return
            self._queues[key] = collections.deque([(write, args)])
        self._pool.submit(self._work_through, key)

    def _work_through(self, key: str) -> None:
        while True:
            with self._lock:
                queued = self._queues[key]
                if not queued:
                    del self._queues[key]
                    return
                write, args = queued.popleft()
            try:
                write(*args)
            except Exception as exc:  # the writes log their own failures; this keeps the queue going
                log.warning("write to %s failed: %s", key, _short(exc))

    def bind(self, pod: Pod, node: str) -> Status:
        self._in_order(f"pod:{pod.key}", self._bind, pod, node)
        return Status.success()

    def _bind(self, pod: Pod, node: str) -> None:
        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": pod.name, "uid": pod.uid},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node}}
        try:
            _done(self.core.create_namespaced_pod_binding(pod.name, pod.namespace, body, _preload_content=False))
        except Exception as exc:  # an API refusal or a lost connection: the loop retries the pod
            log.warning("bind %s to %s failed: %s", pod.key, node, _short(exc))
            self.on_bind_failure(pod, node, Status.as_error(f"binding rejected: {_short(exc)}"))
            return
        self._post_event(pod, "Normal", "Scheduled", f"Successfully assigned {pod.key} to {node}")

    def pod_unschedulable(self, pod: Pod, reason: str, message: str) -> None:
        condition = {"type": "PodScheduled", "status": "False", "reason": reason, "message": message,
                     "lastTransitionTime": _now(), "lastProbeTime": None}
        self._in_order(f"pod:{pod.key}", self._pod_unschedulable, pod, condition, _micro_now())

    def _pod_unschedulable(self, pod: Pod, condition: dict, at: str) -> None:
        try:
            _done(self.core.patch_namespaced_pod_status(pod.name, pod.namespace,
                                                        {"status": {"conditions": [condition]}},
                                                        _preload_content=False))
        except ApiException as exc:
            if exc.status != 404:
                log.warning("status of %s not written: %s", pod.key, _short(exc))
        self._post_event(pod, "Warning", "FailedScheduling", condition["message"], at)

    def group_condition(self, group: PodGroup, status: bool, reason: str, message: str) -> None:
        condition = {"type": "PodGroupInitiallyScheduled", "status": "True" if status else "False",
                     "reason": reason, "message": message, "lastTransitionTime": _now()}
        self._in_order(f"podgroup:{group.key}", self._group_condition, group, condition)

    def _group_condition(self, group: PodGroup, condition: dict) -> None:
        # The condition as last known, from the informer's copy of the group or from this writer's
        # last write to it (whichever is later): its time stays when its status does not change.
        known = [c for c in (self._written.get(group.key),
                             (group.uid, *group.scheduled_condition) if group.scheduled_condition else None)
                 if c is not None and c[0] == group.uid]
        if known:
            _, status, since = max(known, key=lambda c: c[2])
            if status == condition["status"] and since:
                condition["lastTransitionTime"] = since
        try:
            _done(self.custom.patch_namespaced_custom_object_status(
                *SCHEDULING, group.namespace, "podgroups", group.name, {"status": {"conditions": [condition]}},
                _content_type=STRATEGIC, _preload_content=False))
        except ApiException as exc:
            if exc.status != 404:
                log.warning("condition of PodGroup %s not written: %s", group.key, _short(exc))
            return
        self._written[group.key] = (group.uid, condition["status"], condition["lastTransitionTime"])

    def preempt(self, victim: Pod, message: str) -> None:
        condition = {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                     "message": message, "lastTransitionTime": _now()}
        self._in_order(f"pod:{victim.key}", self._preempt, victim, condition, _micro_now())

    def _preempt(self, victim: Pod, condition: dict, at: str) -> None:
        try:
            _done(self.core.patch_namespaced_pod_status(victim.name, victim.namespace,
                                                        {"status": {"conditions": [condition]}},
                                                        _preload_content=False))
            _done(self.core.delete_namespaced_pod(victim.name, victim.namespace, _preload_content=False))
        except ApiException as exc:
            if exc.status != 404:
                log.warning("preemption of %s failed: %s", victim.key, _short(exc))
            return
        self._post_event(victim, "Normal", "Preempted", condition["message"], at)

    def nominate(self, pod: Pod, node: str) -> None:
        """Set (or, with ``node`` empty, clear) the pod's ``status.nominatedNodeName``."""
        self._in_order(f"pod:{pod.key}", self._nominate, pod, node)

    def _nominate(self, pod: Pod, node: str) -> None:
        try:
            _done(self.core.patch_namespaced_pod_status(pod.name, pod.namespace,
                                                        {"status": {"nominatedNodeName": node or None}},
                                                        _preload_content=False))
        except ApiException as exc:
            if exc.status != 404:
                log.warning("nomination of %s failed: %s", pod.key, _short(exc))

    def _post_event(self, pod: Pod, type_: str, reason: str, message: str, at: str | None = None) -> None:
        """Write one event, at ``at`` (when it happened; default now), in the name of the pod's
        profile, as kube-scheduler reports it; each occurrence is an event of its own."""
        component = pod.scheduler_name or self.name
        body = {
            "metadata": {"name": f"{pod.name}.{uuid.uuid4().hex[:12]}", "namespace": pod.namespace},
            "involvedObject": {"kind": "Pod", "namespace": pod.namespace, "name": pod.name, "uid": pod.uid,
                               "apiVersion": "v1"},
            "reason": reason, "message": message[:1024], "type": type_,
            "source": {"component": component}, "reportingComponent": component,
            "reportingInstance": self.instance, "action": "Scheduling" if reason != "Preempted" else "Preempting",
            "eventTime": at or _micro_now(),
        }
        try:
            _done(self.core.create_namespaced_event(pod.namespace, body, _preload_content=False))
        except ApiException as exc:
            if exc.status != 404:
                log.warning("event %s for %s not written: %s", reason, pod.key, _short(exc))
        except Exception as exc:  # a lost connection: an event is not worth a retry
            log.warning("event %s for %s not written: %s", reason, pod.key, _short(exc))


class Informer(threading.Thread):
    """List, then watch, one kind; push (kind, object or None, key) onto the loop's queue."""

    def __init__(self, kind: str, lister: Callable[..., Any], kwargs: dict, events: queue.Queue,
                 stop: threading.Event, synced: threading.Event):
        super().__init__(daemon=True, name=f"informer-{kind}")
        self.kind, self.lister, self.kwargs, self.events, self.stop, self.synced = \
            kind, lister, kwargs, events, stop, synced

    @staticmethod
    def key(obj: dict) -> str:
        meta = obj["metadata"]
        return f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else meta["name"]

    def run(self) -> None:
        known: set[str] = set()
        while not self.stop.is_set():
            try:
                body = json.loads(self.lister(**self.kwargs, _preload_content=False).data)
                seen = set()
                for item in body.get("items") or []:
                    seen.add(self.key(item))
                    self.events.put((self.kind, item, self.key(item)))
                for gone in known - seen:
                    self.events.put((self.kind, None, gone))
                known = seen
                self.synced.set()
                w = RawWatch()
                for event in w.stream(self.lister, **self.kwargs, resource_version=body["metadata"]["resourceVersion"],
                                      timeout_seconds=120):
                    if self.stop.is_set():
                        return
                    if event["type"] == "ERROR":
                        break
                    raw = event["raw_object"]
                    key = self.key(raw)
                    if event["type"] == "DELETED":
                        known.discard(key)
                        self.events.put((self.kind, None, key))
                    else:
                        known.add(key)
                        self.events.put((self.kind, raw, key))
            except Exception as exc:  # unreachable server, 410 Gone, decode errors: relist after a pause
                if self.stop.is_set():
                    return
                log.warning("%s informer: %s; relisting", self.kind, _short(exc))
                self.stop.wait(1.0)


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
        if self.scheduler.hierarchies:
            sources.insert(2, ("CompositePodGroup", custom.list_cluster_custom_object,
                               {"group": COMPOSITE_API[0], "version": COMPOSITE_API[1], "plural": "compositepodgroups"}))
        self.synced = [threading.Event() for _ in sources]
        self.informers = [Informer(kind, lister, kwargs, self.events, self.stop, synced)
                          for (kind, lister, kwargs), synced in zip(sources, self.synced)]

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
            log.warning("ignoring malformed %s %s: %s", kind, key, _short(exc))

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
            if not announced and all(s.is_set() for s in self.synced):
                self.drain(0)
                log.info(READY_LINE)
                announced = True
            self.clock.run(until=time.monotonic())
            if announced:
                while not self.stop.is_set() and self.scheduler.schedule_next():
                    self.drain(0)


def parse_feature_gates(flag: str) -> frozenset[str]:
    """``A=true,B=false`` to the set of gates on; GenericWorkload is accepted and always on."""
    on: set[str] = set()
    for item in filter(None, (part.strip() for part in flag.split(","))):
        gate, sep, value = item.partition("=")
        if not sep or value.lower() not in ("true", "false"):
            raise ValueError(f"--feature-gates: {item!r} is not GATE=true or GATE=false")
        if gate != "GenericWorkload" and gate not in FEATURES:
            raise ValueError(f"--feature-gates: unknown gate {gate!r}; known: GenericWorkload, {', '.join(sorted(FEATURES))}")
        if value.lower() == "true" and gate in FEATURES:
            on.add(gate)
    return frozenset(on)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m reference_scheduler",
                                     description="gangconf's reference gang scheduler, against a real API server")
    parser.add_argument("--kubeconfig", required=True, help="kubeconfig of the scheduler's own identity")
    parser.add_argument("--scheduler-name", action="append", default=None, metavar="NAME",
                        help="a spec.schedulerName this scheduler serves (repeatable, like kube-scheduler's "
                             "profiles; default gangconf-reference)")
    parser.add_argument("--feature-gates", default="", metavar="GATE=BOOL,...",
                        help="alpha gates to follow, as kube-scheduler's flag: "
                             + ", ".join(sorted(FEATURES)) + " (GenericWorkload is always on)")
    parser.add_argument("--fault-reserve-label", default=None, metavar="KEY",
                        help="test only (the fault profile): pods labelled KEY=once fail their first Reserve before "
                             "binding, KEY=always every one (see reference_scheduler/plugins/fault.py)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every cycle")
    args = parser.parse_args(argv)
    try:
        features = parse_feature_gates(args.feature_gates)
        if args.fault_reserve_label is not None:
            check_label_key(args.fault_reserve_label)
    except ValueError as exc:
        print(f"reference_scheduler: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        configuration = client.Configuration()
        config.load_kube_config(config_file=args.kubeconfig, client_configuration=configuration)
        # One connection per writer thread and informer, so that none waits for a free one.
        configuration.connection_pool_maxsize = WRITERS + 8
        api = client.ApiClient(configuration)
    except Exception as exc:
        log.error("cannot load kubeconfig %s: %s", args.kubeconfig, _short(exc))
        return 2
    names = list(dict.fromkeys(args.scheduler_name or ["gangconf-reference"]))
    runner = Runner(api, names[0], features, fault_reserve_label=args.fault_reserve_label,
                    also_serve=tuple(names[1:]))
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: runner.stop.set())
    log.info("reference scheduler %s starting against %s", ", ".join(names), api.configuration.host)
    runner.run()
    runner.writer.close()
    log.info("reference scheduler stopped")
    return 0
