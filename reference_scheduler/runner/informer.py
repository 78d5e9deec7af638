"""ListWatch: list, then watch, one kind of object; list again after an error or when the server ends the watch.

Mirrors client-go's reflector (``ListAndWatch``) as kube-scheduler's informers use it
(``NewInformerFactory`` in scheduler.go). The runner's informers feed the scheduler's loop with
it, and the harness's Recorder records a namespace with it: one implementation of the loop.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable

from kubernetes import watch

#: ``on_event(type, key, obj)``: ADDED, MODIFIED or DELETED; ``obj`` is None for an object a relist no longer shows.
OnEvent = Callable[[str, str, "dict[str, Any] | None"], None]


def object_key(obj: dict[str, Any]) -> str:
    """``namespace/name``, or ``name`` for a cluster-scoped object."""
    meta = obj["metadata"]
    return f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else meta["name"]


class RawWatch(watch.Watch):
    """A watch that only decodes each event's JSON: the users read ``raw_object`` and never the typed
    model the client would otherwise build for every event."""

    def get_return_type(self, func: Callable[..., Any]) -> None:
        return None


class ListWatch:
    """One kind of object, kept in step: a list, then a watch from its resourceVersion, again and again.

    Each object is reported as it first shows and on every change; a relist (after an error, a
    410 Gone or the end of a watch) reports what changed meanwhile (an object whose
    resourceVersion is the same is not reported again) and what went (DELETED, no object).
    ``on_synced`` is called once, after the first list. ``on_error(exc)`` is given every failure of a
    list or watch: True lists again after ``pause`` seconds, False ends the loop. ``stop`` (shared or
    not) ends it too, at the next event; :meth:`stop` also ends the open watch.
    """

    def __init__(self, lister: Callable[..., Any], kwargs: dict[str, Any], on_event: OnEvent, *,
                 on_synced: Callable[[], None] | None = None, on_error: Callable[[BaseException], bool] | None = None,
                 stop: threading.Event | None = None, watch_timeout: int = 60, pause: float = 1.0,
                 name: str = "list-watch") -> None:
        self.lister, self.kwargs, self.on_event = lister, kwargs, on_event
        self.on_synced = on_synced or (lambda: None)
        self.on_error = on_error or (lambda exc: True)
        self.stopped = stop or threading.Event()
        self.watch_timeout, self.pause, self.name = watch_timeout, pause, name
        #: Set once the first list has been reported.
        self.synced = threading.Event()
        self._watch: RawWatch | None = None

    def start(self) -> threading.Thread:
        """Run the loop on a daemon thread of its own."""
        thread = threading.Thread(target=self.run, daemon=True, name=self.name)
        thread.start()
        return thread

    def stop(self) -> None:
        self.stopped.set()
        current = self._watch
        if current is not None:
            current.stop()

    def run(self) -> None:
        known: dict[str, str] = {}  # key -> resourceVersion, to turn a relist into events
        while not self.stopped.is_set():
            try:
                version = self._list(known)
                if not self.synced.is_set():
                    self.synced.set()
                    self.on_synced()
                self._watch_from(version, known)
            except Exception as exc:  # unreachable server, 410 Gone, decode errors: relist after a pause
                if self.stopped.is_set() or not self.on_error(exc):
                    return
                self.stopped.wait(self.pause)

    def _list(self, known: dict[str, str]) -> str:
        body = json.loads(self.lister(**self.kwargs, _preload_content=False).data)
        seen = set()
        for item in body.get("items") or []:
            key = object_key(item)
            seen.add(key)
            version = item["metadata"].get("resourceVersion", "")
            if known.get(key) != version:
                event = "MODIFIED" if key in known else "ADDED"
                known[key] = version
                self.on_event(event, key, item)
        for key in set(known) - seen:
            del known[key]
            self.on_event("DELETED", key, None)
        return body["metadata"]["resourceVersion"]

    def _watch_from(self, version: str, known: dict[str, str]) -> None:
        self._watch = current = RawWatch()
        if self.stopped.is_set():
            return
        for event in current.stream(self.lister, **self.kwargs, resource_version=version,
                                    timeout_seconds=self.watch_timeout, allow_watch_bookmarks=True):
            if self.stopped.is_set():
                current.stop()
                return
            kind, raw = event["type"], event["raw_object"]
            if kind == "BOOKMARK":
                continue
            if kind == "ERROR":
                return  # e.g. 410 Gone: relist
            key = object_key(raw)
            if kind == "DELETED":
                known.pop(key, None)
            else:
                known[key] = raw["metadata"].get("resourceVersion", "")
            self.on_event(kind, key, raw)
