"""The Workload and PodGroup API of scheduling.k8s.io/v1beta1, as v1.37 serves it.

The behaviour catalogue numbers the API server's validation rules in its
section 2.1 without giving them IDs; gangconf names them ``GANG-VALIDATION-<rule>``.
"""

from __future__ import annotations

import json

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

FINALIZER = "scheduling.k8s.io/podgroup-protection"


def _rejected(create) -> ApiException:
    __tracebackhide__ = True
    with pytest.raises(ApiException) as info:
        create()
    return info.value


def _causes(exc: ApiException) -> list[dict]:
    try:
        return (json.loads(exc.body).get("details") or {}).get("causes") or []
    except (TypeError, ValueError):
        return []


@pytest.mark.conformance(id="GANG-API-001", profile="beta")
def test_workload_and_podgroup_are_served_when_the_gate_and_api_are_on(cluster_api, gang):
    """Behaviour: GANG-API-001 (catalogue section 1.1), profile beta.

    Requirement: with GenericWorkload on and scheduling.k8s.io/v1beta1 enabled, the API server
    MUST serve the namespaced resources ``workloads`` and ``podgroups`` (with ``podgroups/status``)
    and accept a Workload and a PodGroup that refers to it.

    Scenario:
      1. Read the discovery document of scheduling.k8s.io/v1beta1.
      2. Create a Workload with one gang template, and a PodGroup whose workloadRef names it.
      3. Read both back.
    """
    resources = client.CustomObjectsApi(cluster_api).get_api_resources("scheduling.k8s.io", "v1beta1").resources
    by_name = {r.name: r for r in resources}
    assert {"workloads", "podgroups", "podgroups/status"} <= set(by_name), sorted(by_name)
    assert by_name["workloads"].namespaced and by_name["podgroups"].namespaced
    assert by_name["podgroups"].kind == "PodGroup" and by_name["workloads"].kind == "Workload"

    gang.create(gang.workload_manifest("training", [{"name": "workers", "schedulingPolicy": {"gang": {"minCount": 2}}}]))
    created = gang.pod_group("training-workers", min_count=2, workload=("training", "workers"))
    read = gang.get_pod_group("training-workers")
    assert read["spec"]["schedulingPolicy"] == {"gang": {"minCount": 2}}
    assert read["spec"]["workloadRef"] == {"workloadName": "training", "templateName": "workers"}
    assert read["metadata"]["uid"] == created["metadata"]["uid"]
    # disruptionMode is defaulted to single when omitted (catalogue section 1.2).
    assert read["spec"].get("disruptionMode") == {"single": {}}, read["spec"]


@pytest.mark.conformance(id="GANG-PROTECT-001", profile="beta")
def test_podgroup_carries_the_protection_finalizer_in_the_create_response(gang):
    """Behaviour: GANG-PROTECT-001, profile beta.

    Requirement: the PodGroupProtection admission plugin MUST add the finalizer
    ``scheduling.k8s.io/podgroup-protection`` to every new PodGroup, visible in the create response.

    Scenario:
      1. Create a gang PodGroup and a basic PodGroup, neither with finalizers.
      2. Both create responses list the finalizer.
    """
    for name, min_count in (("with-gang", 3), ("with-basic", None)):
        created = gang.pod_group(name, min_count=min_count)
        assert FINALIZER in (created["metadata"].get("finalizers") or []), created["metadata"]


@pytest.mark.conformance(id="GANG-VALIDATION-09", profile="beta")
@pytest.mark.parametrize(
    ("min_count", "message"),
    [(0, "Required value"), (-1, "must be greater than or equal to 1")],
    ids=["zero", "negative"],
)
def test_podgroup_is_rejected_when_min_count_is_below_one(gang, min_count, message):
    """Behaviour: GANG-VALIDATION-09 (catalogue section 2.1 rule 9), profile beta.

    Requirement: the API server MUST reject a PodGroup whose ``gang.minCount`` is below 1 with
    422 Invalid: 0 counts as missing (``Required value``), a negative value gives
    ``must be greater than or equal to 1``. A PodGroup with minCount 1 MUST be accepted.

    Scenario:
      1. Create a PodGroup with the given minCount; expect 422 naming spec.schedulingPolicy.gang.minCount.
      2. Create the same PodGroup with minCount 1; expect success.
    """
    exc = _rejected(lambda: gang.pod_group("bad", min_count=min_count))
    assert exc.status == 422, exc.body
    causes = _causes(exc)
    assert any("minCount" in (c.get("field") or "") and message in (c.get("message") or "") for c in causes), causes
    assert gang.pod_group("good", min_count=1)["spec"]["schedulingPolicy"]["gang"]["minCount"] == 1


@pytest.mark.conformance(id="GANG-VALIDATION-02", profile="beta")
def test_workload_is_rejected_when_it_has_more_than_eight_templates(gang):
    """Behaviour: GANG-VALIDATION-02 (catalogue section 2.1 rule 2), profile beta.

    Requirement: a Workload MUST hold at most 8 PodGroup templates; 9 MUST be rejected with
    422 and ``must have at most 8 items``, and 8 MUST be accepted.

    Scenario:
      1. Create a Workload with 9 gang templates; expect 422 on spec.podGroupTemplates.
      2. Create one with 8; expect success.
    """
    def templates(n: int) -> list[dict]:
        return [{"name": f"t{i}", "schedulingPolicy": {"gang": {"minCount": 1}}} for i in range(n)]

    exc = _rejected(lambda: gang.create(gang.workload_manifest("nine", templates(9))))
    assert exc.status == 422, exc.body
    causes = _causes(exc)
    assert any("podGroupTemplates" in (c.get("field") or "") and "must have at most 8 items" in (c.get("message") or "")
               for c in causes), causes
    created = gang.create(gang.workload_manifest("eight", templates(8)))
    assert len(created["spec"]["podGroupTemplates"]) == 8
