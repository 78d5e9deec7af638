"""The existing-cluster provider against a cluster that is not the harness's own.

The cluster is a real local control plane started here, then treated as foreign: it gets a
"vendor" kubeconfig context, five 16-CPU / 64Gi nodes of its own (not labelled by gangconf; the
kwok controller keeps them Ready and plays their kubelet; the last one takes only 8 pods), and a
team namespace whose priority-0 pods request every node's CPU and memory in full, with a
"scavenger" pod of a PriorityClass far below 0 on each node and a "legacy" pod whose class was
deleted after it was made (its priority, the lowest on the cluster, is the floor gangconf's
priorities must go under). A child pytest runs every suite against it with ``--provider
existing --kubeconfig ... --context ... --require-context``, once per scheduler. Throughout the
run the team's pods are watched for a ``DisruptionTarget`` condition, a ``Preempted`` event or a
deletion, and every pod and PriorityClass gangconf creates for its priority; afterwards the
team's objects must be exactly as they were (uid, resourceVersion, node, phase), the nodes must
carry the same labels, taints and capacity, and nothing labelled by gangconf may remain.

The first tests need no cluster: the pool arithmetic, the priority band, the version parser and
the refusal of a cluster older than v1.37. The bad input of a run against an existing cluster (no
such context, ``--require-context`` without one, a server older than v1.37) is in the table of
``tests/bad_inputs.py``.
"""

from __future__ import annotations

import functools
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from kubernetes import client, config

from children import run_result
from fixtures import faults, priorities
from fixtures.providers.local import binaries
from fixtures.errors import ClusterUnavailable, HarnessError
from fixtures.labels import RUN_LABEL
from fixtures.observe import Recorder
from fixtures.pools import GPU, POD_SLOTS, NodeShape, SlotPool, leftover_resources
from fixtures.priorities import BAND, Priorities
from fixtures.profiles import Profile
from fixtures.providers.existing import check_server_version, parse_server_version
from fixtures.providers.local import KWOK_NODE_ANNOTATION, KWOK_NODE_VALUE, LocalControlPlane
from reference_scheduler import ListWatch

REPO = Path(__file__).resolve().parent.parent
CONTEXT = "vendor-prod"
TEAM = "team-a"
USER_NODES = [f"vendor-node-{i}" for i in range(5)]
#: The last node takes 8 pods: with the team's there, it has fewer pod slots free than a test needs.
SMALL_NODE, SMALL_NODE_PODS = USER_NODES[-1], "8"
#: Per node, the team's priority-0 pods of 4 CPU / 16Gi: the node's 16 CPU / 64Gi requested in full.
BATCH_PER_NODE = 4
#: A PriorityClass of the vendor's far below 0, with one pod on each node.
SCAVENGER, SCAVENGER_VALUE = "vendor-scavenger", -1_000_000
#: A pod whose class was deleted after it was created: it keeps its priority, the lowest on the
#: cluster, which gangconf's must go below (the floor).
LEGACY, FLOOR = "legacy", -2_000_000


# -- no cluster --------------------------------------------------------------------------------


def test_slot_pool_turns_a_shape_and_a_pods_requests_into_its_own_resources():
    pool = SlotPool(None, run_id="r", test_id="t", timeout=1)  # type: ignore[arg-type]
    cpu, mem, gpu, pods = pool.resource_names
    assert cpu.startswith("gangconf.io/s") and cpu.endswith("-cpu") and len(cpu.split("/")[1]) <= 63
    assert pool.capacity(NodeShape(cpu="2", memory="32Gi", gpus=1)) == {cpu: "2000", mem: "32768", gpu: "1",
                                                                        pods: str(POD_SLOTS)}
    assert pool.capacity(NodeShape(cpu="4", pods="3")) == {cpu: "4000", mem: "32768", pods: "3"}
    translated = pool.pod_resources({"requests": {"cpu": "100m", "memory": "64Mi", GPU: "1"}, "limits": {GPU: "1"}})
    # No real CPU or memory at all: only the pool's own resources, one pod slot included.
    assert translated == {"requests": {cpu: "100", mem: "64", gpu: "1", pods: "1"},
                          "limits": {cpu: "100", mem: "64", gpu: "1", pods: "1"}}
    assert pool.pod_resources({"requests": {"cpu": "0", "memory": "0"}}) == {"requests": {pods: "1"},
                                                                           "limits": {pods: "1"}}
    assert pool.node_selector == {} and pool.tolerations == []
    other = SlotPool(None, run_id="r", test_id="another test", timeout=1)  # type: ignore[arg-type]
    assert set(other.resource_names).isdisjoint(pool.resource_names)


