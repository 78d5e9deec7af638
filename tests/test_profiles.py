"""Profiles in kind-configs/: parsing, validation, and the flags each component gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.errors import ProfileError
from fixtures.profiles import PROFILE_DIR, Profile

ALL_PROFILES = sorted(PROFILE_DIR.glob("*.yaml"))


@pytest.mark.parametrize("path", ALL_PROFILES, ids=lambda p: p.stem)
def test_every_shipped_profile_parses_and_gives_every_component_the_same_gates(path: Path):
    profile = Profile.load(path)
    flags = profile.component_flags()
    gate_flags = {name: [f for f in fl if f.startswith("--feature-gates=")] for name, fl in flags.items()}
    assert len({tuple(v) for v in gate_flags.values()}) == 1, gate_flags
    assert all(not f.startswith("--runtime-config") for f in flags["kube-scheduler"] + flags["kube-controller-manager"])


def test_beta_profile_switches_on_both_the_gate_and_the_api():
    profile = Profile.resolve("gang-beta")
    assert profile.feature_gates_flag() == "GenericWorkload=true"
    assert profile.runtime_config_flag() == "scheduling.k8s.io/v1beta1=true"
    assert profile.expects_gang_api
    assert profile.component_flags()["kube-apiserver"] == [
        "--feature-gates=GenericWorkload=true", "--runtime-config=scheduling.k8s.io/v1beta1=true"]


@pytest.mark.parametrize("name", ["gate-without-api", "api-without-gate"])
def test_negative_profiles_miss_one_switch_each(name: str):
    profile = Profile.resolve(name)
    assert not profile.expects_gang_api
    assert profile.gate("GenericWorkload") != profile.serves("scheduling.k8s.io/v1beta1")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "profile.yaml"
    path.write_text(text)
    return path


HEADER = "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kind: Cluster\n  apiVersion: [\n", r"profile\.yaml:\d+:\d+ is not valid YAML"),
        ("kind: Pod\napiVersion: v1\n", "must be a kind Cluster document"),
        ("- a\n- b\n", "must be a kind Cluster mapping"),
        (HEADER + "featureGates:\n  GenericWorkload: yes-please\n", "must be true or false"),
        (HEADER + "featureGates:\n  generic_workload: true\n", "is not a feature gate name"),
        (HEADER + "runtimeConfig:\n  scheduling.k8s.io/v1beta1: maybe\n", 'must be "true" or "false"'),
        (HEADER + "featureGates: [GenericWorkload]\n", "featureGates must be a mapping"),
    ],
    ids=["bad-yaml", "wrong-kind", "not-a-mapping", "gate-value", "gate-name", "runtime-value", "gates-list"],
)
def test_malformed_profile_gives_one_line_naming_the_problem(tmp_path: Path, text: str, message: str):
    with pytest.raises(ProfileError, match=message) as info:
        Profile.load(_write(tmp_path, text))
    assert "\n" not in str(info.value)


def test_unknown_profile_name_lists_the_known_ones():
    with pytest.raises(ProfileError, match="gang-beta"):
        Profile.resolve("no-such-profile")


def test_runtime_config_accepts_yaml_booleans(tmp_path: Path):
    profile = Profile.load(_write(tmp_path, HEADER + "runtimeConfig:\n  scheduling.k8s.io/v1beta1: true\n"))
    assert profile.runtime_config_flag() == "scheduling.k8s.io/v1beta1=true"


def test_a_profile_names_its_release_through_its_node_images():
    old = Profile.resolve("gang-alpha-1.36")
    assert old.k8s_version == "v1.36.3" and old.gang_api_version == "v1alpha2"
    assert Profile.resolve("gang-beta").k8s_version is None and Profile.resolve("gang-beta").gang_api_version == "v1beta1"
    assert Profile.resolve("upgrade").name == "gang-upgrade"  # the short name of the upgrade profile


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        ("nodes:\n  - role: control-plane\n    image: kindest/node:latest\n", "does not name a release"),
        ("nodes:\n  - role: control-plane\n    image: kindest/node:v1.36.3\n  - role: worker\n"
         "    image: kindest/node:v1.37.2\n", "nodes name different releases \\(v1.36.3, v1.37.2\\)"),
    ],
    ids=["no-release", "two-releases"],
)
def test_node_images_that_do_not_name_one_release_are_refused(tmp_path: Path, nodes: str, message: str):
    with pytest.raises(ProfileError, match=message) as info:
        Profile.load(_write(tmp_path, HEADER + nodes))
    assert "\n" not in str(info.value)
