"""ApiWriter: the core's writes (the Writer protocol) as API calls, off the scheduling loop.

Mirrors kube-scheduler's asynchronous API dispatcher (backend/api_dispatcher/call_queue.go): one
ordered queue of calls per object, worked through by a pool. It writes only what a scheduler
writes: Bindings, the PodScheduled condition, the ``PodGroupInitiallyScheduled`` condition,
nominated nodes, Scheduled / FailedScheduling / Preempted events, and for preemption victims the
DisruptionTarget condition and their deletion. Every API error is logged in one line.
"""

from __future__ import annotations

import collections
import datetime
import logging
import socket
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from kubernetes import client
from kubernetes.client.rest import ApiException

from reference_scheduler.framework import Status
from reference_scheduler.model import Pod, PodGroup
from reference_scheduler.runner import SCHEDULING
from reference_scheduler.runner.errors import one_line

log = logging.getLogger("reference_scheduler")


def _disruption_target(message: str) -> dict:
    """The condition a preemption victim, pod or PodGroup, is marked with."""
    return {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler", "message": message,
            "lastTransitionTime": _now()}


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _micro_now() -> str:
    """Now as a MicroTime (an event's ``eventTime``): attempts a second apart can be told apart."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


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
                log.warning("write to %s failed: %s", key, one_line(exc))

    def bind(self, pod: Pod, node: str) -> Status:
        self._in_order(f"pod:{pod.key}", self._bind, pod, node)
        return Status.success()

    def _bind(self, pod: Pod, node: str) -> None:
        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": pod.name, "uid": pod.uid},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node}}
        try:
            _done(self.core.create_namespaced_pod_binding(pod.name, pod.namespace, body, _preload_content=False))
        except Exception as exc:  # an API refusal or a lost connection: the loop retries the pod
            log.warning("bind %s to %s failed: %s", pod.key, node, one_line(exc))
            self.on_bind_failure(pod, node, Status.as_error(f"binding rejected: {one_line(exc)}"))
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
                log.warning("status of %s not written: %s", pod.key, one_line(exc))
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
        if self._patch_group_condition(group, condition):
            self._written[group.key] = (group.uid, condition["status"], condition["lastTransitionTime"])

    def _patch_group_condition(self, group: PodGroup, condition: dict) -> bool:
        """Merge one condition into a PodGroup's status; whether it was written (a deleted group is no error)."""
        try:
            _done(self.custom.patch_namespaced_custom_object_status(
                *SCHEDULING, group.namespace, "podgroups", group.name, {"status": {"conditions": [condition]}},
                _content_type=STRATEGIC, _preload_content=False))
        except ApiException as exc:
            if exc.status != 404:
                log.warning("%s of PodGroup %s not written: %s", condition["type"], group.key, one_line(exc))
            return False
        return True

    def preempt(self, victim: Pod, message: str) -> None:
        self._in_order(f"pod:{victim.key}", self._preempt, victim, _disruption_target(message), _micro_now())

    def group_disrupted(self, group: PodGroup, message: str) -> None:
        self._in_order(f"podgroup:{group.key}", self._patch_group_condition, group, _disruption_target(message))

    def _preempt(self, victim: Pod, condition: dict, at: str) -> None:
        try:
            _done(self.core.patch_namespaced_pod_status(victim.name, victim.namespace,
                                                        {"status": {"conditions": [condition]}},
                                                        _preload_content=False))
            _done(self.core.delete_namespaced_pod(victim.name, victim.namespace, _preload_content=False))
        except ApiException as exc:
            if exc.status != 404:
                log.warning("preemption of %s failed: %s", victim.key, one_line(exc))
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
                log.warning("nomination of %s failed: %s", pod.key, one_line(exc))

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
                log.warning("event %s for %s not written: %s", reason, pod.key, one_line(exc))
        except Exception as exc:  # a lost connection: an event is not worth a retry
            log.warning("event %s for %s not written: %s", reason, pod.key, one_line(exc))