def test_priorities_keep_a_checks_order_below_the_floor():
    own = Priorities()
    assert not own.shifted and own.value(0) == 0 and own.value(1000) == 1000
    shared = Priorities(-10, "PriorityClass overprovisioning")
    values = [shared.value(v) for v in (0, 10, 100, 1000, 2000, BAND - 1)]
    assert values == sorted(values) and values[-1] == -11 and values[0] == -10 - BAND
    assert shared.value(1000) - shared.value(100) == 900
    with pytest.raises(ValueError):
        shared.value(BAND)
    text = shared.describe()
    assert f"value {-10 - BAND}" in text and "below -10" in text and "(PriorityClass overprovisioning)" in text


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


# -- a foreign cluster -------------------------------------------------------------------------


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _user_node(name: str) -> dict:
    now, pods = _now(), SMALL_NODE_PODS if name == SMALL_NODE else "110"
    return {
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "node.vendor.example/pool": "general",
                                              "kubernetes.io/os": "linux"},
                     "annotations": {KWOK_NODE_ANNOTATION: KWOK_NODE_VALUE}},
        "status": {"capacity": {"cpu": "16", "memory": "64Gi", "pods": pods},
                   "allocatable": {"cpu": "16", "memory": "64Gi", "pods": pods},
                   "phase": "Running",
                   "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ready",
                                   "lastHeartbeatTime": now, "lastTransitionTime": now}],
                   "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}]},
    }


def _team_pod(name: str, node: str, app: str, requests: dict | None, priority_class: str | None = None) -> dict:
    container = {"name": "c", "image": "registry.k8s.io/pause:3.10", **({"resources": {"requests": requests}}
                                                                        if requests else {})}
    spec = {"nodeSelector": {"kubernetes.io/hostname": node}, "containers": [container],
            **({"priorityClassName": priority_class} if priority_class else {})}
    return {"metadata": {"name": name, "labels": {"app": app}}, "spec": spec}


def _admitted(core: client.CoreV1Api, priority_class: str) -> bool:
    """Whether Priority admission (which reads classes from an informer) knows ``priority_class`` yet."""
    probe = _team_pod("probe", USER_NODES[0], "probe", None, priority_class)
    try:
        core.create_namespaced_pod(TEAM, probe, dry_run="All")
        return True
    except client.ApiException as exc:
        if "no PriorityClass with name" in str(exc.body):
            return False
        raise


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
        scheduling = client.SchedulingV1Api(api)
        scheduling.create_priority_class({"metadata": {"name": SCAVENGER}, "value": SCAVENGER_VALUE,
                                          "description": "the vendor's opportunistic batch"})
        scheduling.create_priority_class({"metadata": {"name": "vendor-retired"}, "value": FLOOR})
        _wait("Priority admission knows the vendor's classes", lambda: _admitted(core, "vendor-retired"))
        core.create_namespaced_pod(TEAM, _team_pod(LEGACY, USER_NODES[0], "legacy", None, "vendor-retired"))
        custom = client.CustomObjectsApi(api)
        custom.create_namespaced_custom_object("scheduling.k8s.io", "v1beta1", TEAM, "podgroups", {
            "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": LEGACY},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, "priorityClassName": "vendor-retired"}})
        scheduling.delete_priority_class("vendor-retired")
        for node in USER_NODES:
            for i in range(BATCH_PER_NODE):
                core.create_namespaced_pod(TEAM, _team_pod(f"{node}-batch-{i}", node, "batch",
                                                           {"cpu": "4", "memory": "16Gi"}))
            core.create_namespaced_pod(TEAM, _team_pod(f"{node}-scavenger", node, "scavenger", None, SCAVENGER))
        _wait("the team's pods Running", lambda: all(
            p.status.phase == "Running" and p.spec.node_name for p in core.list_namespaced_pod(TEAM).items),
              timeout=120)
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


class _GangconfPriorities:
    """Watches, cluster-wide and for the whole run, every pod and PriorityClass gangconf labels, and
    keeps the priority each had (pods: ``spec.priority``, set by Priority admission; classes: value)."""

    def __init__(self, api: client.ApiClient):
        self.seen: dict[str, int | None] = {}
        listers = {"Pod": client.CoreV1Api(api).list_pod_for_all_namespaces,
                   "PriorityClass": client.SchedulingV1Api(api).list_priority_class}
        self._watches = [ListWatch(lister, {"label_selector": RUN_LABEL},
                                   functools.partial(self._saw, kind), watch_timeout=5, pause=0.5)
                         for kind, lister in listers.items()]
        self._threads = [w.start() for w in self._watches]

    def _saw(self, kind: str, event: str, key: str, obj: dict | None) -> None:
        if obj is None or event == "DELETED":
            return
        self.seen[f"{kind} {key}"] = (obj.get("spec") or {}).get("priority") if kind == "Pod" else obj.get("value")

    def close(self) -> None:
        for w in self._watches:
            w.stop()
        for thread in self._threads:
            thread.join(timeout=15)


