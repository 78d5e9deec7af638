"""What the API server refuses (and what it accepts) in a pod's ``spec.schedulingGroup`` (beta).

The behaviour catalogue numbers the API server's validation rules in its section 2.1 without
giving them IDs; gangconf names rule N ``GANG-VALIDATION-NN``; rule 20 is the pod's.
"""

from __future__ import annotations

import pytest

from fixtures import assert_refused, messages


# -- rule 20: the pod's schedulingGroup ----------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-20", profile="beta")
@pytest.mark.parametrize(("group", "message"), [
    pytest.param({"podGroupName": ""}, messages.DNS_SUBDOMAIN, id="empty-name"),
    pytest.param({}, "must specify one of: `podGroupName`", id="no-name"),
    pytest.param({"podGroupName": "Bad_Name"}, messages.DNS_SUBDOMAIN, id="not-a-subdomain"),
])
def test_pod_scheduling_group_is_rejected_when_malformed_and_cannot_change(gang, group, message):
    """Behaviour: GANG-VALIDATION-20 (catalogue section 2.1 rule 20), profile beta.

    Requirement: a pod's ``spec.schedulingGroup.podGroupName`` is required and MUST be a DNS
    subdomain (422 at ``spec.schedulingGroup.podGroupName``); a dotted name is accepted. It cannot
    change after create: setting, changing or removing it is refused with 422.

    v1.37.2 differs from the catalogue in the texts: an empty name gets the DNS-subdomain message,
    not ``Required value``, and a schedulingGroup without podGroupName ``must specify one of:
    `podGroupName```; the immutability is the generic pod-update rule (422 ``Forbidden: pod
    updates may not change fields other than ...`` at ``spec``), not ``field is immutable``.

    Scenario:
      1. Create a pod with the given schedulingGroup; expect 422.
      2. Create a pod in group ``team.trainer`` (dotted), and one without a group.
      3. Change and remove the first pod's group, add one to the second: each gives 422 at spec.
    """
    bad = gang.pod_manifest("bad", group="x")
    bad["spec"]["schedulingGroup"] = group
    assert_refused(gang.create, bad, field="spec.schedulingGroup.podGroupName", text=message)

    grouped = gang.pod("grouped", group="team.trainer")
    assert grouped["spec"]["schedulingGroup"] == {"podGroupName": "team.trainer"}
    gang.pod("plain")
    forbidden = "pod updates may not change fields other than"
    for name, value in (("grouped", {"podGroupName": "other"}), ("grouped", None), ("plain", {"podGroupName": "g"})):
        assert_refused(lambda: gang.patch("Pod", name, {"spec": {"schedulingGroup": value}}), field="spec",
                       text=forbidden)
