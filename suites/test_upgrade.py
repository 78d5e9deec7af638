"""Upgrading gang scheduling from v1.36 (alpha, scheduling.k8s.io/v1alpha2) to v1.37 (beta, v1beta1).

Each check starts its own cluster from v1.36.3 binaries under ``kind-configs/gang-alpha-1.36.yaml``
and swaps kube-apiserver, kube-controller-manager and kube-scheduler for v1.37.2 on the same
etcd (etcd and the fake nodes keep running; the ``upgrade`` fixture). They run with
``--profile upgrade`` on the local provider only, and are reported not applicable elsewhere.

v1.37 has no conversion from v1alpha2 (catalogue section 4): the release note of the beta
promotion says to delete every v1alpha2 object before upgrading. GANG-UPGRADE-001 follows that
path, GANG-UPGRADE-002 what happens without it and the documented recovery (deleting each
unreadable object with the delete option ``ignoreStoreReadErrorWithClusterBreakingPotential``,
behind the ``AllowUnsafeMalformedObjectDeletion`` gate, beta and on by default in v1.37, and the
``unsafe-delete-ignore-read-errors`` verb, which the harness's system:masters identity has).
"""

from __future__ import annotations

import dataclasses

import pytest

from fixtures import (BETA, GROUP, PROTECTION_FINALIZER, SCHEDULING, V1_36, ClusterUnavailable, NodeShape, api_version,
                      assert_refused, node_name, parse_flags)

TEMPLATES = [{"name": "crew", "schedulingPolicy": {"gang": {"minCount": 2}}},
             {"name": "late", "schedulingPolicy": {"gang": {"minCount": 3}}}]
REMOVED_GATES = ("GangScheduling", "WorkloadAwarePreemption")


def _identity(pod) -> tuple[str, str | None, str]:
    """What must not change for a bound pod across the upgrade: UID, node, resourceVersion."""
    return pod["metadata"]["uid"], node_name(pod), pod["metadata"]["resourceVersion"]


def _changed(state, before: dict[str, tuple]) -> list[str]:
    """The pods of ``before`` that are gone or differ in UID, node or resourceVersion in ``state``."""
    return [n for n, ident in before.items() if n not in state.pods or _identity(state.pods[n]) != ident]


def _start_v136_gangs(cluster, *, nodes: int):
    """On v1.36.3: Workload ``train`` and PodGroups ``crew`` (minCount 2, both members bound and
    Running, so that nothing is left to write to them) and ``late`` (minCount 3, 2 members: below
    quorum, pending); return the v1alpha2 builder, recorder and state."""
    cluster.pool.add(nodes, NodeShape(cpu="2"))
    old = cluster.builder("v1alpha2")
    old.create(old.workload_manifest("train", TEMPLATES))
    old.pod_group("crew", min_count=2, workload=("train", "crew"))
    old.pod_group("late", min_count=3, workload=("train", "late"))
    recorder = cluster.recorder("v1alpha2")
    old.pods("crew", 2, group="crew", cpu="2")
    old.pods("late", 2, group="late", cpu="2")
    state = recorder.eventually(
        lambda s: all(s.phase(n) == "Running" for n in ("crew-0", "crew-1")) and {"late-0", "late-1"} <= set(s.pods)
        and (s.group_condition("crew", "PodGroupScheduled") or {}).get("status") == "True",
        timeout=cluster.timeouts.gang_scheduled,
        describe="v1.36.3 binds both crew members (Running) and reports PodGroupScheduled=True; late's 2 members exist")
    assert state.group_condition("crew", "PodGroupScheduled")["reason"] == "Scheduled", state.summary()
    assert not state.bound("late"), state.summary()
    return old, recorder, state


