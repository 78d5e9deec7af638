"""The plugin registry and profiles: validation at registration, not at call time.

Mirrors pkg/scheduler/framework/runtime/registry.go (a name -> factory map) and the profile
checks upstream makes when it builds a framework (framework/runtime/framework.go ``NewFramework``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from reference_scheduler.framework.interface import EXTENSION_POINTS, missing_methods

#: ``factory(args, handle, features)``: a plugin instance (upstream's PluginFactory).
Factory = Callable[[dict[str, Any], Any, Any], Any]


class PluginValidationError(ValueError):
    """A plugin cannot be registered or enabled as asked; the message names plugin, point and method."""


class Registry:
    """Plugin name -> factory. A name can be registered once."""

    def __init__(self) -> None:
        self._factories: dict[str, Factory] = {}

    def register(self, name: str, factory: Factory) -> None:
        if name in self._factories:
            raise PluginValidationError(f"a plugin named {name} already exists")
        self._factories[name] = factory

    def unregister(self, name: str) -> Factory:
        """Remove ``name`` (to register another plugin under it); returns its factory."""
        if name not in self._factories:
            raise PluginValidationError(f"no plugin named {name} is registered")
        return self._factories.pop(name)

    def __contains__(self, name: str) -> bool:
        return name in self._factories

    def names(self) -> list[str]:
        return sorted(self._factories)

    def build_profile(self, scheduler_name: str, config: ProfileConfig, *, handle: Any = None,
                      features: Any = None) -> Profile:
        """Instantiate the plugins of a profile, once each, and check each against its points."""
        enabled, args, weights = config.plugins, config.args, config.weights
        unknown_points = sorted(set(enabled) - set(EXTENSION_POINTS))
        if unknown_points:
            raise PluginValidationError(f"profile {scheduler_name}: unknown extension points {unknown_points}")
        if len(enabled.get("QueueSort", [])) > 1:
            raise PluginValidationError(f"profile {scheduler_name}: only one QueueSort plugin may be enabled, "
                                        f"got {enabled['QueueSort']}")
        instances: dict[str, Any] = {}
        points: dict[str, tuple[Any, ...]] = {}
        for point, names in enabled.items():
            plugins = []
            for name in names:
                if name not in self._factories:
                    raise PluginValidationError(f"profile {scheduler_name}: plugin {name} (at {point}) is not registered")
                if name not in instances:
                    instances[name] = self._factories[name](args.get(name, {}), handle, features)
                plugin = instances[name]
                lacking = missing_methods(plugin, point)
                if lacking:
                    raise PluginValidationError(
                        f"profile {scheduler_name}: plugin {name} is enabled at {point} but does not implement "
                        f"{', '.join(lacking)}"
                    )
                plugins.append(plugin)
            points[point] = tuple(plugins)
        return Profile(scheduler_name=scheduler_name, plugins=instances, points=points,
                       weights={name: weights.get(name, 1) for name in instances})


@dataclasses.dataclass(frozen=True)
class ProfileConfig:
    """What a profile enables (upstream's KubeSchedulerProfile): plugin names per extension point in
    the order they run, each plugin's arguments, and the Score and PlacementScore weights (1 when not given)."""

    plugins: dict[str, list[str]]
    args: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    weights: dict[str, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Profile:
    """One scheduler profile: its name, the plugins at each extension point in order, their weights."""

    scheduler_name: str
    plugins: dict[str, Any]
    points: dict[str, tuple[Any, ...]]
    weights: dict[str, int] = dataclasses.field(default_factory=dict)

    def at(self, point: str) -> tuple[Any, ...]:
        return self.points.get(point, ())
