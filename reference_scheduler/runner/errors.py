"""One line of text for an error of the Kubernetes client, for the runner's log.

Plays the part of klog's one-line errors (no upstream file of its own).
"""

from __future__ import annotations

import json

from kubernetes.client.rest import ApiException


def one_line(exc: BaseException) -> str:
    """``<status> <message>`` of an API refusal, else the exception's type and text; at most 300 characters."""
    if isinstance(exc, ApiException):
        try:
            return f"{exc.status} {json.loads(exc.body).get('message', '')}"[:300]
        except (TypeError, ValueError):
            return f"{exc.status} {exc.reason}"
    return f"{type(exc).__name__}: {exc}"[:300]
