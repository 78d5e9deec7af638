"""The existing-cluster provider against a cluster that is not the harness's own.

The cluster is a real local control plane started here, then treated as foreign: it gets a
"vendor" kubeconfig context, four nodes of its own (not labelled by gangconf; the kwok controller
keeps them Ready and plays their kubelet) and a team namespace with running pods. A child pytest
runs suites against it with ``--provider existing --kubeconfig ... --context ... --require-context``.
Afterwards the team's objects must be exactly as they were (same resourceVersion), the nodes must
carry the same labels, taints and capacity, and nothing labelled by gangconf may remain.

The first tests need no cluster: the pool arithmetic, the version parser, the context guard and
a cluster older than v1.37 (a stub that answers only ``/version``, on 127.0.0.1).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from kubernetes import client, config

from children import run_result
from clusterstubs import closed_port, version_only_server, write_kubeconfig
from fixtures import binaries, faults
from fixtures.capacity import SlotPool, leftover_resources
from fixtures.errors import ClusterUnavailable
from fixtures.labels import RUN_LABEL
from fixtures.pools import GPU, NodeShape
from fixtures.profiles import Profile
from fixtures.providers.existing import check_server_version, parse_server_version
from fixtures.providers.local import KWOK_NODE_ANNOTATION, KWOK_NODE_VALUE, LocalControlPlane

REPO = Path(__file__).resolve().parent.parent
CONTEXT = "vendor-prod"
TEAM = "team-a"
USER_NODES = [f"vendor-node-{i}" for i in range(4)]


# -- no cluster --------------------------------------------------------------------------------


def test_slot_pool_turns_a_shape_and_a_pods_requests_into_its_own_resources():
    pool = SlotPool(None, run_id="r", test_id="t", timeout=1)  # type: ignore[arg-type]
    cpu, mem, gpu = pool.resource_names
    assert cpu.startswith("gangconf.io/s") and cpu.endswith("-cpu") and len(cpu.split("/")[1]) <= 63
    assert pool.capacity(NodeShape(cpu="2", memory="32Gi", gpus=1)) == {cpu: "2000", mem: "32768", gpu: "1"}
    assert pool.capacity(NodeShape(cpu="4")) == {cpu: "4000", mem: "32768"}
    translated = pool.pod_resources({"requests": {"cpu": "100m", "memory": "64Mi", GPU: "1"}, "limits": {GPU: "1"}})
    assert translated == {"requests": {"cpu": "1m", "memory": "1Mi", cpu: "100", mem: "64", gpu: "1"},
                          "limits": {cpu: "100", mem: "64", gpu: "1"}}
    assert pool.node_selector == {} and pool.tolerations == []
    other = SlotPool(None, run_id="r", test_id="another test", timeout=1)  # type: ignore[arg-type]
    assert set(other.resource_names).isdisjoint(pool.resource_names)


@pytest.mark.parametrize(("text", "parsed"), [
    ("v1.37.2", (1, 37, 2)), ("v1.37.2-gke.1100", (1, 37, 2)), ("v1.36.3+k3s1", (1, 36, 3)),
    ("1.38", (1, 38, 0)), ("nonsense", None),
])
def test_server_versions_are_read_from_git_version(text, parsed):
    assert parse_server_version(text) == parsed


def test_a_server_older_than_v1_37_is_refused_in_one_line():
    with pytest.raises(ClusterUnavailable, match="is v1.36.3, older than v1.37") as info:
        check_server_version("v1.36.3", "https://example:6443")
    assert "\n" not in str(info.value)
    check_server_version("v1.37.0-rc.1", "https://example:6443")
    check_server_version("v1.38.1", "https://example:6443")


def _child(tmp_path: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           f"--reports-dir={tmp_path / 'reports'}", *args],
                          cwd=REPO, capture_output=True, text=True, timeout=timeout)


def _one_line(proc: subprocess.CompletedProcess) -> str:
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out
    lines = [l for l in out.splitlines() if "gangconf:" in l]
    assert len(lines) == 1, out
    return lines[0]


def test_require_context_refuses_a_run_without_an_explicit_context(tmp_path: Path):
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", f"https://127.0.0.1:{closed_port()}")
    proc = _child(tmp_path, f"--kubeconfig={kubeconfig}", "--require-context", "suites/test_quorum.py")
    assert proc.returncode == 4, proc.stdout
    line = _one_line(proc)
    assert "--require-context is set but no --context was named" in line and f"--context {CONTEXT}" in line, line


def test_a_context_the_kubeconfig_lacks_is_one_line_naming_the_contexts(tmp_path: Path):
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", f"https://127.0.0.1:{closed_port()}")
    proc = _child(tmp_path, f"--kubeconfig={kubeconfig}", "--context=prod-eu", "suites/test_quorum.py")
    assert proc.returncode == 4, proc.stdout
    line = _one_line(proc)
    assert "has no context 'prod-eu'; its contexts are: vendor-prod, staging" in line, line


@pytest.fixture
def old_server():
    with version_only_server("v1.36.3") as url:
        yield url


def test_a_cluster_older_than_v1_37_stops_the_run_in_one_line(tmp_path: Path, old_server: str):
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", old_server)
    proc = _child(tmp_path, f"--kubeconfig={kubeconfig}", f"--context={CONTEXT}", "suites/test_quorum.py")
    assert proc.returncode == 4, proc.stdout
    line = _one_line(proc)
    assert f"the server at {old_server} is v1.36.3, older than v1.37" in line, line


# -- a foreign cluster -------------------------------------------------------------------------


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _user_node(name: str) -> dict:
    now = _now()
    return {
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "node.vendor.example/pool": "general",
                                              "kubernetes.io/os": "linux"},
                     "annotations": {KWOK_NODE_ANNOTATION: KWOK_NODE_VALUE}},
        "status": {"capacity": {"cpu": "16", "memory": "64Gi", "pods": "110"},
                   "allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"},
                   "phase": "Running",
                   "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ready",
                                   "lastHeartbeatTime": now, "lastTransitionTime": now}],
                   "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}]},
    }


def _wait(what: str, check, timeout: float = 90):
    """Poll ``check`` (a cheap API read) until it returns something truthy; fail naming ``what``."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.5)  # sleep-ok: polling the API between reads in a harness test
    pytest.fail(f"{what} not reached in {timeout:.0f}s (last: {last!r})")


