"""LocalControlPlane.swap against real processes: what it keeps, what it replaces, what it leaves.

Nothing is mocked: each test starts etcd, kwok and a v1.37.2 control plane and swaps the
control plane (for the same release, which is enough to see what survives; the upgrade suite
swaps v1.36.3 for v1.37.2).
"""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kubernetes import client, config

from fixtures.providers.local import binaries
from fixtures.errors import ClusterUnavailable
from fixtures.pools import NodePool, NodeShape
from fixtures.profiles import Profile
from fixtures.providers.local import CONTROL_PLANE, LocalControlPlane
from test_local_provider import REPO, alive, wait_gone


def _pids(plane: LocalControlPlane) -> dict[str, int]:
    return {c.name: c.pid for c in plane.components if c.exited() is None}


def _wait_bound(core: client.CoreV1Api, namespace: str, name: str, timeout: float = 45) -> client.V1Pod:
    deadline = time.monotonic() + timeout
    while True:
        pod = core.read_namespaced_pod(name, namespace)
        if pod.spec.node_name and pod.status.phase == "Running":
            return pod
        assert time.monotonic() < deadline, f"{name} not bound and Running after {timeout}s: {pod.status}"
        time.sleep(0.2)


@pytest.fixture
def plane(tmp_path):
    cp = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), tmp_path / "run")
    cp.start()
    yield cp
    cp.stop()


def test_swap_keeps_etcd_kwok_and_every_object_and_replaces_only_the_control_plane(plane, tmp_path):
    api = config.new_client_from_config(config_file=str(plane.kubeconfig))
    core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
    try:
        core.create_namespace({"metadata": {"name": "kept"}})
        config_map = core.create_namespaced_config_map("kept", {"metadata": {"name": "data"}, "data": {"k": "v"}})
        group = custom.create_namespaced_custom_object("scheduling.k8s.io", "v1beta1", "kept", "podgroups", {
            "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "g"},
            "spec": {"schedulingPolicy": {"basic": {}}}})
        pool = NodePool(api, run_id="swap", test_id="swap", timeout=45)
        pool.add(1, NodeShape())
        core.create_namespaced_pod("kept", {"metadata": {"name": "p"}, "spec": {
            "nodeSelector": pool.node_selector, "tolerations": pool.tolerations, "schedulingGroup": {"podGroupName": "g"},
            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}})
        bound = _wait_bound(core, "kept", "p")
        before = _pids(plane)
        server, kubeconfig = plane.server, plane.kubeconfig

        swapped = plane.swap(plane.binaries, plane.profile)

        after = _pids(plane)
        assert after["etcd"] == before["etcd"] and after["kwok"] == before["kwok"], (before, after)
        assert all(after[name] != before[name] for name in CONTROL_PLANE), (before, after)
        assert wait_gone([before[name] for name in CONTROL_PLANE], timeout=1) == []
        assert (plane.server, plane.kubeconfig, swapped.kubeconfig) == (server, kubeconfig, kubeconfig)
        assert swapped.logs["kube-apiserver"].name == f"kube-apiserver.1-{plane.binaries.version}.log"
        assert swapped.scheduler_log.exists() and (plane.log_dir / "kube-scheduler.log").exists()

        # The same client (same URL, token and CA) reads everything back unchanged.
        assert core.read_namespaced_config_map("data", "kept").metadata.uid == config_map.metadata.uid
        read = custom.get_namespaced_custom_object("scheduling.k8s.io", "v1beta1", "kept", "podgroups", "g")
        assert read["metadata"]["uid"] == group["metadata"]["uid"]
        pod = core.read_namespaced_pod("p", "kept")
        assert (pod.metadata.uid, pod.spec.node_name, pod.metadata.resource_version) == \
            (bound.metadata.uid, bound.spec.node_name, bound.metadata.resource_version)
        # kwok still plays the kubelet and the new scheduler schedules: a new pod runs.
        core.create_namespaced_pod("kept", {"metadata": {"name": "q"}, "spec": {
            "nodeSelector": pool.node_selector, "tolerations": pool.tolerations,
            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}})
        _wait_bound(core, "kept", "q")
    finally:
        api.close()

    pids = list(_pids(plane).values())
    secrets, state = plane.secrets, plane.state_file
    plane.stop()
    assert wait_gone(pids, timeout=1) == []
    assert not secrets.exists() and not state.exists()


