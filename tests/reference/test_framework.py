"""The reference scheduler's framework: statuses, protocols, the registry, the clock."""

from __future__ import annotations

import pytest

from reference_scheduler import SimClock
from reference_scheduler.framework import EXTENSION_POINTS, Code, PluginValidationError, Registry, Status
from reference_scheduler.framework.registry import ProfileConfig
from reference_scheduler.framework.interface import missing_methods


def test_codes_are_upstreams_in_upstreams_order():
    assert [c.label for c in Code] == [
        "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"]


def test_status_message_puts_the_error_first_and_joins_reasons_with_a_comma():
    status = Status(Code.ERROR, ("node n1 is gone", "retry later"), "X", error="snapshot failed")
    assert status.message() == "snapshot failed, node n1 is gone, retry later"
    assert Status.of(Code.UNSCHEDULABLE, "a", "b").message() == "a, b"
    assert Status.success().ok and not Status.of(Code.WAIT).ok
    assert Status.of(Code.PENDING).rejected and not Status.of(Code.SKIP).rejected


class FilterOnly:
    name = "FilterOnly"

    def filter(self, state, pod, node):
        return Status.success()


class ReserveWithoutUnreserve:
    name = "Half"

    def reserve(self, state, pod, node_name):
        return Status.success()


def test_registry_refuses_a_duplicate_name():
    registry = Registry()
    registry.register("FilterOnly", lambda args, handle, features: FilterOnly())
    with pytest.raises(PluginValidationError, match="a plugin named FilterOnly already exists"):
        registry.register("FilterOnly", lambda args, handle, features: FilterOnly())


def test_profile_checks_each_plugin_against_the_points_it_is_enabled_at():
    registry = Registry()
    registry.register("FilterOnly", lambda args, handle, features: FilterOnly())
    registry.register("Half", lambda args, handle, features: ReserveWithoutUnreserve())
    profile = registry.build_profile("default-scheduler", ProfileConfig({"Filter": ["FilterOnly"]}))
    assert [p.name for p in profile.at("Filter")] == ["FilterOnly"]
    with pytest.raises(PluginValidationError, match="plugin FilterOnly is enabled at Score but does not implement score"):
        registry.build_profile("p", ProfileConfig({"Score": ["FilterOnly"]}))
    with pytest.raises(PluginValidationError, match="plugin Half is enabled at Reserve but does not implement unreserve"):
        registry.build_profile("p", ProfileConfig({"Reserve": ["Half"]}))
    with pytest.raises(PluginValidationError, match="is not registered"):
        registry.build_profile("p", ProfileConfig({"Filter": ["Nope"]}))
    with pytest.raises(PluginValidationError, match="unknown extension points"):
        registry.build_profile("p", ProfileConfig({"Filtre": ["FilterOnly"]}))


def test_every_extension_point_names_at_least_one_method():
    for point in EXTENSION_POINTS:
        assert missing_methods(object(), point), point


def test_sim_clock_fires_due_timers_in_order_with_ties_in_insertion_order():
    clock = SimClock()
    fired: list[str] = []
    clock.call_later(300, lambda: fired.append("permit-timeout"))
    clock.call_later(1, lambda: fired.append("backoff-a"))
    clock.call_later(1, lambda: fired.append("backoff-b"))
    cancelled = clock.call_later(2, lambda: fired.append("cancelled"))
    cancelled.cancel()
    assert clock.advance(10) == 2 and fired == ["backoff-a", "backoff-b"]
    assert clock.now() == 10
    clock.advance(290)
    assert fired[-1] == "permit-timeout" and clock.now() == 300 and clock.pending == 0
    with pytest.raises(ValueError):
        clock.advance(-1)
