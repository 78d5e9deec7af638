"""kind-configs/ under kind and under the local provider: the same gates on the same components.

No cluster is started here: kind cannot run without a container runtime, so what kind makes of
each profile is derived from the file (:func:`fixtures.profiles.kind_component_flags`) and
compared with what the local provider passes (:meth:`Profile.component_flags`). The kind
provider's refusals (no kind, a kind too old for v1.37 node images, no Docker daemon) are
checked against small stand-in executables.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fixtures.errors import ProfileError
from fixtures.profiles import (PROFILE_DIR, Profile, check_known_gates, known_gates, kind_component_flags,
                               kubeadm_patches)
from fixtures.providers import kind

REPO = Path(__file__).resolve().parent.parent
ALL_PROFILES = sorted(PROFILE_DIR.glob("*.yaml"))
COMPONENTS = ("kube-apiserver", "kube-controller-manager", "kube-scheduler")
#: Gate dependencies of v1.37.2 (the dependency table of pkg/features/kube_features.go).
DEPENDS_ON = {
    "CompositePodGroup": {"GenericWorkload", "TopologyAwareWorkloadScheduling"},
    "TopologyAwareWorkloadScheduling": {"GenericWorkload"},
    "PodGroupPreemptionPolicy": {"GenericWorkload"},
    "WorkloadWithJob": {"GenericWorkload"},
    "DRAWorkloadResourceClaims": {"GenericWorkload", "DynamicResourceAllocation"},
    # v1.36 (gang-alpha-1.36.yaml), from the same table of v1.36.3:
    "GangScheduling": {"GenericWorkload"},
    "WorkloadAwarePreemption": {"GangScheduling"},
}


@pytest.mark.parametrize("path", ALL_PROFILES, ids=lambda p: p.stem)
def test_kind_and_the_local_provider_give_each_component_the_same_flags(path: Path):
    profile = Profile.load(path)
    check_known_gates(profile)
    kubeadm_patches(profile)
    under_kind, local = kind_component_flags(profile), profile.component_flags()
    assert under_kind == local, (under_kind, local)
    for component in COMPONENTS:
        gates = [f for f in local[component] if f.startswith("--feature-gates=")]
        assert gates == ([f"--feature-gates={profile.feature_gates_flag()}"] if profile.feature_gates else []), \
            (component, local[component])
    runtime = [f"--runtime-config={profile.runtime_config_flag()}"] if profile.runtime_config else []
    assert [f for f in local["kube-apiserver"] if f.startswith("--runtime-config=")] == runtime
    assert not any(f.startswith("--runtime-config") for c in COMPONENTS[1:] for f in local[c])


@pytest.mark.parametrize("path", ALL_PROFILES, ids=lambda p: p.stem)
def test_every_profile_is_a_kind_cluster_whose_gates_have_their_dependencies(path: Path):
    doc = yaml.safe_load(path.read_text())
    assert doc["kind"] == "Cluster" and doc["apiVersion"] == "kind.x-k8s.io/v1alpha4"
    assert any(n.get("role") == "control-plane" for n in doc.get("nodes", [])), doc
    on = {g for g, v in (doc.get("featureGates") or {}).items() if v}
    for gate in on:
        assert DEPENDS_ON.get(gate, set()) <= on, f"{path.name}: {gate} needs {DEPENDS_ON[gate] - on}"


def test_alpha_profile_switches_on_every_alpha_piece_and_both_api_versions():
    profile = Profile.resolve("gang-alpha")
    assert profile.feature_gates == {
        "GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": True,
        "PodGroupPreemptionPolicy": True, "WorkloadWithJob": True,
    }
    assert profile.runtime_config == {"scheduling.k8s.io/v1beta1": "true", "scheduling.k8s.io/v1alpha3": "true"}
    assert profile.expects_gang_api
    assert kind_component_flags(profile)["kube-apiserver"] == [
        "--feature-gates=CompositePodGroup=true,GenericWorkload=true,PodGroupPreemptionPolicy=true,"
        "TopologyAwareWorkloadScheduling=true,WorkloadWithJob=true",
        "--runtime-config=scheduling.k8s.io/v1alpha3=true,scheduling.k8s.io/v1beta1=true",
    ]


def test_each_profile_is_checked_against_its_own_release():
    old = Profile.resolve("gang-alpha-1.36")
    check_known_gates(old)  # v1.36.3 still has GangScheduling and WorkloadAwarePreemption
    assert {"GenericWorkload", "GangScheduling", "WorkloadAwarePreemption"} <= known_gates("v1.36.3")
    assert not {"CompositePodGroup", "PodGroupPreemptionPolicy"} & known_gates("v1.36.3")
    with pytest.raises(ProfileError, match="GangScheduling does not exist in v1.37 \\(merged into GenericWorkload"):
        check_known_gates(old, "v1.37.2")
    check_known_gates(old, "v1.99.0")  # no list for that release: its components' refusal is the verdict


def test_known_gates_are_those_of_v1_37():
    gates = known_gates()
    assert {"GenericWorkload", "CompositePodGroup", "TopologyAwareWorkloadScheduling", "PodGroupPreemptionPolicy",
            "WorkloadWithJob", "DRAWorkloadResourceClaims", "AllAlpha", "AllBeta"} <= gates
    assert not {"GangScheduling", "WorkloadAwarePreemption"} & gates  # merged into GenericWorkload


HEADER = "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\n"


def _profile(tmp_path: Path, text: str) -> Profile:
    path = tmp_path / "profile.yaml"
    path.write_text(HEADER + text)
    return Profile.load(path)


@pytest.mark.parametrize(
    ("gates", "message"),
    [
        ("GangScheduling: true", "GangScheduling does not exist in v1.37 \\(merged into GenericWorkload"),
        ("GenericWorkloads: true", "unknown feature gate GenericWorkloads \\(did you mean GenericWorkload"),
        ("NoSuchGate: true", "unknown feature gate NoSuchGate; .*unrecognized feature gate"),
    ],
    ids=["removed", "typo", "unknown"],
)
def test_unknown_gate_is_refused_in_one_line(tmp_path: Path, gates: str, message: str):
    profile = _profile(tmp_path, f"featureGates:\n  {gates}\n")
    with pytest.raises(ProfileError, match=message) as info:
        check_known_gates(profile)
    assert "\n" not in str(info.value)


def _patch(text: str) -> str:
    return "kubeadmConfigPatches:\n  - |\n" + "".join(f"    {line}\n" for line in text.splitlines())


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ("apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n",
         "uses kubeadm.k8s.io/v1beta3, which kubeadm v1.37 refuses; write it as kubeadm.k8s.io/v1beta4"),
        ("kind: ClusterConfiguration\nscheduler:\n  extraArgs:\n    v: \"4\"\n",
         "scheduler.extraArgs must be a list of \\{name, value\\}"),
        ("kind: ClusterConfiguration\napiServer:\n  extraArgs:\n  - name: feature-gates\n    value: GenericWorkload=true\n",
         "sets feature-gates for apiServer; set it with the top-level featureGates"),
        ("kind: ClusterConfiguration\napiServer:\n  extraArgs:\n  - name: runtime-config\n    value: x/v1=true\n",
         "sets runtime-config for apiServer; set it with the top-level runtimeConfig"),
    ],
    ids=["v1beta3", "map-form-extra-args", "gates-in-a-patch", "runtime-config-in-a-patch"],
)
def test_kubeadm_patches_kubeadm_v1_37_refuses_are_refused_in_one_line(tmp_path: Path, patch: str, message: str):
    profile = _profile(tmp_path, "featureGates:\n  GenericWorkload: true\n" + _patch(patch))
    with pytest.raises(ProfileError, match=message) as info:
        kind_component_flags(profile)
    assert "\n" not in str(info.value)


def test_a_v1beta4_patch_with_other_scheduler_flags_is_accepted(tmp_path: Path):
    """What a fault profile may carry: a scheduler flag of its own in the list form."""
    profile = _profile(tmp_path, "featureGates:\n  GenericWorkload: true\nruntimeConfig:\n"
                                 "  scheduling.k8s.io/v1beta1: \"true\"\n" + _patch(
                                     "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nscheduler:\n"
                                     "  extraArgs:\n  - name: v\n    value: \"4\"\n"))
    assert kubeadm_patches(profile)[0]["scheduler"]["extraArgs"] == [{"name": "v", "value": "4"}]
    assert kind_component_flags(profile) == profile.component_flags()


# -- the kind binary and the container runtime ------------------------------------------------


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.parametrize(
    ("output", "version"),
    [("kind v0.17.0 go1.19.2 linux/amd64", (0, 17, 0)), ("kind v0.33.0 go1.25.1 linux/amd64", (0, 33, 0)),
     ("kind version 0.9.0", (0, 9, 0)), ("no version here", None)],
)
def test_kind_version_is_read_from_kind_version(output: str, version):
    assert kind.parse_kind_version(output) == version


def test_pytest_kinds_pinned_kind_is_refused_with_the_fix(tmp_path: Path):
    old = _script(tmp_path / "kind", "echo 'kind v0.17.0 go1.19.2 linux/amd64'\n")
    with pytest.raises(kind.KindUnavailable) as info:
        kind.check_kind_version(old)
    message = str(info.value)
    assert "kind v0.17.0" in message and "too old for v1.37 node images" in message, message
    assert "kubeadm.k8s.io/v1beta3" in message and "install kind v0.33.0 or newer and pass --kind-bin" in message
    assert "\n" not in message


def test_a_new_enough_kind_passes_the_version_check(tmp_path: Path):
    new = _script(tmp_path / "kind", "echo 'kind v0.33.0 go1.25.1 linux/amd64'\n")
    assert kind.check_kind_version(new) == (0, 33, 0)


def test_no_docker_daemon_is_one_line_with_the_fix(tmp_path: Path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _script(bin_dir / "docker", "echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
                                "Is the docker daemon running?' >&2\nexit 1\n")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.delenv("KIND_EXPERIMENTAL_PROVIDER", raising=False)
    with pytest.raises(kind.KindUnavailable, match="needs a running docker daemon and docker info says: "
                                                   "Cannot connect to the Docker daemon") as info:
        kind.check_container_runtime()
    assert "--provider local" in str(info.value) and "\n" not in str(info.value)


def test_no_docker_at_all_is_one_line(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("KIND_EXPERIMENTAL_PROVIDER", raising=False)
    with pytest.raises(kind.KindUnavailable, match="kind needs docker, which is not installed here"):
        kind.check_container_runtime()


def test_no_kind_on_path_names_the_version_to_install(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(kind.KindUnavailable, match="kind is not installed: install kind v0.33.0 or newer"):
        kind.find_kind(None)


def _run_suite(tmp_path: Path, *args: str, path: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--reports-dir={tmp_path / 'r'}",
         "--provider=kind", *args, "suites/test_quorum.py"],
        cwd=REPO, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PATH": path, "TMPDIR": str(tmp_path / "tmp")})


@pytest.mark.parametrize("case", ["old-kind", "no-daemon"])
def test_kind_provider_stops_the_run_in_one_line_and_leaves_nothing(tmp_path: Path, case: str):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "tmp").mkdir()
    version = "v0.17.0" if case == "old-kind" else "v0.33.0"
    kind_bin = _script(bin_dir / "kind", f"echo 'kind {version} go1.25.1 linux/amd64'\n"
                                         f"[ \"$1\" = version ] || touch {tmp_path}/kind-was-asked-to-\"$1\"\n")
    _script(bin_dir / "docker", "echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock.' >&2\nexit 1\n")
    before = set(REPO.iterdir())
    proc = _run_suite(tmp_path, f"--kind-bin={kind_bin}", path=f"{bin_dir}:{os.environ['PATH']}")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 4, out
    assert "Traceback" not in out, out
    lines = [l for l in out.splitlines() if "gangconf:" in l]
    expected = "too old for v1.37 node images" if case == "old-kind" else "needs a running docker daemon"
    assert len(lines) == 1 and expected in lines[0], out
    assert not list(tmp_path.glob("kind-was-asked-to-*")), "kind was asked to create something"
    assert set(REPO.iterdir()) - before <= {REPO / "reports"}, set(REPO.iterdir()) - before  # no .pytest-kind/
    assert not list((tmp_path / "tmp").iterdir())


def test_kind_provider_drives_kind_with_the_profile_and_deletes_what_it_made(tmp_path: Path, monkeypatch):
    """The wiring through pytest-kind's KindCluster, with a stand-in kind that records its calls."""
    calls = tmp_path / "calls"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    kind_bin = _script(bin_dir / "kind", f"""echo "$@" >> {calls}
case "$1" in
  version) echo 'kind v0.33.0 go1.25.1 linux/amd64' ;;
  create) for a in "$@"; do case "$a" in --kubeconfig=*) cfg="${{a#--kubeconfig=}}" ;; esac; done
          printf 'apiVersion: v1\\nkind: Config\\ncurrent-context: k\\nclusters:\\n- name: k\\n  cluster:\\n    server: https://127.0.0.1:1\\ncontexts:\\n- name: k\\n  context:\\n    cluster: k\\n    user: k\\nusers:\\n- name: k\\n  user:\\n    token: t\\n' > "$cfg" ;;
esac
""")
    _script(bin_dir / "docker", "exit 0\n")
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.delenv("KIND_EXPERIMENTAL_PROVIDER", raising=False)
    monkeypatch.chdir(tmp_path)
    # The stand-in's kubeconfig names no server: the priority floor of its (system) pods is a stand-in too.
    monkeypatch.setattr(kind.priorities, "lowest", lambda api: kind.priorities.Priorities(-7, "stand-in"))
    profile = Profile.resolve("gang-alpha")
    cluster, provider = kind.start(profile, run_id="20261202-120000-abcd", kind_bin=str(kind_bin),
                                   image="kindest/node:v1.37.2@sha256:0")
    try:
        assert cluster.provider == "kind" and not cluster.fake_nodes and cluster.kubeconfig.is_file()
        assert (cluster.priority_floor, cluster.priority_floor_source) == (-7, "stand-in")
        assert provider.ready_line().startswith(f"gangconf: kind cluster {provider.cluster_name} ")
        create = next(l for l in calls.read_text().splitlines() if l.startswith("create cluster"))
        assert f"--name={provider.cluster_name}" in create and f"--config {profile.path}" in create, create
        assert "--image=kindest/node:v1.37.2@sha256:0" in create, create
    finally:
        cluster.stop()
    assert f"delete cluster --name={provider.cluster_name}" in calls.read_text()
    assert not provider.workdir.exists()
    assert not (tmp_path / ".pytest-kind").exists()
