"""The fault profile: its profile file, the scheduler configuration the local provider writes, the plugin's contract."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fixtures import faults
from fixtures.providers.local.binaries import Binaries
from fixtures.errors import ProfileError
from fixtures.profiles import Profile
from fixtures.providers.local import LocalControlPlane
from reference_scheduler.plugins import fault as reference_fault

REPO = Path(__file__).resolve().parent.parent
GO_PLUGIN = REPO / "controlplane" / "faultplugin" / "faultplugin.go"


def _reserve(doc: dict, profile: int = 0) -> list[str]:
    return [p["name"] for p in doc["profiles"][profile]["plugins"]["reserve"]["enabled"]]


# -- the profile -------------------------------------------------------------------------------


def test_fault_profile_is_the_beta_profile_under_the_fault_tier():
    fault, beta = Profile.resolve("gang-fault"), Profile.resolve("gang-beta")
    assert (fault.tier, fault.injects_faults) == ("fault", True)
    assert (beta.tier, beta.injects_faults) == ("beta", False)
    assert fault.component_flags() == beta.component_flags()
    assert not Profile.resolve("gang-alpha").injects_faults


def test_fault_profile_is_a_plain_kind_document():
    # kind refuses unknown fields: the profile must not carry gangconf's own keys.
    doc = yaml.safe_load(Profile.resolve("gang-fault").path.read_text())
    assert set(doc) <= {"kind", "apiVersion", "name", "featureGates", "runtimeConfig", "nodes"}, sorted(doc)


# -- the scheduler configuration -----------------------------------------------------------------


def test_without_a_base_the_config_is_the_default_profile_plus_the_plugin():
    doc = faults.scheduler_config()
    assert doc["apiVersion"] == "kubescheduler.config.k8s.io/v1" and doc["kind"] == "KubeSchedulerConfiguration"
    assert [p["schedulerName"] for p in doc["profiles"]] == ["default-scheduler"]
    assert doc["profiles"][0]["plugins"] == {"reserve": {"enabled": [{"name": faults.PLUGIN}]}}


def test_a_users_config_keeps_its_plugins_and_every_profile_gets_the_fault_plugin():
    base = {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "percentageOfNodesToScore": 50,
        "profiles": [
            {"schedulerName": "default-scheduler",
             "plugins": {"reserve": {"enabled": [{"name": "Mine"}]}, "score": {"disabled": [{"name": "*"}]}},
             "pluginConfig": [{"name": "Mine", "args": {"x": 1}}]},
            {"schedulerName": "second"},
        ],
    }
    doc = faults.scheduler_config(base)
    assert _reserve(doc, 0) == ["Mine", faults.PLUGIN] and _reserve(doc, 1) == [faults.PLUGIN]
    assert doc["profiles"][0]["plugins"]["score"] == {"disabled": [{"name": "*"}]}
    assert doc["profiles"][0]["pluginConfig"] == [{"name": "Mine", "args": {"x": 1}}]
    assert doc["percentageOfNodesToScore"] == 50
    assert "reserve" not in base["profiles"][1].get("plugins", {}), "the user's document was changed"
    assert faults.scheduler_config(doc) == doc, "enabling twice must not list the plugin twice"


@pytest.mark.parametrize(("base", "message"), [
    ({"kind": "Pod", "apiVersion": "v1"}, "is not a KubeSchedulerConfiguration document"),
    ({"kind": "KubeSchedulerConfiguration", "apiVersion": "kubescheduler.config.k8s.io/v1beta3"},
     "needs kubescheduler.config.k8s.io/v1"),
    ({"kind": "KubeSchedulerConfiguration", "apiVersion": "kubescheduler.config.k8s.io/v1", "profiles": {"a": 1}},
     "profiles must be a list of mappings"),
    ({"kind": "KubeSchedulerConfiguration", "apiVersion": "kubescheduler.config.k8s.io/v1",
      "profiles": [{"plugins": {"reserve": {"disabled": [{"name": faults.PLUGIN}]}}}]},
     f"disables {faults.PLUGIN}"),
], ids=["not-a-scheduler-config", "old-api-version", "profiles-not-a-list", "plugin-disabled"])
def test_a_config_the_fault_plugin_cannot_be_added_to_is_one_line(base: dict, message: str):
    with pytest.raises(ProfileError, match=re.escape(message)) as info:
        faults.scheduler_config(base, source="scheduler config x.yaml")
    assert "\n" not in str(info.value) and "x.yaml" in str(info.value)


def _plane(tmp_path: Path, profile: str, **kwargs) -> LocalControlPlane:
    fake = Binaries("v1.37.2", *(tmp_path / n for n in ("a", "b", "c", "d", "e", "f")))
    plane = LocalControlPlane(fake, Profile.resolve(profile), tmp_path / "run", **kwargs)
    plane.secrets = tmp_path / "secrets"
    plane.secrets.mkdir(parents=True)
    plane.kubeconfig = tmp_path / "kubeconfig"
    return plane


def test_local_provider_enables_the_plugin_for_the_fault_profile_only(tmp_path: Path):
    plane = _plane(tmp_path, "gang-fault")
    assert plane.fault_injection
    written = yaml.safe_load(plane._scheduler_config_file().read_text())
    assert _reserve(written) == [faults.PLUGIN]
    assert written["clientConnection"]["kubeconfig"] == str(tmp_path / "kubeconfig")
    assert written["leaderElection"]["leaderElect"] is False
    assert (plane.secrets / "kube-scheduler-config.yaml").stat().st_mode & 0o077 == 0
    assert not _plane(tmp_path / "beta", "gang-beta").fault_injection


def test_local_provider_adds_the_plugin_to_the_users_config(tmp_path: Path):
    config = tmp_path / "mine.yaml"
    config.write_text(yaml.safe_dump({"apiVersion": "kubescheduler.config.k8s.io/v1",
                                      "kind": "KubeSchedulerConfiguration",
                                      "profiles": [{"schedulerName": "default-scheduler",
                                                    "plugins": {"reserve": {"enabled": [{"name": "Mine"}]}}}]}))
    written = yaml.safe_load(_plane(tmp_path, "gang-fault", scheduler_config=config)._scheduler_config_file().read_text())
    assert _reserve(written) == ["Mine", faults.PLUGIN]


def test_a_forks_scheduler_binary_runs_the_fault_profile_too(tmp_path: Path):
    assert _plane(tmp_path, "gang-fault", scheduler_binary=tmp_path / "fork").fault_injection  # once probed


# -- the probe of a fork's binary (real kube-scheduler, nothing started) -------------------------


def _fault_config(tmp_path: Path, plugin: str = faults.PLUGIN) -> Path:
    """The fault profile's configuration, naming ``plugin``, with a kubeconfig no server answers."""
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "none",
        "clusters": [{"name": "none", "cluster": {"server": "https://127.0.0.1:1"}}],
        "users": [{"name": "none", "user": {"token": "none"}}],
        "contexts": [{"name": "none", "context": {"cluster": "none", "user": "none"}}]}))
    doc = faults.scheduler_config()
    doc["profiles"][0]["plugins"]["reserve"]["enabled"] = [{"name": plugin}]
    doc["clientConnection"] = {"kubeconfig": str(kubeconfig)}
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(doc))
    return config