def _node_view(node: client.V1Node) -> dict:
    return {"labels": node.metadata.labels, "annotations": node.metadata.annotations,
            "taints": [t.to_dict() for t in node.spec.taints or []], "unschedulable": node.spec.unschedulable,
            "capacity": node.status.capacity, "allocatable": node.status.allocatable}


@pytest.fixture(scope="module")
def foreign(tmp_path_factory):
    """A running cluster the harness treats as someone else's, with the someone's objects in it."""
    base = tmp_path_factory.mktemp("foreign")
    plane = LocalControlPlane(binaries.ensure(), Profile.resolve("gang-beta"), base / "run")
    cluster = plane.start()
    try:
        raw = yaml.safe_load(Path(cluster.kubeconfig).read_text())
        for ctx in raw["contexts"]:
            ctx["name"] = CONTEXT
        raw["current-context"] = CONTEXT
        raw["contexts"].append({"name": "staging", "context": dict(raw["contexts"][0]["context"])})
        kubeconfig = base / "vendor-kubeconfig"
        kubeconfig.write_text(yaml.safe_dump(raw))
        kubeconfig.chmod(0o600)
        api = config.new_client_from_config(config_file=str(kubeconfig), context=CONTEXT)
        core = client.CoreV1Api(api)
        for name in USER_NODES:
            core.create_node(_user_node(name))
        _wait("the vendor's nodes Ready without taints", lambda: all(
            n.spec.taints is None and any(c.type == "Ready" and c.status == "True" for c in n.status.conditions)
            for n in core.list_node().items if n.metadata.name in USER_NODES))
        core.create_namespace({"metadata": {"name": TEAM, "labels": {"team": "a"}}})
        core.create_namespaced_config_map(TEAM, {"metadata": {"name": "settings"}, "data": {"k": "v"}})
        for i in range(3):
            core.create_namespaced_pod(TEAM, {"metadata": {"name": f"web-{i}", "labels": {"app": "web"}}, "spec": {
                "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]}})
        _wait("the team's pods Running", lambda: all(
            p.status.phase == "Running" and p.spec.node_name for p in core.list_namespaced_pod(TEAM).items))
        yield kubeconfig, api
        api.close()
    finally:
        plane.stop()


def _snapshot(api: client.ApiClient) -> dict:
    core = client.CoreV1Api(api)
    return {
        "pods": {p.metadata.name: (p.metadata.uid, p.metadata.resource_version, p.spec.node_name, p.status.phase)
                 for p in core.list_namespaced_pod(TEAM).items},
        "namespace": core.read_namespace(TEAM).metadata.resource_version,
        "configmap": core.read_namespaced_config_map("settings", TEAM).metadata.resource_version,
        "nodes": {n.metadata.name: _node_view(n) for n in core.list_node().items},
    }


def _harness_objects(api: client.ApiClient) -> dict[str, list[str]]:
    core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
    selector = RUN_LABEL
    found = {
        "namespaces": [n.metadata.name for n in core.list_namespace(label_selector=selector).items],
        "nodes": [n.metadata.name for n in core.list_node(label_selector=selector).items],
        "pods": [f"{p.metadata.namespace}/{p.metadata.name}"
                 for p in core.list_pod_for_all_namespaces(label_selector=selector).items],
        "clusterroles": [r.metadata.name for r in
                         client.RbacAuthorizationV1Api(api).list_cluster_role(label_selector=selector).items],
        "clusterrolebindings": [b.metadata.name for b in client.RbacAuthorizationV1Api(api)
                                .list_cluster_role_binding(label_selector=selector).items],
        "priorityclasses": [c.metadata.name for c in
                            client.SchedulingV1Api(api).list_priority_class(label_selector=selector).items],
    }
    for plural in ("podgroups", "workloads"):
        items = custom.list_cluster_custom_object("scheduling.k8s.io", "v1beta1", plural, label_selector=selector)
        found[plural] = [f"{o['metadata']['namespace']}/{o['metadata']['name']}" for o in items["items"]]
    return {k: v for k, v in found.items() if v}


@pytest.mark.parametrize("scheduler", ["kube-scheduler", "reference"])
def test_suites_run_on_a_foreign_cluster_and_leave_its_objects_untouched(foreign, tmp_path: Path, scheduler: str):
    kubeconfig, api = foreign
    before = _snapshot(api)
    proc = _child(tmp_path, "suites/test_quorum.py", "suites/test_cycle.py", "suites/test_api_surface.py",
                  "suites/test_deadlock.py", "--provider=existing", f"--kubeconfig={kubeconfig}",
                  f"--context={CONTEXT}", "--require-context", f"--scheduler={scheduler}", "-rA",
                  "-n", "3", timeout=900)  # side by side: the controller attaches once, the workers share it
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-6000:]
    described = [l for l in proc.stdout.splitlines() if l.startswith("gangconf: existing cluster")]
    assert len(described) == 1 and f"context {CONTEXT}" in described[0] and "extended resources" in described[0], out
    summary = run_result(tmp_path / "reports", f"beta-{scheduler}")
    outcomes = {c["id"] + " " + c["test"].split("::")[-1]: c["outcome"] for c in summary["checks"]}
    assert summary["counts"]["failed"] == 0 and summary["counts"]["passed"] >= 9, outcomes
    # The deadlock scenario needs 12 nodes of its own; the vendor has 4: not applicable, with the reason.
    assert "the test needs 12 nodes of its own and the cluster has 4 usable ones" in proc.stdout, out[-4000:]

    after = _snapshot(api)
    assert after["pods"] == before["pods"], "the team's pods changed"
    assert after["namespace"] == before["namespace"] and after["configmap"] == before["configmap"]
    assert after["nodes"] == before["nodes"], "a node's labels, taints or capacity changed"
    assert set(after["nodes"]) == set(USER_NODES), f"nodes were added: {set(after['nodes']) - set(USER_NODES)}"
    assert leftover_resources(api) == {}
    deadline = time.monotonic() + 120
    while (left := _harness_objects(api)) and time.monotonic() < deadline:
        time.sleep(0.5)  # sleep-ok: namespaces finish deleting in the background; polling between reads
    assert left == {}, f"gangconf-labelled objects left behind: {left}"


@pytest.mark.parametrize("scheduler", ["kube-scheduler", "reference"])
def test_fault_checks_need_the_local_plugin_unless_the_reference_scheduler_is_judged(foreign, tmp_path: Path,
                                                                                     scheduler: str):
    kubeconfig, api = foreign
    proc = _child(tmp_path, "suites/test_permit.py", "-m", "not slow", "--profile=gang-fault", "--provider=existing",
                  f"--kubeconfig={kubeconfig}", f"--context={CONTEXT}", f"--scheduler={scheduler}", "-rA",
                  timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-6000:]
    checks = run_result(tmp_path / "reports", f"fault-{scheduler}")["checks"]
    assert {c["id"] for c in checks} == {"GANG-PERMIT-001", "GANG-PERMIT-002"}, checks
    if scheduler == "kube-scheduler":
        # Its kube-scheduler is not the harness's build: there is no fault plugin to switch on.
        assert all(c["outcome"] == "not applicable" and faults.NEEDS_LOCAL_PLUGIN in c["reason"] for c in checks), checks
    else:
        # The reference scheduler brings its own fault hook, on any cluster.
        assert all(c["outcome"] == "passed" for c in checks), checks
