"""The reference scheduler's runner: its identity, and bad input that must never stop it."""

from __future__ import annotations

import logging
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import yaml
from kubernetes import client

from fixtures.reference import ReferenceScheduler

REPO = Path(__file__).resolve().parent.parent


def _allowed(api, user: str, verb: str, resource: str, subresource: str = "", group: str = "") -> bool:
    review = client.AuthorizationV1Api(api).create_subject_access_review({
        "spec": {"user": user, "groups": ["system:serviceaccounts", "system:authenticated"],
                 "resourceAttributes": {"verb": verb, "resource": resource, "subresource": subresource,
                                        "group": group, "namespace": "default"}}})
    return review.status.allowed


def test_the_reference_scheduler_runs_with_least_privilege(cluster_api, run_id, tmp_path, timeouts):
    runner = ReferenceScheduler(cluster_api, run_id=f"{run_id}-rbac", log=tmp_path / "ref.log",
                                start_timeout=timeouts.cluster_start)
    try:
        runner.start()
        user = f"system:serviceaccount:{runner.namespace}:reference-scheduler"
        may = [("list", "pods"), ("watch", "nodes"), ("create", "pods", "binding"), ("patch", "pods", "status"),
               ("delete", "pods"),
               ("create", "events"), ("list", "podgroups", "", "scheduling.k8s.io"),
               ("patch", "podgroups", "status", "scheduling.k8s.io")]
        may_not = [("create", "pods"), ("update", "nodes"), ("delete", "nodes"), ("get", "secrets"),
                   ("create", "podgroups", "", "scheduling.k8s.io"), ("delete", "podgroups", "", "scheduling.k8s.io"),
                   ("create", "clusterrolebindings", "", "rbac.authorization.k8s.io")]
        assert [a for a in may if not _allowed(cluster_api, user, *a)] == []
        assert [a for a in may_not if _allowed(cluster_api, user, *a)] == []
        kubeconfig = yaml.safe_load((runner.secrets / "kubeconfig").read_text())
        assert (runner.secrets / "kubeconfig").stat().st_mode & 0o077 == 0
        assert kubeconfig["users"][0]["name"] == "reference-scheduler"
    finally:
        runner.stop()
    # Nothing it created is left.
    assert runner.namespace not in {n.metadata.name for n in client.CoreV1Api(cluster_api).list_namespace().items
                                    if n.status.phase == "Active"}
    roles = {r.metadata.name for r in client.RbacAuthorizationV1Api(cluster_api).list_cluster_role().items}
    assert runner.role not in roles


def test_an_unreachable_server_is_logged_and_never_stops_the_scheduler(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": f"https://127.0.0.1:{port}", "insecure-skip-tls-verify": True}}],
        "users": [{"name": "u", "user": {"token": "x"}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}]}))
    log = tmp_path / "log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "reference_scheduler", f"--kubeconfig={kubeconfig}"],
                                cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while log.read_text().count("relisting") < 3:  # every informer failed at least once
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        assert proc.poll() is None
        text = log.read_text()
        assert "Traceback" not in text
        assert all(len(line) < 500 for line in text.splitlines())
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0


