"""``python -m fixtures.doctor``: its verdicts on a healthy cluster and on each misconfiguration.

Every cluster here is real: the doctor starts a local control plane from a profile, or is pointed
at one through a kubeconfig. Only the "older than v1.37" case uses a stub, which answers nothing
but ``/version``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from kubernetes import client, config

from fixtures.providers.local import binaries
from fixtures.labels import RUN_LABEL
from fixtures.preflight import GATE_FLAG, RUNTIME_FLAG
from fixtures.profiles import Profile
from fixtures.providers.local import LocalControlPlane

from clusterstubs import closed_port, version_only_server, write_kubeconfig

REPO = Path(__file__).resolve().parent.parent
BETA_ITEMS = ("server version", "scheduling.k8s.io", "spec.schedulingGroup", "protection finalizer", "quorum probe")
ALPHA_ITEMS = ("CompositePodGroup", "TopologyAwareWorkloadScheduling", "PodGroupPreemptionPolicy", "WorkloadWithJob")


def doctor(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fixtures.doctor", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout)


def items(proc: subprocess.CompletedProcess) -> dict[str, str]:
    """Checklist item name -> its whole line."""
    found = {}
    for line in proc.stdout.splitlines():
        if line.startswith("  ["):
            name = line.split("]", 1)[1].strip().split(":", 1)[0]
            found[name] = line
    return found


def mark(line: str) -> str:
    return line.split("]", 1)[0].strip(" [")


def test_healthy_beta_cluster_passes_every_beta_item_and_exits_0():
    proc = doctor("--profile=gang-beta")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = items(proc)
    assert {name: mark(found.get(name, "")) for name in BETA_ITEMS} == {name: "ok" for name in BETA_ITEMS}, proc.stdout
    assert "v1.37.2" in found["server version"]
    assert "podgroups, workloads" in found["scheduling.k8s.io"]
    assert "left untried while a plain pod was tried" in found["quorum probe"]
    assert {name: mark(found[name]) for name in ALPHA_ITEMS} == {name: "off" for name in ALPHA_ITEMS}, proc.stdout
    assert "--feature-gates=CompositePodGroup=true" in found["CompositePodGroup"]
    assert proc.stdout.rstrip().endswith("gangconf doctor: ready for the beta profile"), proc.stdout


def test_alpha_cluster_shows_every_alpha_piece_on():
    proc = doctor("--profile=gang-alpha")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = items(proc)
    assert {name: mark(found[name]) for name in ALPHA_ITEMS} == {name: "on" for name in ALPHA_ITEMS}, proc.stdout


@pytest.mark.parametrize(
    ("profile", "failing", "fix"),
    [("gate-without-api", "scheduling.k8s.io", RUNTIME_FLAG), ("api-without-gate", "scheduling.k8s.io", GATE_FLAG)],
)
def test_misconfigured_cluster_names_the_flag_and_exits_1(profile: str, failing: str, fix: str):
    proc = doctor(f"--profile={profile}")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = items(proc)
    assert mark(found[failing]) == "FAIL" and f"-> fix: add {fix}" in found[failing], proc.stdout
    assert mark(found["server version"]) == "ok"
    assert mark(found["quorum probe"]) == "FAIL" and "not checked" in found["quorum probe"], proc.stdout
    if profile == "api-without-gate":
        assert mark(found["spec.schedulingGroup"]) == "FAIL" and GATE_FLAG in found["spec.schedulingGroup"]
    else:
        assert mark(found["spec.schedulingGroup"]) == "ok", proc.stdout
    assert "NOT ready for the beta profile" in proc.stdout.splitlines()[-1], proc.stdout


@pytest.fixture(scope="module")
def plane(tmp_path_factory):
    cp = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), tmp_path_factory.mktemp("doctor"))
    cp.start()
    yield cp
    cp.stop()


def test_doctor_on_a_kubeconfig_cleans_up_its_probe(plane):
    proc = doctor(f"--kubeconfig={plane.kubeconfig}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[0] == f"gangconf doctor: {plane.server}"
    api = config.new_client_from_config(config_file=str(plane.kubeconfig))
    try:
        core = client.CoreV1Api(api)
        deadline = time.monotonic() + 60
        while (left := [n.metadata.name for n in core.list_namespace(label_selector=RUN_LABEL).items]) \
                and time.monotonic() < deadline:
            time.sleep(0.5)  # sleep-ok: the probe namespace finishes deleting in the background
        assert left == [], left
        assert not core.list_pod_for_all_namespaces(label_selector=RUN_LABEL).items
    finally:
        api.close()


def test_doctor_on_an_unreachable_cluster_is_one_line_and_exits_2(tmp_path: Path):
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", f"https://127.0.0.1:{closed_port()}")
    proc = doctor(f"--kubeconfig={kubeconfig}")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.strip().count("\n") == 0, proc.stderr
    assert "cannot reach the cluster at https://127.0.0.1:" in proc.stderr


def test_doctor_with_a_context_the_kubeconfig_lacks_is_one_line(tmp_path: Path):
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", f"https://127.0.0.1:{closed_port()}")
    proc = doctor(f"--kubeconfig={kubeconfig}", "--context=nope")
    assert proc.returncode == 2 and proc.stderr.strip().count("\n") == 0, proc.stderr
    assert "has no context 'nope'" in proc.stderr


def test_doctor_on_a_server_older_than_v1_37_says_upgrade(tmp_path: Path):
    with version_only_server("v1.36.3") as old_server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", old_server)
        proc = doctor(f"--kubeconfig={kubeconfig}")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = items(proc)
    assert mark(found["server version"]) == "FAIL" and "v1.36.3" in found["server version"]
    assert "upgrade the cluster to Kubernetes v1.37 or newer" in found["server version"]


def test_quorum_probe_fails_when_the_scheduler_ignores_pod_groups(tmp_path: Path):
    """Negative control: GenericWorkload off in kube-scheduler alone; the probe gang is tried, so exit 1."""
    cp = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), tmp_path / "run",
                           extra_flags={"kube-scheduler": ["--feature-gates=GenericWorkload=false"]})
    cp.start()
    try:
        proc = doctor(f"--kubeconfig={cp.kubeconfig}")
    finally:
        cp.stop()
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = items(proc)
    assert mark(found["quorum probe"]) == "FAIL", proc.stdout
    assert "tried a member of a gang below its minCount" in found["quorum probe"]
    assert f"-> fix: the scheduler ignores PodGroups: start kube-scheduler with {GATE_FLAG}" in found["quorum probe"]
    assert all(mark(found[name]) == "ok" for name in BETA_ITEMS if name != "quorum probe"), proc.stdout
