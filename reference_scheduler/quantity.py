"""Kubernetes resource quantities as integers: CPU in millicores, everything else in units.

Mirrors the parsing of k8s.io/apimachinery/pkg/api/resource (quantity.go), as far as requests
and allocatable amounts need it.
"""

from __future__ import annotations

import re
from decimal import Decimal

_SUFFIX = {
    "": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
    "m": Decimal("0.001"), "u": Decimal("0.000001"), "n": Decimal("0.000000001"),
}
_QUANTITY = re.compile(r"^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|[kMGTPEmun]?)$")


def parse(value: str | int | float) -> Decimal:
    """The value of a quantity string (``"100m"`` is 0.1, ``"2Gi"`` is 2147483648)."""
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    match = _QUANTITY.match(str(value).strip())
    if not match:
        raise ValueError(f"{value!r} is not a Kubernetes quantity")
    return Decimal(match[1]) * Decimal(_SUFFIX[match[2]])


def milli(value: str | int | float) -> int:
    """A quantity in thousandths, rounded up (how the scheduler counts CPU)."""
    return int((parse(value) * 1000).to_integral_value(rounding="ROUND_CEILING"))


def units(value: str | int | float) -> int:
    """A quantity in whole units, rounded up (memory in bytes, pods, extended resources)."""
    return int(parse(value).to_integral_value(rounding="ROUND_CEILING"))