def test_the_probe_finds_the_plugin_in_a_kube_scheduler_that_registers_it(tmp_path: Path):
    from fixtures.providers.local import binaries

    faults.probe(binaries.ensure().kube_scheduler, _fault_config(tmp_path), ["--feature-gates=GenericWorkload=true"])


def test_a_kube_scheduler_without_the_plugin_is_refused_in_one_line_that_says_how_to_add_it(tmp_path: Path):
    from fixtures.providers.local import binaries

    # The same real binary, asked for a plugin no build registers: kube-scheduler refuses it as it
    # refuses GangconfFaultReserve in a fork's main that does not register it.
    with pytest.raises(ProfileError, match="does not know the plugin GangconfAbsent") as info:
        faults.probe(binaries.ensure().kube_scheduler, _fault_config(tmp_path, "GangconfAbsent"), plugin="GangconfAbsent")
    assert "\n" not in str(info.value) and "app.WithPlugin(faultplugin.Name, faultplugin.New)" in str(info.value)


def test_a_binary_that_is_no_kube_scheduler_is_refused_with_its_own_words(tmp_path: Path):
    with pytest.raises(ProfileError, match=r"refused the fault profile's configuration \(exit 1\)") as info:
        faults.probe(Path("/bin/false"), _fault_config(tmp_path))
    assert "\n" not in str(info.value)


# -- one contract, two implementations ------------------------------------------------------------


def test_the_go_plugin_and_the_harness_agree_on_name_label_modes_and_message():
    constants = dict(re.findall(r'^\t(\w+)\s*=\s*"([^"]*)"', GO_PLUGIN.read_text(), re.M))
    assert constants == {"Name": faults.PLUGIN, "Label": faults.RESERVE_LABEL,
                         "Once": faults.ONCE, "Always": faults.ALWAYS}, constants
    source = GO_PLUGIN.read_text()
    assert '"%s=%s: Reserve failed (injected)"' in source
    assert (reference_fault.NAME, reference_fault.ONCE, reference_fault.ALWAYS) == (faults.PLUGIN, faults.ONCE,
                                                                                     faults.ALWAYS)
    reason = reference_fault.injected(faults.RESERVE_LABEL, faults.ALWAYS)
    assert faults.reserve_failure(faults.ALWAYS) == f"0/1 nodes are available: 1 {reason}."


def test_plugins_go_registers_the_plugin_as_the_readme_tells_a_fork_to():
    assert "scheduler.WithPlugin(faultplugin.Name, faultplugin.New)" in (REPO / "controlplane" / "plugins.go").read_text()
    readme = (REPO / "README.md").read_text()
    assert '"gangconf.dev/controlplane/faultplugin"' in readme and "app.WithPlugin(faultplugin.Name, faultplugin.New)" in readme


def test_a_mode_that_is_not_once_or_always_is_refused():
    assert faults.reserve_fault("once") == {faults.RESERVE_LABEL: "once"}
    with pytest.raises(ValueError, match="'once' or 'always'"):
        faults.reserve_fault("twice")


# -- the reference scheduler's flag ------------------------------------------------------------------


@pytest.mark.parametrize("key", ["bad key", "-x", "a" * 64, "UPPER.case/x", "/x", "x/", "example.com/"])
def test_runner_refuses_a_bad_fault_label_in_one_line(tmp_path: Path, key: str):
    proc = subprocess.run([sys.executable, "-m", "reference_scheduler", f"--kubeconfig={tmp_path / 'none'}",
                           f"--fault-reserve-label={key}"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reference_scheduler: ") and "is not a label key" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("key", [faults.RESERVE_LABEL, "fault", "a.b-c_d", "example.com/" + "x" * 63])
def test_label_keys_the_api_server_accepts_are_accepted(key: str):
    assert reference_fault.check_label_key(key) == key