def test_a_component_that_refuses_its_flags_is_named_and_a_second_swap_recovers(plane):
    wrong = Profile.from_document({"kind": "Cluster", "apiVersion": "kind.x-k8s.io/v1alpha4",
                                   "featureGates": {"GenericWorkload": True, "GangScheduling": True},
                                   "runtimeConfig": {"scheduling.k8s.io/v1beta1": "true"}}, Path("wrong.yaml"))
    with pytest.raises(ClusterUnavailable) as info:
        plane.swap(plane.binaries, wrong)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"kube-apiserver {plane.binaries.version} refused feature gate GangScheduling"), message
    assert "(profile wrong.yaml;" in message, message
    assert set(_pids(plane)) == {"etcd", "kwok"}, _pids(plane)

    plane.swap(plane.binaries, Profile.resolve("gang-beta"))
    assert set(_pids(plane)) == {"etcd", "kwok", *CONTROL_PLANE}
    assert plane.component("kube-scheduler").probe("readyz")


def test_missing_binaries_are_refused_in_one_line_before_anything_stops(plane, tmp_path):
    before = _pids(plane)
    missing = dataclasses.replace(plane.binaries, version="v1.36.3",
                                  kube_controller_manager=tmp_path / "nowhere" / "kube-controller-manager")
    with pytest.raises(ClusterUnavailable) as info:
        plane.swap(missing, Profile.resolve("gang-alpha-1.36"))
    assert str(info.value) == (
        f"the kube-controller-manager binary for v1.36.3 is missing ({tmp_path / 'nowhere' / 'kube-controller-manager'}): "
        "build it with `python -m fixtures.providers.local.binaries build --version v1.36.3`")
    assert _pids(plane) == before
    assert plane.component("kube-apiserver").probe("readyz")


def test_a_stopped_plane_cannot_be_swapped(tmp_path):
    cp = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), tmp_path / "run")
    with pytest.raises(ClusterUnavailable, match="not running: start it first"):
        cp.swap(cp.binaries, cp.profile)
    cp.start()
    cp.stop()
    with pytest.raises(ClusterUnavailable, match="not running: start it first"):
        cp.swap(cp.binaries, cp.profile)


#: The longest a plane's stop may take: five components, each grace (at most 15 s) + 10 s to die.
STOP_BOUND = 5 * (15 + 10)

_CHILD = """
import json, sys, time
from pathlib import Path
from fixtures.providers.local import binaries
from fixtures.profiles import Profile
from fixtures.providers.local import LocalControlPlane
cp = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), Path(sys.argv[1]))
cp.start()
first = [c.pid for c in cp.components]
cp.swap(cp.binaries, cp.profile)
print(json.dumps({"first": first, "pids": [c.pid for c in cp.components], "secrets": str(cp.secrets),
                  "state": str(cp.state_file)}), flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "sigkill"])
def test_a_swapped_plane_leaves_nothing_running_when_its_harness_is_interrupted(tmp_path, signum):
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    line = child.stdout.readline()
    assert line, "the child did not start and swap a control plane"
    info = json.loads(line)
    state = json.loads(Path(info["state"]).read_text())
    assert sorted(p["pid"] for p in state["processes"]) == sorted(info["pids"]), "the state file misses swapped components"
    assert wait_gone(sorted(set(info["first"]) - set(info["pids"])), timeout=1) == []
    assert all(alive(p) for p in info["pids"])
    child.send_signal(signum)
    # The plane stops its components one after another, each with its grace period and then up to
    # 10 s more after SIGKILL: on a loaded machine that adds up to more than a minute, and the
    # assertion is that nothing outlives the harness, not how quickly it goes.
    child.wait(timeout=STOP_BOUND)
    assert wait_gone(info["pids"]) == [], "components outlived the interrupted harness"
    if signum == signal.SIGINT:  # atexit ran: the credentials and the state file are gone
        assert not Path(info["secrets"]).exists() and not Path(info["state"]).exists()
