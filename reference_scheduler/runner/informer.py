"""Informers: list, then watch, one kind of object, relisting after an error.

Mirrors client-go's reflector and informer as kube-scheduler uses them (``NewInformerFactory``
in scheduler.go).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from typing import Any, Callable

from kubernetes import watch

from reference_scheduler.runner.errors import one_line

log = logging.getLogger("reference_scheduler")


class RawWatch(watch.Watch):
    """A watch that only decodes each event's JSON: its users (the runner's informers, the
    harness's Recorder) read ``raw_object`` and never the typed model the client would otherwise
    build for every event."""

    def get_return_type(self, func: Callable[..., Any]) -> None:
        return None


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
                log.warning("%s informer: %s; relisting", self.kind, one_line(exc))
                self.stop.wait(1.0)
