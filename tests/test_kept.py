"""Kept local clusters, as a person uses them: ``up``, a second ``up``, kubectl, ``down``, ``--keep``.

Every test starts real clusters in child commands, in a cache of its own for the run state
(``private_runs``): their ``down`` and ``stop-all`` never see the developer's kept clusters, and
the test fails if anything it started is still running at its end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kubernetes import client, config, watch

from children import alive, kept_block, wait_gone
from fixtures.providers.local.binaries import DEFAULT_K8S_VERSION
from fixtures.pools import GPU
from reference_scheduler import DEFAULT_SCHEDULER_NAME as SCHEDULER_NAME

REPO = Path(__file__).resolve().parent.parent
LOCAL = [sys.executable, "-m", "fixtures.providers.local"]


def local(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([*LOCAL, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)


def bound_within(core: client.CoreV1Api, namespace: str, name: str, timeout: int) -> str:
    """The node the pod is bound to, watched for up to ``timeout`` seconds."""
    stream = watch.Watch()
    last = None
    for event in stream.stream(core.list_namespaced_pod, namespace, field_selector=f"metadata.name={name}",
                               timeout_seconds=timeout):
        last = event["object"]
        if last.spec.node_name:
            stream.stop()
            return last.spec.node_name
    raise AssertionError(f"pod {name} not bound within {timeout}s; last seen: {last and last.status}")


def recorded(private_runs: Path) -> dict:
    """The one cluster's state file in the test's own cache."""
    (state,) = (private_runs / "runs").glob("*.json")
    return {"path": state, **json.loads(state.read_text())}


def test_up_then_a_second_up_kubectl_and_down(tmp_path: Path, private_runs: Path):
    started = local("up", "--nodes=2", "--gpus=1", f"--reports-dir={tmp_path / 'reports'}")
    assert started.returncode == 0, started.stdout + started.stderr
    kept = kept_block(started.stdout)
    assert "is running" in kept["header"] and "2 fake nodes (8 CPUs, 32Gi, 1 GPU each)" in kept["header"], kept
    assert "make stop-all" in kept["text"] and f"down {kept['name']}" in kept["text"], kept["text"]
    assert Path(kept["logs"]) == tmp_path / "reports" / "runs" / kept["name"] / "logs"
    state = recorded(private_runs)
    pids = [p["pid"] for p in state["processes"]]
    assert all(alive(p) for p in pids) and state["kept"]["name"] == kept["name"]  # `up` has returned; they run

    api = config.new_client_from_config(config_file=kept["kubeconfig"])
    try:
        nodes = client.CoreV1Api(api).list_node().items
        assert len(nodes) == 2 and all(n.status.allocatable[GPU] == "1" for n in nodes), nodes
        assert all(not n.spec.taints for n in nodes), [n.spec.taints for n in nodes]  # any pod may land on them
    finally:
        api.close()

    again = local("up", f"--reports-dir={tmp_path / 'reports'}")
    assert again.returncode == 0, again.stdout + again.stderr
    second = kept_block(again.stdout)
    assert "is already running" in second["header"] and second["text"].splitlines()[1:] == kept["text"].splitlines()[1:]
    other = local("up", "--profile=gang-alpha")
    assert other.returncode == 2 and other.stderr.count("\n") == 1 and "stop it first" in other.stderr, other.stderr

    version = local("kubectl", "--", "version", "-o", "json")
    assert version.returncode == 0, version.stderr
    both = json.loads(version.stdout)
    assert both["clientVersion"]["gitVersion"] == both["serverVersion"]["gitVersion"] == DEFAULT_K8S_VERSION, both
    direct = subprocess.run([kept["kubectl"], "get", "nodes", "-o", "name"], capture_output=True, text=True,
                            env={**os.environ, "KUBECONFIG": kept["kubeconfig"]}, timeout=60)
    assert direct.returncode == 0 and len(direct.stdout.split()) == 2, direct.stdout + direct.stderr

    stopped = local("down")
    assert stopped.returncode == 0 and f"stopped the local cluster {kept['name']}" in stopped.stdout, stopped.stdout
    assert wait_gone(pids) == [] and not Path(state["secrets"]).exists() and not state["path"].exists()
    none = local("kubectl", "get", "nodes")
    assert none.returncode == 2 and none.stderr.strip() == (
        "gangconf: no local cluster is running: start one with `make cluster`, or keep a run's with --keep")


_PASSING = '''
from fixtures.pools import NodeShape


def test_passes(pool, gang, recorder, timeouts):
    pool.add(1, NodeShape())
    gang.pod("kept")
    recorder.eventually(lambda state: state.bound(prefix="kept"), timeout=timeouts.gang_scheduled, describe="kept bound")
'''


def test_keep_leaves_a_passing_side_by_side_runs_cluster_and_reference_scheduler_until_stop_all(
        tmp_path: Path, private_runs: Path):
    (tmp_path / "test_pass.py").write_text(_PASSING)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "fixtures.plugin", "-p", "no:pytest-kind", "-p", "no:cacheprovider",
         "-q", "--rootdir", str(tmp_path), "-c", os.devnull, f"--reports-dir={tmp_path / 'reports'}",
         "--keep", "--scheduler=reference", "-n", "2", str(tmp_path / "test_pass.py")],
        cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:]
    kept = kept_block(proc.stdout)
    assert f"the reference scheduler for pods with schedulerName {SCHEDULER_NAME}" in kept["header"], kept
    state = recorded(private_runs)
    names = [p["name"] for p in state["processes"]]
    assert names[-1] == "reference-scheduler" and all(alive(p["pid"]) for p in state["processes"]), state

    api = config.new_client_from_config(config_file=kept["kubeconfig"])
    try:
        core = client.CoreV1Api(api)
        pods = core.list_pod_for_all_namespaces(label_selector="gangconf.io/run").items
        assert [(p.metadata.name, bool(p.spec.node_name)) for p in pods] == [("kept", True)], pods
        # The kept reference scheduler still schedules: a pod written by hand after the run is bound.
        node = core.list_node().items[0]
        core.create_namespaced_pod("default", {
            "metadata": {"name": "by-hand"},
            "spec": {"schedulerName": SCHEDULER_NAME, "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}],
                     "tolerations": [{"operator": "Exists"}], "nodeSelector": {"kubernetes.io/hostname": node.metadata.name}}})
        assert bound_within(core, "default", "by-hand", timeout=45) == node.metadata.name
    finally:
        api.close()

    stopped = local("stop-all")
    assert stopped.returncode == 0 and f"stopped the local cluster {kept['name']}" in stopped.stdout, stopped.stdout
    assert "reference-scheduler" in stopped.stdout
    assert wait_gone([p["pid"] for p in state["processes"]]) == []
    assert not Path(state["secrets"]).exists() and not state["path"].exists()
