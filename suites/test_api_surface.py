"""The Workload and PodGroup API of scheduling.k8s.io/v1beta1, as v1.37 serves it.

What the API server refuses is checked in the test_validation_*.py files (GANG-VALIDATION-NN).
"""

from __future__ import annotations

import pytest
from kubernetes import client

from fixtures import PROTECTION_FINALIZER, SCHEDULING


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
    resources = client.CustomObjectsApi(cluster_api).get_api_resources(*SCHEDULING).resources
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
        assert PROTECTION_FINALIZER in (created["metadata"].get("finalizers") or []), created["metadata"]
