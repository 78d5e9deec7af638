"""The legal configurations of kube-scheduler v1.37.2 that must not change any gang verdict.

``tests/test_legal_variants.py`` runs the beta profile's checks that schedule pods under every
variant below and requires each to pass; the README's list of variants the suite is known to
pass is generated from this matrix (``python tests/legal_variants.py`` prints it) and a test keeps
the two the same.

A variant that lives in one profile of a KubeSchedulerConfiguration (scoring strategy, plugin
weights, ``percentageOfNodesToScore``) is one more profile of :data:`PROFILES`' scheduler: one
cluster serves them all, and the checks run once per profile (``--scheduler-name``). A global
setting (``parallelism``, backoff, leader election) needs a scheduler, and so a run, of its own.
Every run goes side by side with the others, with a process spinning on the CPU beside them:
each variant is judged under CPU load.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

SCHEDULER_CONFIG_API = "kubescheduler.config.k8s.io/v1"
DEFAULT_PROFILE = "default-scheduler"
#: The profile the consistency check (GANG-SCHEDNAME-001) names beside the one under test.
SECOND_PROFILE = "gangconf-second"
RESOURCES = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


@dataclasses.dataclass(frozen=True)
class Variant:
    """One legal configuration: its name, what it changes (for the README), and the run it is in."""

    name: str
    title: str
    #: The scheduler profile whose ``schedulerName`` the checks' pods carry.
    profile: str
    run: str


@dataclasses.dataclass(frozen=True)
class Run:
    """One cluster: its kube-scheduler's configuration and the variants (profiles) checked on it."""

    name: str
    config: dict[str, Any]
    variants: tuple[Variant, ...]
    #: Checks side by side in this run (pytest-xdist workers).
    workers: int
    #: Patterns the run's kube-scheduler log must show: that the configuration was in effect.
    evidence: tuple[str, ...] = ()

    @property
    def profiles(self) -> list[str]:
        return [v.profile for v in self.variants]


def config_line(line: str) -> str:
    """A line of the effective configuration kube-scheduler logs at start (any indent, maybe a list item)."""
    return rf"(?m)^\s*(- )?{re.escape(line)}$"


def log_text(text: str) -> str:
    return re.escape(text)


def _profile(name: str, **fields: Any) -> dict[str, Any]:
    return {"schedulerName": name, **fields}


def _fit(strategy: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": "NodeResourcesFit", "args": {"scoringStrategy": strategy}}]


def _config(profiles: list[dict[str, Any]], **settings: Any) -> dict[str, Any]:
    return {"apiVersion": SCHEDULER_CONFIG_API, "kind": "KubeSchedulerConfiguration", **settings,
            "profiles": [_profile(DEFAULT_PROFILE), _profile(SECOND_PROFILE), *profiles]}


#: The per-profile variants, each a profile of one scheduler beside the default profile.
PROFILES = Run("profiles", _config([
    _profile("gangconf-most-allocated", percentageOfNodesToScore=1,
             pluginConfig=_fit({"type": "MostAllocated", "resources": RESOURCES})),
    _profile("gangconf-requested-to-capacity-ratio", percentageOfNodesToScore=100,
             pluginConfig=_fit({"type": "RequestedToCapacityRatio", "resources": RESOURCES,
                                "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                                                       {"utilization": 100, "score": 10}]}})),
    _profile("gangconf-score-weights", plugins={"score": {
        "enabled": [{"name": "NodeResourcesFit", "weight": 5}, {"name": "NodeResourcesBalancedAllocation", "weight": 3}],
        "disabled": [{"name": "ImageLocality"}]}}),
]), (
    Variant("default-profile-beside-extra-profiles",
            "the default profile (`default-scheduler`, every default) of a scheduler with four more profiles",
            DEFAULT_PROFILE, "profiles"),
    Variant("most-allocated", "NodeResourcesFit scoring `MostAllocated` (cpu and memory), with "
            "`percentageOfNodesToScore: 1`", "gangconf-most-allocated", "profiles"),
    Variant("requested-to-capacity-ratio", "NodeResourcesFit scoring `RequestedToCapacityRatio` (bin packing: "
            "score 0 at 0% to 10 at 100%), with `percentageOfNodesToScore: 100`",
            "gangconf-requested-to-capacity-ratio", "profiles"),
    Variant("score-weights", "other score plugin weights: NodeResourcesFit 5, NodeResourcesBalancedAllocation 3, "
            "ImageLocality off", "gangconf-score-weights", "profiles"),
), workers=8, evidence=(config_line("type: MostAllocated"), config_line("percentageOfNodesToScore: 1"),
                        config_line("type: RequestedToCapacityRatio"), config_line("percentageOfNodesToScore: 100"),
                        log_text('{"Name":"NodeResourcesFit","Weight":5}'),
                        log_text('{"Name":"NodeResourcesBalancedAllocation","Weight":3}')))

RUNS: tuple[Run, ...] = (
    PROFILES,
    Run("parallelism-1", _config([], parallelism=1, podInitialBackoffSeconds=2, podMaxBackoffSeconds=20), (
        Variant("parallelism-1", "`parallelism: 1`, with a longer backoff (`podInitialBackoffSeconds: 2`, "
                "`podMaxBackoffSeconds: 20`; the checks' waits for retries follow it)", DEFAULT_PROFILE,
                "parallelism-1"),), workers=2,
        evidence=(config_line("parallelism: 1"), config_line("podInitialBackoffSeconds: 2"),
                  config_line("podMaxBackoffSeconds: 20"))),
    Run("leader-election", _config([], leaderElection={"leaderElect": True}), (
        Variant("leader-election", "leader election on (`leaderElection.leaderElect: true`, a Lease in kube-system)",
                DEFAULT_PROFILE, "leader-election"),), workers=2,
        evidence=(config_line("leaderElect: true"), log_text('"Successfully acquired lease" lock="kube-system/kube-scheduler"'))),
)

VARIANTS: tuple[Variant, ...] = tuple(v for run in RUNS for v in run.variants)

README_BEGIN = "<!-- legal variants: generated by `python tests/legal_variants.py`; do not edit -->"
README_END = "<!-- end of legal variants -->"


def readme_block() -> str:
    """The README's list of the legal variants the suite is known to pass, between its markers."""
    lines = [README_BEGIN, "", "| variant | kube-scheduler v1.37.2 configuration | run (one cluster each) |",
             "|---|---|---|"]
    for variant in VARIANTS:
        lines.append(f"| `{variant.name}` | {variant.title} | `{variant.run}` (profile `{variant.profile}`) |")
    lines += ["", README_END]
    return "\n".join(lines)


if __name__ == "__main__":
    print(readme_block())