def test_a_malformed_object_is_skipped_with_one_line(caplog):
    from reference_scheduler.runner.loop import Runner

    runner = Runner.__new__(Runner)  # only apply() is exercised: no API, no threads
    from reference_scheduler import Scheduler, SimClock
    runner.scheduler = Scheduler("x", SimClock(), writer=None)
    with caplog.at_level(logging.WARNING, logger="reference_scheduler"):
        runner.apply("Pod", {"metadata": {}}, "ns/broken")
        runner.apply("Node", {"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "lots"}}}, "n")
        runner.apply("PodGroup", {"metadata": {"name": "g", "namespace": "ns"},
                                  "spec": {"schedulingPolicy": {"gang": {"minCount": "many"}}}}, "ns/g")
    assert len(caplog.records) == 3, caplog.text
    assert all("ignoring malformed" in r.getMessage() for r in caplog.records)


def test_a_refused_binding_comes_back_to_the_loop_and_the_pod_is_retried(cluster_api, run_id, timeouts):
    """Bindings are written off the loop; a refused one must reach the core as a binding failure.

    The binding of a pod that is already on a node is refused with 409 by the API server; the
    writer returns at once and reports the refusal to ``on_bind_failure``, which the runner turns
    into ``Scheduler.binding_failed`` (forget the assumption, back off).
    """
    import threading

    from fixtures.labels import managed_labels
    from reference_scheduler import Pod
    from reference_scheduler.runner.api_writer import ApiWriter

    core = client.CoreV1Api(cluster_api)
    namespace = f"gc-bind-{run_id}".lower()[:63]
    core.create_namespace({"metadata": {"name": namespace, "labels": managed_labels(run_id, "bind-refused")}})
    refused = threading.Event()
    seen: list[tuple[str, str, str]] = []

    def report(pod, node, status):
        seen.append((pod.name, node, status.message()))
        refused.set()

    writer = ApiWriter(cluster_api, "gangconf-reference", on_bind_failure=report)
    try:
        created = core.create_namespaced_pod(namespace, {
            "metadata": {"name": "placed"},
            "spec": {"nodeName": "elsewhere", "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}})
        pod = Pod.from_api(cluster_api.sanitize_for_serialization(created))
        assert writer.bind(pod, "n1").ok  # accepted for writing, not yet written
        assert refused.wait(timeouts.scheduler_reacts), "the refused binding was never reported"
        (name, node, message), = seen
        assert (name, node) == ("placed", "n1") and message.startswith("binding rejected: 409"), seen
    finally:
        writer.close()
        core.delete_namespace(namespace)


def test_a_binding_failure_is_forgotten_and_retried_after_backoff():
    """The core side: ``binding_failed`` drops the assumption, says why, and backs the pod off."""
    from tests.reference.fakes import Cluster

    cluster = Cluster()
    cluster.nodes(1, cpu="2")
    cluster.pod("solo", cpu="1")
    cluster.fail_bind.add("solo")
    cluster.scheduler.schedule_next()
    assert "ns/solo" not in cluster.scheduler.cache.assumed
    assert cluster.conditions["solo"] == ("SchedulerError", "binding rejected")
    assert cluster.binds == []
    cluster.fail_bind.clear()
    cluster.clock.advance(2)  # virtual time: a failure at t=0 leaves backoff at the whole second after its window
    cluster.run()
    assert cluster.binds == [("solo", "n0")]


def test_events_are_written_in_the_name_of_the_pods_profile_with_their_time(cluster_api, run_id):
    """Each attempt is its own event with a MicroTime ``eventTime`` (attempts a second apart can be
    told apart), reported by the profile the pod names."""
    from reference_scheduler import Pod
    from reference_scheduler.runner.api_writer import ApiWriter

    from fixtures.labels import managed_labels

    core = client.CoreV1Api(cluster_api)
    namespace = f"gc-runner-events-{run_id}".lower()[:63].rstrip("-")
    core.create_namespace({"metadata": {"name": namespace, "labels": managed_labels(run_id, "runner-events")}})
    try:
        writer = ApiWriter(cluster_api, "gangconf-reference")
        pod = Pod(namespace, "p", scheduler_name="gangconf-reference-second")
        writer.pod_unschedulable(pod, "Unschedulable", "first")
        writer.pod_unschedulable(pod, "Unschedulable", "second")
        writer.close()  # events are written off the loop: wait for them
        events = [e for e in core.list_namespaced_event(namespace).items if e.reason == "FailedScheduling"]
        assert sorted(e.message for e in events) == ["first", "second"]
        assert {e.reporting_component for e in events} == {"gangconf-reference-second"}
        assert all(e.event_time is not None for e in events)
    finally:
        core.delete_namespace(namespace)


def test_group_conditions_are_merged_by_type_and_keep_their_time_while_the_status_holds(cluster_api, run_id):
    """The writer sets PodGroupInitiallyScheduled with a strategic merge patch and no read: a
    condition of another type stays; a write with the same status keeps ``lastTransitionTime``
    (known from the informer's copy of the group, or from the writer's own last write when that
    copy is stale), a new status gets a new one. The conditions start with a time long past, so
    that a kept time and a fresh one differ without waiting for the clock."""
    from fixtures.labels import managed_labels
    from reference_scheduler import PodGroup
    from reference_scheduler.runner import SCHEDULING
    from reference_scheduler.runner.api_writer import ApiWriter

    core, custom = client.CoreV1Api(cluster_api), client.CustomObjectsApi(cluster_api)
    namespace = f"gc-runner-cond-{run_id}".lower()[:63].rstrip("-")
    core.create_namespace({"metadata": {"name": namespace, "labels": managed_labels(run_id, "runner-cond")}})
    past = "2026-01-01T00:00:00Z"

    def read() -> dict:
        obj = custom.get_namespaced_custom_object(*SCHEDULING, namespace, "podgroups", "g")
        return {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or []}

    try:
        created = custom.create_namespaced_custom_object(*SCHEDULING, namespace, "podgroups", {
            "apiVersion": "/".join(SCHEDULING), "kind": "PodGroup", "metadata": {"name": "g"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}})
        stale = PodGroup.from_api(created)  # as the informer saw it before any condition
        seen = PodGroup.from_api(custom.patch_namespaced_custom_object_status(
            *SCHEDULING, namespace, "podgroups", "g", {"status": {"conditions": [
                {"type": "DisruptionTarget", "status": "False", "reason": "Other", "message": "",
                 "lastTransitionTime": past},
                {"type": "PodGroupInitiallyScheduled", "status": "False", "reason": "Unschedulable",
                 "message": "seeded", "lastTransitionTime": past}]}}))
        assert seen.scheduled_condition == ("False", past)

        # The same status, known from the informer's copy, then from the writer's own last write
        # (the second call passes the stale copy, which knows no condition): the time stays.
        writer = ApiWriter(cluster_api, "gangconf-reference")
        writer.group_condition(seen, False, "Unschedulable", "first")
        writer.group_condition(stale, False, "Unschedulable", "second")
        writer.close()  # both written, in order
        after = read()
        assert after["PodGroupInitiallyScheduled"]["message"] == "second", after
        assert after["PodGroupInitiallyScheduled"]["lastTransitionTime"] == past, after
        assert after["DisruptionTarget"]["reason"] == "Other", after

        # A new status gets a new time; the other condition is still untouched.
        fresh = ApiWriter(cluster_api, "gangconf-reference")
        fresh.group_condition(seen, True, "Scheduled", "")
        fresh.close()
        final = read()
        assert (final["PodGroupInitiallyScheduled"]["status"], final["PodGroupInitiallyScheduled"]["reason"]) == \
            ("True", "Scheduled"), final
        assert final["PodGroupInitiallyScheduled"]["lastTransitionTime"] > past, final
        assert set(final) == {"PodGroupInitiallyScheduled", "DisruptionTarget"}, final
    finally:
        core.delete_namespace(namespace)


def test_writes_to_one_object_keep_their_order_and_the_loop_never_waits():
    """Writes are queued per object: those of one object run one after the other, in order, while
    other objects' writes go on beside them; the calls themselves return at once."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from reference_scheduler.runner.api_writer import ApiWriter

    writer = ApiWriter.__new__(ApiWriter)  # no API: the queues only
    writer._pool = ThreadPoolExecutor(max_workers=4)
    writer._lock, writer._queues = threading.Lock(), {}
    done: list[tuple[str, int]] = []
    release = threading.Event()

    def slow(key: str, n: int) -> None:
        release.wait(5)
        done.append((key, n))

    def failing(key: str, n: int) -> None:
        raise RuntimeError("lost connection")

    started = time.monotonic()
    for n in range(5):
        writer._in_order("pod:ns/a", slow, "a", n)
        writer._in_order("pod:ns/a", failing, "a", -1)  # a failed write does not stop the queue
        writer._in_order("pod:ns/b", slow, "b", n)
    assert time.monotonic() - started < 1
    release.set()
    writer._pool.shutdown(wait=True)
    assert [n for key, n in done if key == "a"] == list(range(5))
    assert [n for key, n in done if key == "b"] == list(range(5))
    assert writer._queues == {}
