"""The scheduling framework: statuses, cycle state, extension points, handle, registry, runtime, waiting pods.

Mirrors pkg/scheduler/framework and the staged k8s.io/kube-scheduler/framework.
"""

from reference_scheduler.framework.interface import EXTENSION_POINTS
from reference_scheduler.framework.registry import PluginValidationError, Registry
from reference_scheduler.framework.status import Code, Status

__all__ = ["Code", "EXTENSION_POINTS", "PluginValidationError", "Registry", "Status"]
