"""Status: how a plugin tells the framework what happened.

The codes and their order are upstream's (``pkg/scheduler/framework/interface.go``); each
code's docstring says what the framework does with a pod or group that gets it.
"""

from __future__ import annotations

import dataclasses
import enum


class Code(enum.IntEnum):
    """The outcome of one plugin call, in upstream's order."""

    #: The plugin ran and the pod (or group) may go on.
    SUCCESS = 0
    #: An internal error; the attempt is abandoned and the pod goes to backoff.
    ERROR = 1
    #: Does not fit now; preemption may help; the pod waits for a relevant cluster event.
    UNSCHEDULABLE = 2
    #: Does not fit and preemption cannot help; the pod waits for a relevant cluster event.
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    #: Permit only: hold the pod in the waiting map until allowed, rejected or timed out.
    WAIT = 4
    #: The plugin has nothing to say for this pod (PreFilter: skip its Filter; Bind: let the next binder).
    SKIP = 5
    #: Not scheduled yet for reasons outside the pod (e.g. waiting for another pod); no backoff penalty.
    PENDING = 6

    @property
    def label(self) -> str:
        return "".join(part.capitalize() for part in self.name.split("_"))


@dataclasses.dataclass(frozen=True)
class Status:
    """A plugin's verdict: a code, the reasons (joined for messages), the plugin, an optional error."""

    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""
    error: str | None = None

    @classmethod
    def success(cls) -> Status:
        return _SUCCESS

    @classmethod
    def of(cls, code: Code, *reasons: str, plugin: str = "") -> Status:
        return cls(code=code, reasons=tuple(reasons), plugin=plugin)

    @classmethod
    def as_error(cls, error: str, *, plugin: str = "") -> Status:
        return cls(code=Code.ERROR, reasons=(error,), plugin=plugin, error=error)

    def with_plugin(self, plugin: str) -> Status:
        return dataclasses.replace(self, plugin=plugin)

    def with_error(self, error: str) -> Status:
        """The same verdict wrapped around ``error`` (upstream's ``WithError``): the error comes
        first in :meth:`message` and is what :meth:`as_error_text` gives."""
        return dataclasses.replace(self, error=error)

    def as_error_text(self) -> str:
        """Upstream's ``AsError().Error()``: the wrapped error if there is one, else the message."""
        return self.error if self.error is not None else self.message()

    @property
    def ok(self) -> bool:
        return self.code is Code.SUCCESS

    @property
    def rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending: the pod does not go on."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def message(self) -> str:
        """The reasons as upstream renders them: an error first, then every reason, joined by ", "."""
        parts = list(self.reasons)
        if self.error is not None and (not parts or parts[0] != self.error):
            parts.insert(0, self.error)
        return ", ".join(parts)

    def __str__(self) -> str:
        where = f" at {self.plugin}" if self.plugin else ""
        return f"{self.code.label}{where}: {self.message()}" if self.reasons else f"{self.code.label}{where}"


_SUCCESS = Status()


def _counted(reasons) -> str:
    """Reasons as upstream's histogram renders them: ``<count> <reason>``, sorted, joined by ", "."""
    histogram: dict[str, int] = {}
    for reason in reasons:
        histogram[reason] = histogram.get(reason, 0) + 1
    return ", ".join(sorted(f"{count} {reason}" for reason, count in histogram.items()))


def fit_error(total_nodes: int, statuses: dict[str, Status], pre_filter_msg: str = "") -> str:
    """Upstream's FitError text: ``0/N nodes are available: <count reason>, ... .``, or with the
    message of a PreFilter refusal in place of the histogram."""
    if pre_filter_msg:
        return f"0/{total_nodes} nodes are available: {pre_filter_msg}."
    reasons = _counted(reason for status in statuses.values() for reason in status.reasons)
    return f"0/{total_nodes} nodes are available" + (f": {reasons}." if reasons else ":")


def preemption_error(total_nodes: int, reasons: dict[str, str]) -> str:
    """What a failed preemption of a pod adds to its FitError: why each node was no candidate."""
    return f"preemption: 0/{total_nodes} nodes are available: {_counted(reasons.values())}."
