"""Run the reference scheduler against a real API server.

Informers (a list, then a watch, per kind) feed one event queue; a single loop applies the
events to the :class:`~reference_scheduler.scheduler.Scheduler`, fires due timers and runs
cycles. All scheduler state is touched by that loop only, so the core needs no locks.

It writes to the cluster only what a scheduler writes: Bindings, the PodScheduled condition,
the ``PodGroupInitiallyScheduled`` condition, nominated nodes, Scheduled / FailedScheduling /
Preempted events, and for preemption victims the DisruptionTarget condition and their deletion.
Every API error is logged in one line and the loop goes on: a malformed object, a refused
write or a lost connection never stops the scheduler.
"""

from __future__ import annotations

import datetime
import json
import logging
import queue
import signal
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


def _short(exc: BaseException) -> str:
    if isinstance(exc, ApiException):
        try:
            return f"{exc.status} {json.loads(exc.body).get('message', '')}"[:300]
        except (TypeError, ValueError):
            return f"{exc.status} {exc.reason}"
    return f"{type(exc).__name__}: {exc}"[:300]


#: Concurrent binding and event writes. Upstream binds each pod in a goroutine of its own and
#: records events through an asynchronous broadcaster; a pool of this size keeps the scheduling
#: loop from waiting on round trips without flooding the API server.
WRITERS = 16


class ApiWriter:
    """The scheduler's writes, as API calls. Failures are logged and reported as a Status.

    Bindings and events are written by a pool of threads, off the scheduling loop: ``bind``
    returns at once and a failed binding is reported to ``on_bind_failure`` (the runner turns
    it into an event of its loop). Status writes (conditions, nominations, preemption) stay in
    the loop's thread, so that two writes to one object keep their order.
    """

    def __init__(self, api: client.ApiClient, scheduler_name: str, *,
                 on_bind_failure: Callable[[Pod, str, Status], None] | None = None, workers: int = WRITERS):
        self.core = client.CoreV1Api(api)
        self.custom = client.CustomObjectsApi(api)
        self.name = scheduler_name
        self.on_bind_failure = on_bind_failure or (lambda pod, node, status: None)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="writer")

    def close(self) -> None:
        """Finish the writes in flight."""
        self._pool.shutdown(wait=True)

    def bind(self, pod: Pod, node: str) -> Status:
        self._pool.submit(self._bind, pod, node)
        return Status.success()

    def _bind(self, pod: Pod, node: str) -> None:
        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": pod.name, "uid": pod.uid},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node}}
        try:
            self.core.create_namespaced_pod_binding(pod.name, pod.namespace, body, _preload_content=False)
        except Exception as exc:  # an API refusal or a lost connection: the loop retries the pod
            log.warning("bind %s to %s failed: %s", pod.key, node, _short(exc))
            self.on_bind_failure(pod, node, Status.as_error(f"binding rejected: {_short(exc)}"))
            return
        self._post_event(pod, "Normal", "Scheduled", f"Successfully assigned {pod.key} to {node}")

    def pod_unschedulable(self, pod: Pod, reason: str, message: str) -> None:
        condition = {"type": "PodScheduled", "status": "False", "reason": reason, "message": message,
                     "lastTransitionTime": _now(), "lastProbeTime": None}
        try:
            self.core.patch_namespaced_pod_status(pod.name, pod.namespace, {"status": {"conditions": [condition]}})
        except ApiException as exc:
            if exc.status != 404:
                log.warning("status of %s not written: %s", pod.key, _short(exc))
        self._event(pod, "Warning", "FailedScheduling", message)

    def group_condition(self, group: PodGroup, status: bool, reason: str, message: str) -> None:
        condition = {"type": "PodGroupInitiallyScheduled", "status": "True" if status else "False",
                     "reason": reason, "message": message, "lastTransitionTime": _now()}
        try:
            current = self.custom.get_namespaced_custom_object(*SCHEDULING, group.namespace, "podgroups", group.name)
            others = [c for c in (current.get("status") or {}).get("conditions") or []
                      if c.get("type") != "PodGroupInitiallyScheduled"]
            old = next((c for c in (current.get("status") or {}).get("conditions") or []
                        if c.get("type") == "PodGroupInitiallyScheduled"), None)
            if old is not None and old.get("status") == condition["status"]:
                condition["lastTransitionTime"] = old.get("lastTransitionTime") or condition["lastTransitionTime"]
            self.custom.patch_namespaced_custom_object_status(
                *SCHEDULING, group.namespace, "podgroups", group.name,
                {"status": {"conditions": others + [condition]}})
        except ApiException as exc:
            if exc.status != 404:
                log.warning("condition of PodGroup %s not written: %s", group.key, _short(exc))

    def preempt(self, victim: Pod, message: str) -> None:
        condition = {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                     "message": message, "lastTransitionTime": _now()}
        try:
            self.core.patch_namespaced_pod_status(victim.name, victim.namespace,
                                                  {"status": {"conditions": [condition]}})
            self.core.delete_namespaced_pod(victim.name, victim.namespace)
        except ApiException as exc:
            if exc.status != 404:
                log.warning("preemption of %s failed: %s", victim.key, _short(exc))
            return
        self._event(victim, "Normal", "Preempted", message)

    def nominate(self, pod: Pod, node: str) -> None:
        """Set (or, with ``node`` empty, clear) the pod's ``status.nominatedNodeName``."""
        try:
            self.core.patch_namespaced_pod_status(pod.name, pod.namespace,
                                                  {"status": {"nominatedNodeName": node or None}})
        except ApiException as exc:
            if exc.status != 404:
                log.warning("nomination of %s failed: %s", pod.key, _short(exc))

    def _event(self, pod: Pod, type_: str, reason: str, message: str) -> None:
        self._pool.submit(self._post_event, pod, type_, reason, message)

    def _post_event(self, pod: Pod, type_: str, reason: str, message: str) -> None:
        body = {
            "metadata": {"name": f"{pod.name}.{uuid.uuid4().hex[:12]}", "namespace": pod.namespace},
            "involvedObject": {"kind": "Pod", "namespace": pod.namespace, "name": pod.name, "uid": pod.uid,
                               "apiVersion": "v1"},
            "reason": reason, "message": message[:1024], "type": type_,
            "source": {"component": self.name}, "reportingComponent": self.name,
            "firstTimestamp": _now(), "lastTimestamp": _now(), "count": 1,
        }
        try:
            self.core.create_namespaced_event(pod.namespace, body)
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
                w = watch.Watch()
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
                 fault_reserve_label: str | None = None):
        self.api = api
        self.clock = SimClock(start=time.monotonic())
        self.events: queue.Queue = queue.Queue()
        self.writer = ApiWriter(api, scheduler_name, on_bind_failure=lambda pod, node, status: self.events.put(
            (BIND_FAILED, (node, status.message()), pod.key)))
        self.scheduler = Scheduler(scheduler_name, self.clock, self.writer, features=features,
                                   fault_reserve_label=fault_reserve_label)
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
    parser.add_argument("--scheduler-name", default="gangconf-reference",
                        help="the spec.schedulerName this scheduler serves (default gangconf-reference)")
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
    runner = Runner(api, args.scheduler_name, features, fault_reserve_label=args.fault_reserve_label)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: runner.stop.set())
    log.info("reference scheduler %s starting against %s", args.scheduler_name, api.configuration.host)
    runner.run()
    runner.writer.close()
    log.info("reference scheduler stopped")
    return 0