def _disturbed(state) -> dict[str, str]:
    """The team's pods that were marked for disruption, deleted or told they were preempted."""
    found = {name: f"DisruptionTarget {cond.get('reason')}: {cond.get('message')}"
             for name, cond in state.disrupted.items()}
    found.update({name: "deleted" for name in state.deleted})
    for event in state.events:
        if event.get("reason") == "Preempted":
            found[event["involvedObject"]["name"]] = f"Preempted event: {event.get('message')}"
    return found


#: The reasons a check may be not applicable on the foreign cluster: its four nodes, their lack of
#: gangconf labels, the local-only pieces, a profile other than beta. Any other skip is a finding.
#: Why a check that needs all five nodes is not applicable: the small one lacks the pod slots.
NO_SLOTS = "free pod slots each and 4 of the cluster's 5 usable nodes"
ALLOWED_NOT_APPLICABLE = ("nodes of its own and the cluster has 5 usable ones", NO_SLOTS,
                          "does not label nodes it did not create",
                          "which only the local provider can", "needs the alpha profile", "needs the fault profile",
                          "a second profile of this cluster's kube-scheduler")
#: Suites whose every check must pass here, whatever else is not applicable.
MUST_PASS = ("test_preemption.py", "test_competition.py", "test_mincount.py", "test_lifecycle.py", "test_quorum.py")


# One worker runs every test of the foreign cluster (make test: --dist loadgroup), so it is started once.
@pytest.mark.xdist_group("foreign-cluster")
def test_the_floor_is_the_lowest_priority_of_anything_gangconf_did_not_create(foreign):
    _, api = foreign
    found = {what: value for value, what in priorities._priorities(api)}
    # The legacy pod and PodGroup keep the value of a class deleted since; the classes are read too.
    assert found[f"pod {TEAM}/{LEGACY}"] == FLOOR and found[f"PodGroup {TEAM}/{LEGACY}"] == FLOOR, found
    assert found[f"PriorityClass {SCAVENGER}"] == SCAVENGER_VALUE and found["PriorityClass system-node-critical"] > 0
    assert priorities.lowest(api) == Priorities(FLOOR, f"pod {TEAM}/{LEGACY}")
    # What gangconf labelled (another run's class, say) is not a pod it must spare.
    scheduling = client.SchedulingV1Api(api)
    scheduling.create_priority_class({"metadata": {"name": "gangconf-earlier-run", "labels": {RUN_LABEL: "earlier"}},
                                      "value": 10 * FLOOR})
    try:
        assert priorities.lowest(api).floor == FLOOR
        Priorities(FLOOR).check(api)
        scheduling.create_priority_class({"metadata": {"name": "vendor-new-batch"}, "value": FLOOR - 1})
        try:
            with pytest.raises(HarnessError, match="PriorityClass vendor-new-batch .* was created during the run"):
                Priorities(FLOOR).check(api)
        finally:
            scheduling.delete_priority_class("vendor-new-batch")
    finally:
        scheduling.delete_priority_class("gangconf-earlier-run")


@pytest.mark.xdist_group("foreign-cluster")
def test_dry_run_prints_what_a_run_would_create_and_creates_nothing(foreign, tmp_path: Path):
    kubeconfig, api = foreign
    before = _snapshot(api)
    ours = _GangconfPriorities(api)
    try:
        proc = _child(tmp_path, "suites/test_preemption.py", "--dry-run", "--provider=existing",
                      f"--kubeconfig={kubeconfig}", f"--context={CONTEXT}", "--require-context",
                      "--scheduler=reference",
                      "-n", "2")
    finally:
        ours.close()
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Traceback" not in out, out
    assert "nothing was started or created" in out and "gangconf: existing cluster" not in out, out
    base = FLOOR - BAND
    for expected in ("attach to the existing cluster", f"context {CONTEXT}",
                     "kind: ClusterRole", "name: gangconf-reference-scheduler-<run>", "kind: ClusterRoleBinding",
                     "kind: PriorityClass", f"value: {base}", "gangconf.io/<pool>-pods",
                     f"below {FLOOR}, the lowest priority", f"(pod {TEAM}/{LEGACY})"):
        assert expected in out, (expected, out)
    listed = [l.split() for l in out.splitlines() if "suites/test_preemption.py::" in l]
    assert len(listed) >= 10 and all(ns.startswith("gc-") for ns, _ in listed), out
    # It read the cluster, and wrote nothing: no gangconf object appeared, nothing changed.
    assert ours.seen == {}, ours.seen
    assert _snapshot(api) == before
    assert _harness_objects(api) == {} and leftover_resources(api) == {}


