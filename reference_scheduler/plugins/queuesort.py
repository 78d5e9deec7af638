"""PrioritySort: the queue order, higher priority first, then the earlier queue timestamp.

Mirrors pkg/scheduler/framework/plugins/queuesort.
"""

from __future__ import annotations

from typing import Any


class PrioritySort:
    """QueueSort: higher priority first, then the earlier queue timestamp."""

    name = NAME = "PrioritySort"

    def less(self, a: Any, b: Any) -> bool:
        if a.priority != b.priority:
            return a.priority > b.priority
        return a.timestamp < b.timestamp

    @staticmethod
    def sort_key(entry: Any) -> tuple:
        """The order of :meth:`less` as a sort key (the queue sorts with it when a plugin has one)."""
        return -entry.priority, entry.timestamp