@pytest.mark.slow("starts a v1.36.3 and a v1.37.2 control plane on one etcd")
@pytest.mark.conformance(id="GANG-UPGRADE-001", profile="upgrade")
def test_bound_pods_stay_and_recreated_groups_are_gang_scheduled_when_v1alpha2_objects_are_deleted_first(
        upgrade, timeouts):
    """Behaviour: GANG-UPGRADE-001, profile upgrade.

    Requirement: upgrading v1.36 to v1.37 the supported way (every scheduling.k8s.io/v1alpha2
    object deleted before the upgrade, then recreated as v1beta1) MUST leave bound pods untouched
    (same node, same UID, no write at all: same resourceVersion), MUST keep the pending pods'
    ``spec.schedulingGroup``, and the recreated PodGroups MUST be gang-scheduled by v1.37.2: no
    member bound while the whole gang does not fit, all bound once it does, and
    ``PodGroupInitiallyScheduled=True`` (reason ``Scheduled``).

    v1.36.3 keeps a deleted PodGroup Terminating while pods refer to it (its protection
    finalizer); a user deleting the objects with the pods still there must remove the finalizer,
    as this check does. A recreated PodGroup whose members are all bound gets no condition from
    v1.37.2 (no member is left to schedule, so no cycle runs).

    Scenario:
      1. v1.36.3 with the 1.36 gates: 4 nodes of 2 CPUs; Workload ``train`` and v1alpha2
         PodGroups ``crew`` (gang, minCount 2) and ``late`` (gang, minCount 3); ``crew-0``/``crew-1``
         are bound (PodGroupScheduled=True), ``late-0``/``late-1`` pending below quorum.
      2. Delete the PodGroups (Terminating, held by the finalizer), remove the finalizers, delete
         the Workload: no v1alpha2 object is left.
      3. Swap to v1.37.2 with the beta gates on the same etcd: only v1beta1 is served.
      4. All 4 pods are there with the same UID, node and resourceVersion; the pending ones still
         name ``late`` in ``spec.schedulingGroup``.
      5. Recreate ``train``, ``crew`` and ``late`` as v1beta1 and add ``late-2`` (quorum reached,
         but only 2 nodes are free): ``late`` gets PodGroupInitiallyScheduled=False/Unschedulable,
         and over the ``stays_pending`` window no ``late`` member is bound while the crew pods
         never change (watched through the upgrade).
      6. Add a node: all 3 ``late`` members are bound, PodGroupInitiallyScheduled=True/Scheduled;
         the crew pods are still exactly as before the upgrade.
    """
    cluster = upgrade.start(upgrade.source)
    old, through, state = _start_v136_gangs(cluster, nodes=4)
    before = {n: _identity(state.pods[n]) for n in ("crew-0", "crew-1", "late-0", "late-1")}
    crew = {n: before[n] for n in ("crew-0", "crew-1")}
    since = through.mark()

    for group in ("crew", "late"):
        old.delete_pod_group(group)
    state = through.eventually(
        lambda s: all((s.podgroups.get(g) or {}).get("metadata", {}).get("deletionTimestamp") for g in ("crew", "late")),
        timeout=timeouts.observe, describe="both v1alpha2 PodGroups Terminating")
    assert all(PROTECTION_FINALIZER in state.podgroups[g]["metadata"].get("finalizers", []) for g in ("crew", "late")), \
        {g: state.podgroups[g]["metadata"] for g in ("crew", "late")}
    for group in ("crew", "late"):
        old.drop_finalizers(group)
    old.delete_workload("train")
    through.eventually(lambda s: not s.podgroups, timeout=timeouts.cleanup, describe="no v1alpha2 PodGroup left")
    workloads = old.custom.list_namespaced_custom_object(GROUP, V1_36, cluster.namespace, "workloads")
    assert workloads["items"] == [], workloads["items"]

    cluster.swap(upgrade.target)
    served = cluster.served()
    assert "v1beta1" in served and "v1alpha2" not in served, served

    after = cluster.recorder()
    state = after.eventually(lambda s: set(before) <= set(s.pods), timeout=timeouts.observe,
                             describe="the 4 pods written by v1.36.3 are listed by v1.37.2")
    assert {n: _identity(state.pods[n]) for n in before} == before, state.summary()
    assert all(state.pods[n]["spec"].get("schedulingGroup") == {"podGroupName": "late"} for n in ("late-0", "late-1")), \
        {n: state.pods[n]["spec"].get("schedulingGroup") for n in ("late-0", "late-1")}

    new = cluster.builder()
    new.create(new.workload_manifest("train", TEMPLATES))
    new.pod_group("crew", min_count=2, workload=("train", "crew"))
    new.pod_group("late", min_count=3, workload=("train", "late"))
    new.pod("late-2", group="late", cpu="2")
    state = after.eventually(lambda s: (s.group_condition("late") or {}).get("status") == "False",
                             timeout=timeouts.scheduler_reacts,
                             describe="late's cycle fails: 3 members, room for 2")
    cond = state.group_condition("late")
    assert cond["reason"] == "Unschedulable" and cond["message"].startswith("minCount (3) cannot be satisfied: "), cond
    through.never(lambda s: _changed(s, crew) or s.bound("late"), window=timeouts.stays_pending, after=since,
                  describe="the crew pods never change across the upgrade and no late member is bound "
                           "while the gang does not fit")

    cluster.pool.add(1, NodeShape(cpu="2"), prefix="extra")
    state = after.eventually(
        lambda s: len(s.bound("late")) == 3 and (s.group_condition("late") or {}).get("status") == "True",
        timeout=timeouts.gang_scheduled, describe="all 3 late members bound and late Scheduled once it fits")
    assert state.group_condition("late")["reason"] == "Scheduled", state.summary()
    assert not _changed(through.current(), crew), through.current().summary()


