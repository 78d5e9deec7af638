"""The fake nodes and their kwok-played kubelet, on the session's real cluster.

What the suites rely on: a pool's nodes are Ready and untainted (apart from the pool's own
taint) and stay so, their leases are renewed, bound pods become Running, a gracefully
deleted pod finishes deleting (so preemption victims go away), and a test can finish a pod.
"""

from __future__ import annotations

from kubernetes import client, watch

from fixtures.pools import POOL_KEY, NodeShape


def test_pool_nodes_are_ready_with_their_capacity_and_only_the_pool_taint(pool, cluster_api):
    names = pool.add(2, NodeShape(cpu="3", memory="5Gi", gpus=2))
    core = client.CoreV1Api(cluster_api)
    for name in names:
        node = core.read_node(name)
        assert node.status.allocatable["nvidia.com/gpu"] == "2" and node.status.allocatable["cpu"] == "3"
        assert node.status.allocatable["pods"] == "110"
        assert [t.key for t in node.spec.taints] == [POOL_KEY]
        assert node.metadata.labels[POOL_KEY] == pool.id
        ready = next(c for c in node.status.conditions if c.type == "Ready")
        assert ready.status == "True"


def test_node_leases_are_renewed(pool, cluster_api, timeouts):
    (name,) = pool.add(1)
    leases = client.CoordinationV1Api(cluster_api)
    renewals = set()
    w = watch.Watch()
    for event in w.stream(leases.list_namespaced_lease, "kube-node-lease", field_selector=f"metadata.name={name}",
                          timeout_seconds=int(timeouts.nodes_ready)):
        renewals.add(event["object"].spec.renew_time)
        if len(renewals) >= 2:
            w.stop()
    assert len(renewals) >= 2, f"lease of {name} not renewed within {timeouts.nodes_ready:.0f}s: {renewals}"


def test_bound_pods_run_and_graceful_deletion_completes(pool, gang, recorder, timeouts, cluster_api):
    pool.add(1)
    gang.pod("worker")
    recorder.eventually(lambda s: s.phase("worker") == "Running",
                        timeout=timeouts.gang_scheduled, describe="the bound pod is Running")
    # A graceful delete (the default grace period), as the scheduler does to preemption victims.
    mark = recorder.mark()
    client.CoreV1Api(cluster_api).delete_namespaced_pod("worker", gang.namespace)
    recorder.eventually(lambda s: "worker" not in s.pods, timeout=timeouts.cleanup, after=mark,
                        describe="the deleted pod is gone, not left Terminating")


def test_a_test_can_finish_a_pod(pool, gang, recorder, timeouts):
    pool.add(1)
    gang.pod("done")
    gang.pod("broken")
    recorder.eventually(lambda s: s.phase("done") == s.phase("broken") == "Running",
                        timeout=timeouts.gang_scheduled, describe="both pods Running")
    gang.mark_phase("done", "Succeeded")
    gang.mark_phase("broken", "Failed")
    recorder.eventually(
        lambda s: s.phase("done") == "Succeeded" and s.phase("broken") == "Failed",
        timeout=timeouts.observe, describe="the phases the test set")
    # kwok must not move them back to Running.
    recorder.never(lambda s: s.phase("done") != "Succeeded" or s.phase("broken") != "Failed",
                   window=timeouts.stays_pending, describe="finished pods stay finished", after=recorder.mark())
