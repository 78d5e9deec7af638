"""GangconfFaultReserve: the fault profile's Reserve failures, the same as gangconf's kube-scheduler plugin.

Not an upstream plugin: gangconf's test-only fault hook, the same as controlplane/faultreserve.go
(its kube-scheduler counterpart). Enabled only when the runner is given ``--fault-reserve-label KEY``. A pod labelled ``KEY`` fails
Reserve as its value says:

``once``
    its first hand-over Reserve (before Permit and binding) fails; every later Reserve passes;
``always``
    every hand-over Reserve fails; the trial Reserve of the pod-group algorithm passes until
    the first hand-over failure and fails from then on.

Any other value is an Error naming the two. The pod's labels are read at each call, so a removed
label lifts the fault; failures are remembered per pod UID.
"""

from __future__ import annotations

import re
from typing import Any

from reference_scheduler.framework import Code, Status
from reference_scheduler.framework.cycle_state import CycleState
from reference_scheduler.model import Pod

NAME = "GangconfFaultReserve"
ONCE, ALWAYS = "once", "always"

_LABEL_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def check_label_key(key: str) -> str:
    """Return ``key`` if it is a label key as the API server accepts one (``[prefix/]name``).

    Raises ValueError naming what is wrong, in one line.
    """
    prefix, sep, name = key.rpartition("/")
    if sep and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
        raise ValueError(f"{key!r} is not a label key: its prefix {prefix!r} must be a DNS subdomain "
                         "(lower-case letters, digits, '-' and '.')")
    if not name or len(name) > 63 or not _LABEL_NAME.match(name):
        raise ValueError(f"{key!r} is not a label key: the name must be 1-63 letters, digits, '-', '_' "
                         "or '.', starting and ending with a letter or digit")
    return key


def injected(key: str, mode: str) -> str:
    """The reason a failed Reserve gives (the text the kube-scheduler plugin gives, too)."""
    return f"{key}={mode}: Reserve failed (injected)"


class FaultReserve:
    name = NAME

    def __init__(self, label: str):
        self.label = check_label_key(label)
        #: Pod UID (or key, for a pod without one) -> hand-over Reserves this plugin failed.
        self.failures: dict[str, int] = {}

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        mode = pod.label(self.label)
        if not mode:
            return Status.success()
        if mode not in (ONCE, ALWAYS):
            return Status.as_error(f"pod {pod.key}: label {self.label}={mode!r}: the fault is {ONCE!r} or "
                                   f"{ALWAYS!r}", plugin=NAME)
        who = pod.uid or pod.key
        failed = self.failures.get(who, 0)
        trial = state.pod_group_cycle
        if mode == ONCE:
            fail = not trial and failed == 0
        else:
            fail = failed > 0 if trial else True
        if not fail:
            return Status.success()
        if not trial:
            self.failures[who] = failed + 1
        return Status.of(Code.UNSCHEDULABLE, injected(self.label, mode), plugin=NAME)

    def unreserve(self, state: Any, pod: Pod, node_name: str) -> None:
        """Nothing to undo: Reserve claims nothing. The failure count is what the modes are about."""