@pytest.mark.slow("starts a v1.36.3 and a v1.37.2 control plane on one etcd")
@pytest.mark.conformance(id="GANG-UPGRADE-002", profile="upgrade")
def test_podgroup_reads_fail_and_nothing_is_scheduled_when_v1alpha2_objects_survive_the_upgrade(upgrade, timeouts):
    """Behaviour: GANG-UPGRADE-002, profile upgrade.

    Requirement: v1.37 cannot read Workloads or PodGroups stored as scheduling.k8s.io/v1alpha2
    (there is no conversion). After an upgrade that leaves them in etcd, the API server MUST
    refuse to list them (429 ``TooManyRequests``, naming each ``corrupt object`` and that no
    v1alpha2 kind is registered) and to read or delete them normally (500 ``corrupt object``),
    kube-scheduler MUST NOT schedule anything (it waits for its PodGroup informer to sync), and
    bound pods MUST stay untouched. Deleting every leftover with
    ``ignoreStoreReadErrorWithClusterBreakingPotential`` MUST recover the cluster: lists answer,
    the scheduler schedules again, and v1beta1 PodGroups created afterwards are gang-scheduled.

    v1.37.2 as observed: the API server's readiness waits out its storage-initialization timeout
    (1 minute) and then reports ready anyway, logging "Deadline exceeded while waiting for
    storage readiness... ignoring"; kube-scheduler is live (``/healthz``) but not ready
    (``/readyz``) and binds not even a pod without a group. After the deletion the scheduler
    works again only once its list is retried, after the API server's 30 s ``Retry-After``.

    Scenario:
      1. v1.36.3 with the 1.36 gates: 4 nodes of 2 CPUs; Workload ``train``, PodGroups ``crew``
         (both members bound) and ``late`` (minCount 3, 2 members pending).
      2. Swap to v1.37.2 without deleting them (waiting for the controllers' liveness only).
      3. LIST of podgroups and of workloads: 429 naming the corrupt keys; GET and a plain DELETE of
         ``crew``: 500 ``corrupt object``.
      4. Create a pod without a group: over the ``stays_pending`` window nothing is bound and the
         crew pods do not change; the scheduler is alive but not ready.
      5. Delete ``crew``, ``late`` and ``train`` with ``ignoreStoreReadErrorWithClusterBreakingPotential``:
         each answers 200 Success; the lists answer 200 with no item.
      6. Within ``storage_recovers`` the plain pod is bound and the scheduler is ready.
      7. Add 2 nodes, recreate the groups as v1beta1 and add ``late-2``: all 3 ``late`` members are
         bound and ``late`` is Scheduled; the crew pods never changed.
    """
    cluster = upgrade.start(upgrade.source)
    _, through, state = _start_v136_gangs(cluster, nodes=4)
    crew = {n: _identity(state.pods[n]) for n in ("crew-0", "crew-1")}
    since = through.mark()

    cluster.swap(upgrade.target, wait_for="live")
    apiserver_log = cluster.component_log("kube-apiserver").read_text(errors="replace")
    assert "Deadline exceeded while waiting for storage readiness... ignoring" in apiserver_log
    new = cluster.builder()
    leftovers = {"podgroups": ("crew", "late"), "workloads": ("train",)}
    for plural, names in leftovers.items():
        status = assert_refused(new.custom.list_namespaced_custom_object, *SCHEDULING, cluster.namespace, plural,
                                status=429, reason="TooManyRequests")
        kind = "PodGroup" if plural == "podgroups" else "Workload"
        message = status["message"]
        assert "corrupt object" in message and f"/registry/{plural}/{cluster.namespace}/{names[0]}" in message, message
        assert f'no kind "{kind}" is registered for version "scheduling.k8s.io/v1alpha2"' in message, message
        if len(names) > 1:
            assert message.endswith(f"(and {len(names) - 1} more)"), message
    for call in (lambda: new.get_pod_group("crew"), lambda: new.custom.delete_namespaced_custom_object(
            *SCHEDULING, cluster.namespace, "podgroups", "crew")):
        assert_refused(call, status=500, reason="InternalError", text="corrupt object")

    pods = cluster.recorder(podgroups=False)  # a v1beta1 PodGroup list would not answer yet
    new.pod("plain", cpu="1")
    through.never(lambda s: _changed(s, crew) or s.bound(prefix="plain") or s.bound("late"),
                  window=timeouts.stays_pending, after=since,
                  describe="v1.37.2 schedules nothing while v1alpha2 objects it cannot read remain, "
                           "and the crew pods do not change")
    assert cluster.answers("kube-scheduler", "healthz") and not cluster.answers("kube-scheduler", "readyz"), \
        cluster.component_log("kube-scheduler")

    for plural, names in leftovers.items():
        for name in names:
            answer = cluster.unsafe_delete(BETA, plural, name)
            assert answer.get("status") == "Success" and answer["details"]["name"] == name, answer
    state = pods.eventually(lambda s: s.bound(prefix="plain"), timeout=timeouts.storage_recovers,
                            describe="the scheduler binds again once the leftovers are deleted")
    for plural in leftovers:
        listing = new.custom.list_namespaced_custom_object(*SCHEDULING, cluster.namespace, plural)
        assert listing["items"] == [], listing["items"]
    assert cluster.answers("kube-scheduler", "readyz"), cluster.component_log("kube-scheduler")

    cluster.pool.add(2, NodeShape(cpu="2"), prefix="extra")  # plain took a node: room for 3 more gang members
    after = cluster.recorder()
    new.create(new.workload_manifest("train", TEMPLATES))
    new.pod_group("crew", min_count=2, workload=("train", "crew"))
    new.pod_group("late", min_count=3, workload=("train", "late"))
    new.pod("late-2", group="late", cpu="2")
    state = after.eventually(
        lambda s: len(s.bound("late")) == 3 and (s.group_condition("late") or {}).get("status") == "True",
        timeout=timeouts.gang_scheduled, describe="the recreated late gang is bound whole and Scheduled")
    assert state.group_condition("late")["reason"] == "Scheduled", state.summary()
    assert not _changed(through.current(), crew), through.current().summary()


