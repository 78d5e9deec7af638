"""gangconf's reference gang scheduler: the v1.37 behaviour catalogue in executable form.

Its shape mirrors kube-scheduler v1.37.2's on purpose, file by file (each module names the
upstream file it mirrors), so that a scheduler fork can read off where it differs: the core
(:mod:`~reference_scheduler.scheduler`, :mod:`~reference_scheduler.eventhandlers`,
:mod:`~reference_scheduler.schedule_one`, :mod:`~reference_scheduler.schedule_one_podgroup`),
its state in :mod:`~reference_scheduler.backend`, the framework (statuses, one protocol per
extension point, the registry, the runtime, the handle) in :mod:`~reference_scheduler.framework`,
the in-tree plugins in :mod:`~reference_scheduler.plugins`, and the loop against a real API server
in :mod:`~reference_scheduler.runner`. Time is virtual (a :class:`SimClock`); the runner advances
it to the monotonic clock.

What is imported from here is the public surface; the harness (``fixtures/``) imports nothing else.
This package never imports pytest.
"""

import importlib

from reference_scheduler import quantity
from reference_scheduler.features import FEATURES, parse_feature_gates
from reference_scheduler.runner import DEFAULT_SCHEDULER_NAME, READY_LINE

# The rest is imported when first asked for: the harness wants the list-watch loop without the core
# (and numpy), the core's users want the core without the Kubernetes client.
_LAZY = {
    "ListWatch": "reference_scheduler.runner.informer",
    "Scheduler": "reference_scheduler.scheduler",
    "Clock": "reference_scheduler.clock", "SimClock": "reference_scheduler.clock",
    "Code": "reference_scheduler.framework.status", "Status": "reference_scheduler.framework.status",
    "CompositePodGroup": "reference_scheduler.model", "Node": "reference_scheduler.model",
    "Pod": "reference_scheduler.model", "PodGroup": "reference_scheduler.model", "Resources": "reference_scheduler.model",
}

__all__ = ["DEFAULT_SCHEDULER_NAME", "FEATURES", "READY_LINE", "parse_feature_gates", "quantity", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
