"""The Job integration (alpha profile, WorkloadWithJob): the Job controller makes a Workload and
a PodGroup for each new Job and keeps the gang's minCount in step with the Job.

The catalogue has no ID for the creation behaviour (its section 5); gangconf calls it
GANG-JOB-001. Job pods are this test's pods (pool nodeSelector and toleration, the scheduler
under test) through the pod template.

v1.37.2 differs from the catalogue here: the catalogue says the Job controller writes
``scheduling.k8s.io/v1alpha3`` objects, but v1.37.2's controller uses the v1beta1 client (the
PodGroup's owner reference to its Workload says ``scheduling.k8s.io/v1beta1``), and it sets no
managed-by annotation on either object.
"""

from __future__ import annotations

import pytest

from fixtures import BETA, NodeShape, api_version, gang_min_count

#: The alphabet Kubernetes' rand.SafeEncodeString maps characters onto.
_SAFE = "bcdfghjklmnpqrstvwxz2456789"


def _fnv32a(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def _safe(text: str) -> str:
    return "".join(_SAFE[ord(ch) % len(_SAFE)] for ch in text)


def _workload_name(job: str, uid: str) -> str:
    """``<job name>-<hash of the Job's UID>`` (the hash of the UID as the controller prints it)."""
    return f"{job}-{_safe(str(_fnv32a(f'(types.UID){uid}'.encode())))}"


def _pod_group_name(workload: str, template: str) -> str:
    """``<workload>-<template>-<hash of both names>`` (short names: nothing is truncated)."""
    return f"{workload}-{template}-{_safe(str(_fnv32a((workload + template).encode())))}"


def _owner(refs: list[dict], kind: str) -> dict:
    found = [r for r in refs or [] if r.get("kind") == kind]
    assert len(found) == 1, refs
    return found[0]


@pytest.mark.conformance(id="GANG-JOB-001", profile="alpha")
def test_new_job_gets_a_workload_and_a_gang_pod_group(pool, gang, recorder, timeouts):
    """Behaviour: GANG-JOB-001 (catalogue section 5, Job controller integration), profile alpha.

    Requirement: with WorkloadWithJob on, the Job controller MUST give a new Job with
    ``spec.scheduling`` a Workload named ``<job>-<hash of the Job UID>`` with one template
    ``<job>-pgt-0``, and a PodGroup ``<workload>-<template>-<hash>``. The Job MUST be the
    controller owner of both; the Workload MUST carry ``spec.controllerRef`` = {batch, Job,
    <job>} and be a non-controller owner of the PodGroup; the gang's ``minCount`` MUST default to
    ``parallelism``; every pod MUST carry ``spec.schedulingGroup.podGroupName`` = the PodGroup;
    the Job MUST get the events ``WorkloadCreated`` and ``PodGroupCreated``. The scheduler then
    places the pods as one gang.

    Scenario:
      1. A pool of 3 nodes; Job ``train`` with parallelism 3 and ``spec.scheduling`` = gang
         without minCount.
      2. The Job gets ``Created Workload <w> for Job train`` and ``Created PodGroup <pg> for Job
         train``; the Workload and PodGroup have the names, owners and fields above.
      3. The 3 pods name the PodGroup, are all bound, and the PodGroup reports Scheduled.
    """
    pool.add(3, NodeShape(cpu="4"))
    job = gang.job("train", parallelism=3, cpu="1")
    workload = _workload_name("train", job["metadata"]["uid"])
    template = "train-pgt-0"
    group = _pod_group_name(workload, template)

    state = recorder.eventually(
        lambda s: s.events_for("train", "WorkloadCreated") and s.events_for("train", "PodGroupCreated")
        and group in s.podgroups,
        timeout=timeouts.scheduler_reacts, describe=f"the Workload and PodGroup {group} made for Job train")
    assert state.events_for("train", "WorkloadCreated")[0]["message"] == f"Created Workload {workload} for Job train"
    assert state.events_for("train", "PodGroupCreated")[0]["message"] == f"Created PodGroup {group} for Job train"

    job_ref = {"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": job["metadata"]["uid"],
               "controller": True, "blockOwnerDeletion": True}
    wl = gang.get_workload(workload)
    assert wl["metadata"].get("ownerReferences") == [job_ref], wl["metadata"]
    assert wl["spec"].get("controllerRef") == {"apiGroup": "batch", "kind": "Job", "name": "train"}, wl["spec"]
    (tmpl,) = wl["spec"]["podGroupTemplates"]
    assert tmpl["name"] == template and tmpl["schedulingPolicy"] == {"gang": {"minCount": 3}}, tmpl

    pg = state.podgroups[group]
    assert _owner(pg["metadata"].get("ownerReferences"), "Job") == job_ref, pg["metadata"]
    to_workload = _owner(pg["metadata"]["ownerReferences"], "Workload")
    assert to_workload["name"] == workload and to_workload["uid"] == wl["metadata"]["uid"], to_workload
    assert not to_workload.get("controller") and not to_workload.get("blockOwnerDeletion"), to_workload
    assert to_workload["apiVersion"] == api_version(BETA), to_workload
    assert pg["spec"]["workloadRef"] == {"workloadName": workload, "templateName": template}, pg["spec"]
    assert gang_min_count(pg) == 3, pg["spec"]

    state = recorder.eventually(lambda s: len(s.bound(group)) == 3, timeout=timeouts.gang_scheduled,
                                describe="the Job's 3 pods bound as one gang")
    assert len(state.members(group)) == 3, state.summary()
    recorder.eventually(lambda s: (s.group_condition(group) or {}).get("status") == "True",
                        timeout=timeouts.scheduler_reacts, describe="the Job's PodGroup reports Scheduled")


@pytest.mark.conformance(id="GANG-MINCOUNT-004", profile="alpha")
def test_job_min_count_change_reaches_its_pod_group_and_workload(pool, gang, recorder, timeouts):
    """Behaviour: GANG-MINCOUNT-004, profile alpha.

    Requirement: a change of ``Job.spec.scheduling.schedulingPolicy.gang.minCount`` (the one
    mutable field of ``spec.scheduling``) MUST reach the PodGroup and the Workload template the
    Job controller made, and the scheduler MUST act on it.

    Scenario:
      1. A pool of 3 nodes with 4 CPUs; Job ``resize`` with parallelism 4, pods of 4 CPUs, gang
         without minCount (so 4): only 3 fit, the PodGroup reports Unschedulable, nothing is bound.
      2. Patch the Job's gang minCount to 3: the PodGroup's minCount becomes 3, then the
         Workload's template says 3 as well, and 3 pods are bound.
    """
    pool.add(3, NodeShape(cpu="4"))
    job = gang.job("resize", parallelism=4, cpu="4")
    workload = _workload_name("resize", job["metadata"]["uid"])
    group = _pod_group_name(workload, "resize-pgt-0")
    state = recorder.eventually(lambda s: (s.group_condition(group) or {}).get("status") == "False",
                                timeout=timeouts.scheduler_reacts,
                                describe=f"PodGroup {group} reports that 4 members do not fit")
    assert gang_min_count(state.podgroups[group]) == 4 and not state.bound(group), state.summary()

    gang.patch_job("resize", {"spec": {"scheduling": {"schedulingPolicy": {"gang": {"minCount": 3}}}}})
    recorder.eventually(lambda s: gang_min_count(s.podgroups.get(group) or {}) == 3, timeout=timeouts.scheduler_reacts,
                        describe="the PodGroup's minCount follows the Job's to 3")
    (tmpl,) = gang.get_workload(workload)["spec"]["podGroupTemplates"]
    assert tmpl["schedulingPolicy"] == {"gang": {"minCount": 3}}, tmpl
    recorder.eventually(lambda s: len(s.bound(group)) == 3, timeout=timeouts.gang_scheduled,
                        describe="3 pods bound once minCount is 3")