@pytest.mark.slow("starts a v1.36.3 and a v1.37.2 control plane on one etcd")
@pytest.mark.conformance(id="GANG-UPGRADE-003", profile="upgrade")
def test_components_refuse_to_start_when_given_a_gate_v1_37_removed(upgrade, timeouts):
    """Behaviour: GANG-UPGRADE-003, profile upgrade.

    Requirement: ``GangScheduling`` and ``WorkloadAwarePreemption`` (merged into GenericWorkload)
    do not exist in v1.37: kube-apiserver, kube-controller-manager and kube-scheduler v1.37.2 given
    either MUST exit at flag parsing with ``unrecognized feature gate: <gate>``, where v1.36.3
    accepts both. An upgrade that keeps the v1.36 flags MUST fail at once, with a one-line
    harness verdict naming the component and the gate, and MUST leave the stored data intact for a
    start with the right flags.

    v1.37.2's exact text is ``"command failed" err="unrecognized feature gate: GangScheduling"``
    (exit code 1), the same for the three components. Given both removed gates at once it names
    only one of them, and which one varies from start to start (the gates are parsed from a map).

    Scenario:
      1. v1.36.3 with the 1.36 gates (GenericWorkload, GangScheduling, WorkloadAwarePreemption); a
         plain pod ``survivor`` is bound.
      2. Swap the binaries to v1.37.2 but keep the 1.36 profile: the harness raises
         ClusterUnavailable in one line naming kube-apiserver and one removed gate with v1.37.2's
         text; no controller was started after it.
      3. Each v1.37.2 component parses ``--feature-gates=<gate>=true`` for both removed gates: exit
         code 1 and the exact text; each v1.36.3 component parses the 1.36 gates (both of them
         included) and prints its version.
      4. Swap to v1.37.2 with the beta gates: the cluster is ready and ``survivor`` is unchanged
         (same node, UID and resourceVersion).
    """
    cluster = upgrade.start(upgrade.source)
    cluster.pool.add(1, NodeShape(cpu="2"))
    recorder = cluster.recorder("v1alpha2")
    cluster.builder().pod("survivor", cpu="1")
    state = recorder.eventually(lambda s: s.phase("survivor") == "Running", timeout=timeouts.gang_scheduled,
                                describe="v1.36.3 binds the survivor pod and it runs")
    survivor = _identity(state.pods["survivor"])

    with pytest.raises(ClusterUnavailable) as info:
        cluster.swap(dataclasses.replace(upgrade.target, profile=upgrade.source.profile))
    verdict = str(info.value)
    assert "\n" not in verdict, verdict
    named = [g for g in REMOVED_GATES
             if verdict.startswith(f"kube-apiserver v1.37.2 refused feature gate {g} and exited with code 1: ")]
    assert len(named) == 1, verdict
    assert f'"command failed" err="unrecognized feature gate: {named[0]}"' in verdict, verdict
    assert cluster.running_components() == ["etcd", "kwok"], cluster.running_components()

    old_gates = f"--feature-gates={upgrade.source.profile.feature_gates_flag()}"
    for component in ("kube-apiserver", "kube-controller-manager", "kube-scheduler"):
        for gate in REMOVED_GATES:
            refused = parse_flags(upgrade.target.binaries, component, [f"--feature-gates={gate}=true"],
                                  timeout=timeouts.observe)
            assert refused.exit_code == 1, refused
            assert f'"command failed" err="unrecognized feature gate: {gate}"' in refused.output, refused
        accepted = parse_flags(upgrade.source.binaries, component, [old_gates], timeout=timeouts.observe)
        assert accepted.exit_code == 0 and accepted.output.endswith("Kubernetes v1.36.3"), accepted

    cluster.swap(upgrade.target)
    state = cluster.recorder().eventually(lambda s: "survivor" in s.pods, timeout=timeouts.observe,
                                          describe="the survivor pod is listed by v1.37.2")
    assert _identity(state.pods["survivor"]) == survivor, state.summary()