# The longest tests of tests/ (minutes each): the reference scheduler's run goes to another worker,
# which starts a foreign cluster of its own for it, so that the two runs go side by side.
@pytest.mark.slow("the whole suite on a foreign cluster, about 4.5 minutes")
@pytest.mark.parametrize("scheduler", [
    pytest.param("kube-scheduler", marks=pytest.mark.xdist_group("foreign-cluster")),
    pytest.param("reference", marks=pytest.mark.xdist_group("foreign-cluster-reference")),
])
def test_every_suite_runs_on_a_full_foreign_cluster_and_disturbs_none_of_its_pods(foreign, tmp_path: Path,
                                                                                   scheduler: str):
    kubeconfig, api = foreign
    before = _snapshot(api)
    team = Recorder(api, TEAM, podgroups=False)
    ours = _GangconfPriorities(api)
    try:
        proc = _child(tmp_path, "suites", "--provider=existing",
                      f"--kubeconfig={kubeconfig}", f"--context={CONTEXT}",
                      "--require-context", f"--scheduler={scheduler}", "-rA",
                      "-n", "3", timeout=2400)  # side by side: the controller attaches once, the workers share it
    finally:
        ours.close()
        team.close()
    out = proc.stdout + proc.stderr
    # First, whatever the verdicts: throughout the run no pod of the team was marked, preempted or
    # deleted, and everything gangconf created had a priority below the vendor's lowest.
    assert _disturbed(team.current()) == {}, f"{_disturbed(team.current())}\n{team.current().summary()}"
    pods = {k: v for k, v in ours.seen.items() if k.startswith("Pod ")}
    classes = {k: v for k, v in ours.seen.items() if k.startswith("PriorityClass ")}
    assert len(pods) >= 100 and len(classes) >= 20, (len(pods), len(classes))
    above = {k: v for k, v in ours.seen.items() if v is None or v >= FLOOR}
    assert above == {}, f"gangconf objects not below the floor {FLOOR}: {above}"

    assert proc.returncode == 0, out[-6000:]
    described = [l for l in proc.stdout.splitlines() if l.startswith("gangconf: existing cluster")]
    assert len(described) == 1 and f"context {CONTEXT}" in described[0] and "extended resources" in described[0], out
    promised = [l for l in proc.stdout.splitlines() if l.startswith("gangconf: priorities:")]
    assert len(promised) == 1 and all(part in promised[0] for part in (
        f"value {FLOOR - BAND}", f"below {FLOOR}, the lowest priority", f"(pod {TEAM}/{LEGACY})",
        "no pod gangconf did not create can be preempted")), out[-4000:]

    summary = run_result(tmp_path / "reports", f"beta-{scheduler}")
    checks = summary["checks"]
    assert summary["counts"]["failed"] == 0, [c for c in checks if c["outcome"] == "failed"]
    odd = [(c["test"], c["reason"]) for c in checks if c["outcome"] == "not applicable"
           and not any(allowed in c["reason"] for allowed in ALLOWED_NOT_APPLICABLE)]
    assert odd == [], odd
    must = [c for c in checks if c["test"].split("::")[0].rsplit("/", 1)[-1] in MUST_PASS]
    assert len(must) >= 20 and all(c["outcome"] == "passed" or NO_SLOTS in c.get("reason", "") for c in must), \
        [(c["test"], c["outcome"], c.get("reason")) for c in must if c["outcome"] != "passed"]
    # The deadlock scenario needs 12 nodes of its own; the vendor has 5: not applicable, with the reason.
    assert "the test needs 12 nodes of its own and the cluster has 5 usable ones" in proc.stdout, out[-4000:]
    # A check that needs all 5 nodes finds the small one without the pod slots it needs: the reason says so.
    assert f"({SMALL_NODE} 3: allocatable pods minus the pods bound there" in proc.stdout, out[-4000:]

    after = _snapshot(api)
    assert after["pods"] == before["pods"], "the team's pods changed (uid, resourceVersion, node or phase)"
    assert after["namespace"] == before["namespace"] and after["configmap"] == before["configmap"]
    assert after["nodes"] == before["nodes"], "a node's labels, taints or capacity changed"
    assert set(after["nodes"]) == set(USER_NODES), f"nodes were added: {set(after['nodes']) - set(USER_NODES)}"
    assert leftover_resources(api) == {}
    deadline = time.monotonic() + 120
    while (left := _harness_objects(api)) and time.monotonic() < deadline:
        time.sleep(0.5)  # sleep-ok: namespaces finish deleting in the background; polling between reads
    assert left == {}, f"gangconf-labelled objects left behind: {left}"


@pytest.mark.xdist_group("foreign-cluster")
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
