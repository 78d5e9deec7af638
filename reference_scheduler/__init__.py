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

from reference_scheduler import quantity
from reference_scheduler.clock import Clock, SimClock
from reference_scheduler.features import FEATURES, parse_feature_gates
from reference_scheduler.framework.status import Code, Status
from reference_scheduler.model import CompositePodGroup, Node, Pod, PodGroup, Resources
from reference_scheduler.runner import DEFAULT_SCHEDULER_NAME, READY_LINE
from reference_scheduler.runner.informer import ListWatch
from reference_scheduler.scheduler import Scheduler

__all__ = [
    "Clock", "Code", "CompositePodGroup", "DEFAULT_SCHEDULER_NAME", "FEATURES", "ListWatch", "Node", "Pod", "PodGroup",
    "READY_LINE", "Resources", "Scheduler", "SimClock", "Status", "parse_feature_gates", "quantity",
]