@pytest.mark.slow("starts a v1.36.3 and a v1.37.2 control plane on one etcd")
@pytest.mark.conformance(id="GANG-UPGRADE-004", profile="upgrade")
def test_v1alpha2_and_string_disruption_modes_are_refused_when_the_cluster_runs_v1_37(upgrade, timeouts):
    """Behaviour: GANG-UPGRADE-004, profile upgrade.

    Requirement: v1.37.2 MUST NOT serve scheduling.k8s.io/v1alpha2 (absent from discovery, 404 on
    a request, and an API server asked to serve it by ``--runtime-config`` MUST NOT start). A
    v1.36 manifest whose ``disruptionMode`` is a string (``Pod`` or ``PodGroup``) MUST be rejected
    by v1.37.2, and the 1.37 union form (``{single: {}}`` or ``{all: {}}``) MUST be accepted.

    v1.37.2 differs from the catalogue only in detail: the string is rejected as a decode error,
    400 ``BadRequest`` (``cannot unmarshal string into Go struct field ... of type
    v1beta1.DisruptionMode``), not 422; the API server asked for v1alpha2 exits at start with
    ``group version scheduling.k8s.io/v1alpha2 that has not been registered``.

    Scenario:
      1. v1.36.3 with the 1.36 gates: PodGroups with ``disruptionMode: Pod`` and ``PodGroup`` and a
         Workload whose template says ``PodGroup`` are accepted as written (stored as strings).
      2. Delete them (the supported path) and swap to v1.37.2.
      3. Discovery lists v1 and v1beta1 of scheduling.k8s.io, not v1alpha2; listing v1alpha2
         PodGroups answers 404.
      4. The same manifests sent as v1beta1 answer 400 BadRequest naming ``disruptionMode``;
         PodGroups with ``{single: {}}`` and ``{all: {}}`` are created and read back as written.
      5. Swap to v1.37.2 asking for ``scheduling.k8s.io/v1alpha2`` in the runtime-config: the harness
         raises ClusterUnavailable with the API server's refusal.
    """
    cluster = upgrade.start(upgrade.source)
    old = cluster.builder("v1alpha2")
    manifests = [old.pod_group_manifest(f"mode-{mode.lower()}", min_count=1, disruption=mode)
                 for mode in ("Pod", "PodGroup")]
    template = {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 1}}, "disruptionMode": "PodGroup"}
    manifests.append(old.workload_manifest("train", [template]))
    created = [old.create(manifest) for manifest in manifests]
    assert [created[0]["spec"]["disruptionMode"], created[1]["spec"]["disruptionMode"],
            created[2]["spec"]["podGroupTemplates"][0]["disruptionMode"]] == ["Pod", "PodGroup", "PodGroup"], created
    for manifest in manifests[:2]:
        old.delete_pod_group(manifest["metadata"]["name"])
        old.drop_finalizers(manifest["metadata"]["name"])
    old.delete_workload("train")
    remaining = old.custom.list_namespaced_custom_object(GROUP, V1_36, cluster.namespace, "podgroups")
    assert remaining["items"] == [], remaining["items"]

    cluster.swap(upgrade.target)
    assert set(cluster.served()) == {"v1", "v1beta1"}, cluster.served()
    new = cluster.builder()
    assert_refused(old.custom.list_namespaced_custom_object, GROUP, V1_36, cluster.namespace, "podgroups", status=404)

    for manifest in manifests:
        resent = {**manifest, "apiVersion": api_version(BETA)}
        where = "PodGroupSpec.spec.disruptionMode" if manifest["kind"] == "PodGroup" else \
            "PodGroupTemplate.spec.podGroupTemplates.disruptionMode"
        assert_refused(new.create, resent, status=400, reason="BadRequest",
                       text=f"cannot unmarshal string into Go struct field {where} of type v1beta1.DisruptionMode")
    for mode in ("single", "all"):
        new.pod_group(f"union-{mode}", min_count=1, disruption=mode)
        assert new.get_pod_group(f"union-{mode}")["spec"]["disruptionMode"] == {mode: {}}

    asks_for_v1alpha2 = dataclasses.replace(
        upgrade.target.profile,
        runtime_config={**upgrade.target.profile.runtime_config, api_version(V1_36): "true"})
    with pytest.raises(ClusterUnavailable) as info:
        cluster.swap(dataclasses.replace(upgrade.target, profile=asks_for_v1alpha2))
    verdict = str(info.value)
    assert "\n" not in verdict and verdict.startswith("kube-apiserver exited with code 1 during start-up: "), verdict
    assert 'err="group version scheduling.k8s.io/v1alpha2 that has not been registered"' in verdict, verdict
