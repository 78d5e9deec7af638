"""Pods held at Permit.

Mirrors pkg/scheduler/framework/runtime/waiting_pods_map.go.
"""

from __future__ import annotations


def permit_timeout_message(timeout: float, plugin: str) -> str:
    """Upstream's rejection of a pod whose Permit wait timed out; the wait is written as Go prints a Duration."""
    minutes, seconds = divmod(timeout, 60)
    hours, minutes = divmod(int(minutes), 60)
    text = f"{seconds:g}s"
    if minutes or hours:
        text = f"{minutes}m{text}"
    if hours:
        text = f"{hours}h{text}"
    return f"rejected due to timeout after waiting {text} at plugin {plugin}"
