"""The scheduling framework: statuses, extension points, the plugin registry."""

from reference_scheduler.framework.interface import EXTENSION_POINTS
from reference_scheduler.framework.registry import PluginValidationError, Registry
from reference_scheduler.framework.status import Code, Status

__all__ = ["Code", "EXTENSION_POINTS", "PluginValidationError", "Registry", "Status"]
