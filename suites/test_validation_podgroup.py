"""What the API server refuses (and what it accepts) in a PodGroup (beta).

The behaviour catalogue numbers the API server's validation rules in its section 2.1 without
giving them IDs; gangconf names rule N ``GANG-VALIDATION-NN``. Each check asserts the HTTP status
(422 Invalid, 400 for a body that does not decode, 403 for an admission plugin), the field path
of the cause and a substring of its message, or, where a rule says something is accepted, that
the request succeeds and the object reads back as sent. Where a rule covers a PodGroup and a
Workload template alike, both are checked here. The PodGroups here never get members, so they
name no priority class unless a check gives one (``base_class=False``: on a shared cluster the
builder would give them gangconf's), and rule 14 checks what admission gives a PodGroup that names
none.

Several fields are dropped silently by the API server while their feature gate is off; a beta
check asserts that where the gate is off and is not applicable where the profile turns the gate
on (the alpha check in ``test_validation_composite.py`` then asserts the validation).
"""

from __future__ import annotations

import pytest
from kubernetes import client

from fixtures import PROTECTION_FINALIZER, assert_refused, messages, template

TOPOLOGY = "TopologyAwareWorkloadScheduling"
COMPOSITE = "CompositePodGroup"
PREEMPTION_POLICY = "PodGroupPreemptionPolicy"
CLAIMS = "DRAWorkloadResourceClaims"


def _not_applicable_when(profile, gate: str, check: str) -> None:
    if profile.gate(gate):
        pytest.skip(f"not applicable: the profile turns {gate} on, so the field is validated instead of "
                    f"dropped; {check} (alpha) checks that")


# -- rule 8: one kind of scheduling policy -------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-08", profile="beta")
@pytest.mark.parametrize(("policy", "message"), [
    pytest.param({"basic": {}, "gang": {"minCount": 1}}, "must specify exactly one of: `basic`, `gang`", id="both"),
    pytest.param({}, "must specify one of: `basic`, `gang`", id="neither"),
    pytest.param(None, "must specify one of: `basic`, `gang`", id="missing"),
])
@pytest.mark.parametrize("kind", ["PodGroup", "Workload"])
def test_scheduling_policy_is_rejected_unless_exactly_one_kind_is_set(gang, kind, policy, message):
    """Behaviour: GANG-VALIDATION-08 (catalogue section 2.1 rule 8), profile beta.

    Requirement: a PodGroup's and a PodGroupTemplate's ``schedulingPolicy`` MUST set exactly one
    of ``basic`` and ``gang``: both give 422 ``must specify exactly one of: `basic`, `gang```,
    neither (or no policy at all) gives ``must specify one of: `basic`, `gang```.

    Scenario:
      1. Create a PodGroup, or a Workload with one template, with the given policy; expect 422 at
         its ``schedulingPolicy``.
    """
    if kind == "PodGroup":
        manifest = gang.pod_group_manifest("pg")
        field = "spec.schedulingPolicy"
        target = manifest["spec"]
    else:
        manifest = gang.workload_manifest("w", [{"name": "a"}])
        field = "spec.podGroupTemplates[0].schedulingPolicy"
        target = manifest["spec"]["podGroupTemplates"][0]
    if policy is None:
        target.pop("schedulingPolicy", None)
    else:
        target["schedulingPolicy"] = policy
    assert_refused(gang.create, manifest, field=field, text=message)


# -- rule 9: minCount and minGroupCount ----------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-09", profile="beta")
@pytest.mark.parametrize(
    ("min_count", "message"),
    [(0, messages.REQUIRED), (-1, "must be greater than or equal to 1")],
    ids=["zero", "negative"],
)
def test_podgroup_is_rejected_when_min_count_is_below_one(gang, min_count, message):
    """Behaviour: GANG-VALIDATION-09 (catalogue section 2.1 rule 9), profile beta.

    Requirement: the API server MUST reject a PodGroup, and a Workload template, whose
    ``gang.minCount`` is below 1 with 422 Invalid: 0 counts as missing (``Required value``), a
    negative value gives ``must be greater than or equal to 1``. A PodGroup with minCount 1 MUST be
    accepted.

    Scenario:
      1. Create a PodGroup with the given minCount; expect 422 at spec.schedulingPolicy.gang.minCount.
      2. Create a Workload whose template has it; expect 422 at the template's minCount.
      3. Create the same PodGroup with minCount 1; expect success.
    """
    assert_refused(lambda: gang.pod_group("bad", min_count=min_count), field="spec.schedulingPolicy.gang.minCount",
                   text=message)
    assert_refused(gang.create, gang.workload_manifest("bad", [template("a", min_count=min_count)]),
                   field="spec.podGroupTemplates[0].schedulingPolicy.gang.minCount", text=message)
    assert gang.pod_group("good", min_count=1)["spec"]["schedulingPolicy"]["gang"]["minCount"] == 1


# -- rule 10: what may change in a scheduling policy ---------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-10", profile="beta")
@pytest.mark.parametrize(("kind", "before", "after", "field", "message"), [
    pytest.param("PodGroup", 2, None, "spec.schedulingPolicy.gang", "field cannot be cleared once set",
                 id="podgroup-gang-to-basic"),
    pytest.param("PodGroup", None, 2, "spec.schedulingPolicy.gang", "field cannot be set once created",
                 id="podgroup-basic-to-gang"),
    pytest.param("Workload", None, 2, "spec.podGroupTemplates[0].schedulingPolicy.gang",
                 "field cannot be set once created", id="template-basic-to-gang"),
    pytest.param("Workload", 2, None, "spec.podGroupTemplates[0].schedulingPolicy.gang",
                 "field cannot be cleared once set", id="template-gang-to-basic"),
])
def test_scheduling_policy_kind_cannot_change_but_min_count_can(gang, kind, before, after, field, message):
    """Behaviour: GANG-VALIDATION-10 (catalogue section 2.1 rule 10), profile beta.

    Requirement: the kind of a scheduling policy MUST NOT change after create: ``gang`` cannot be
    set on a basic policy (422 ``field cannot be set once created``) nor cleared from a gang one
    (``field cannot be cleared once set``), on a PodGroup and on a Workload template alike.
    ``gang.minCount`` MUST stay mutable on both: a gang's minCount changed from 2 to 5 is accepted
    and stored.

    Scenario:
      1. Create a PodGroup (or a Workload with one template) with the policy ``before``.
      2. Patch the policy to ``after``; expect 422 at the given field.
      3. On the gang object (the same one, or a new one when ``before`` is basic), patch minCount
         to 5; expect success and read back 5.
    """
    def policy(min_count: int | None) -> dict:
        return {"gang": {"minCount": min_count}, "basic": None} if min_count else {"basic": {}, "gang": None}

    if kind == "PodGroup":
        gang.pod_group("pg", min_count=before)
        assert_refused(lambda: gang.patch("PodGroup", "pg", {"spec": {"schedulingPolicy": policy(after)}}),
                       field=field, text=message)
        name = "pg" if before else gang.pod_group("pg-gang", min_count=2)["metadata"]["name"]
        assert gang.set_min_count(name, 5)["spec"]["schedulingPolicy"] == {"gang": {"minCount": 5}}
        return
    gang.create(gang.workload_manifest("w", [template("a", min_count=before)]))
    assert_refused(lambda: gang.patch("Workload", "w", {"spec": {"podGroupTemplates": [template("a", min_count=after)]}}),
                   field=field, text=message)
    name = "w" if before else gang.create(gang.workload_manifest("w-gang", [template("a", min_count=2)]))["metadata"][
        "name"]
    spec = gang.patch("Workload", name, {"spec": {"podGroupTemplates": [template("a", min_count=5)]}})["spec"]
    assert spec["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 5}}, spec


# -- rule 12: topology constraints ---------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-12", profile="beta")
def test_scheduling_constraints_are_dropped_when_topology_scheduling_is_off(gang, profile):
    """Behaviour: GANG-VALIDATION-12 (catalogue section 2.1 rule 12), profile beta.

    Requirement: while TopologyAwareWorkloadScheduling is off in the API server,
    ``schedulingConstraints`` MUST be dropped silently on create, even when it would be invalid
    (two topology entries), on a PodGroup and on a Workload template.

    Scenario:
      1. Create a PodGroup and a Workload whose template both have two topology entries.
      2. Both are created, and neither keeps ``schedulingConstraints``.
    """
    _not_applicable_when(profile, TOPOLOGY, "test_topology_constraint_is_rejected_when_malformed_or_changed")
    two = {"topology": [{"key": "rack"}, {"key": "zone"}]}
    spec = gang.create(gang.pod_group_manifest("pg", min_count=2, base_class=False, schedulingConstraints=two))["spec"]
    assert "schedulingConstraints" not in spec, spec
    workload = gang.create(gang.workload_manifest("w", [template("a", min_count=1, schedulingConstraints=two)]))
    assert not workload["spec"]["podGroupTemplates"][0].get("schedulingConstraints"), workload["spec"]


# -- rule 13: disruptionMode ---------------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-13", profile="beta")
@pytest.mark.parametrize(("kind", "mode", "status", "field", "message"), [
    pytest.param("PodGroup", {"single": {}, "all": {}}, 422, "spec.disruptionMode",
                 "must specify exactly one of: `single`, `all`", id="podgroup-both"),
    pytest.param("PodGroup", {}, 422, "spec.disruptionMode", "must specify one of: `single`, `all`",
                 id="podgroup-neither"),
    pytest.param("PodGroup", {"pod": {}}, 422, "spec.disruptionMode", "must specify one of: `single`, `all`",
                 id="podgroup-unknown-member"),
    pytest.param("PodGroup", "PodGroup", 400, None, "cannot unmarshal string", id="podgroup-1.36-string"),
    pytest.param("Workload", {"single": {}, "all": {}}, 422, "spec.podGroupTemplates[0].disruptionMode",
                 "must specify exactly one of: `single`, `all`", id="template-both"),
    pytest.param("Workload", "Pod", 400, None, "cannot unmarshal string", id="template-1.36-string"),
])
def test_disruption_mode_is_rejected_unless_it_is_one_of_single_and_all(gang, kind, mode, status, field, message):
    """Behaviour: GANG-VALIDATION-13 (catalogue section 2.1 rule 13), profile beta.

    Requirement: ``disruptionMode`` MUST be an object with exactly one of ``single: {}`` and
    ``all: {}``: both give 422 ``must specify exactly one of: `single`, `all```, neither (or only an
    unknown member, which is dropped) ``must specify one of: `single`, `all```. The 1.36 string form
    (``Pod``, ``PodGroup``) does not decode: 400 BadRequest, ``cannot unmarshal string``. A valid
    mode is kept and is immutable (422 ``field is immutable``).

    The catalogue infers the 400 for the string form; v1.37.2 confirms it (the body never reaches
    validation, so there is no 422 and no field path).

    Scenario:
      1. Create a PodGroup, or a Workload with one template, with the given disruptionMode; expect
         the given status and text.
      2. Create a PodGroup with ``all: {}``: it is kept as sent.
      3. Patch it to ``single: {}``; expect 422 ``field is immutable`` at spec.disruptionMode.
    """
    if kind == "PodGroup":
        manifest = gang.pod_group_manifest("bad", min_count=2, base_class=False, disruptionMode=mode)
    else:
        manifest = gang.workload_manifest("bad", [template("a", min_count=1, disruptionMode=mode)])
    assert_refused(gang.create, manifest, status=status, field=field, text=message)

    assert gang.pod_group("all", min_count=2, disruption="all")["spec"]["disruptionMode"] == {"all": {}}
    assert_refused(lambda: gang.patch("PodGroup", "all", {"spec": {"disruptionMode": {"all": None, "single": {}}}}),
                   field="spec.disruptionMode", text=messages.IMMUTABLE)


# -- rule 14: priority ---------------------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-14", profile="beta")
def test_podgroup_priority_is_resolved_by_admission_and_then_fixed(gang, cluster_api):
    """Behaviour: GANG-VALIDATION-14 (catalogue section 2.1 rule 14), profile beta.

    Requirement: Priority admission MUST resolve a PodGroup's ``priorityClassName`` into
    ``spec.priority`` (no class: the global default class's value, else 0) and MUST refuse, with
    403, a class that does not exist (``no PriorityClass with name <n> was found``) and a
    ``priority`` that differs from the one it computes (``priority set in the pod group (<p>) must
    match the priority computed (<q>)``). Once created, ``priorityClassName`` and ``priority`` are
    immutable (422 ``field is immutable``).

    v1.37.2 differs from the catalogue: Priority admission runs before validation, so a PodGroup
    whose class name is not a DNS subdomain gets the admission's 403 (``no PriorityClass with name
    Bad_Class was found``), never the 422 DNS-subdomain message; and the catalogue's maximum
    priority (1000000000) is never reached on a PodGroup, because any explicit ``priority`` that
    differs from the computed one is refused with 403 first.

    Scenario:
      1. Create a PriorityClass of value 1000 (unique to the test, deleted at teardown).
      2. PodGroups naming a missing class, a malformed class, or with priority 5 and no class:
         each gets 403 with the admission's message.
      3. A PodGroup naming the class gets priority 1000; one with no class gets the global default.
      4. Patching the first one's priority or class gives 422 ``field is immutable``.
    """
    high = gang.priority_class("high", 1000)
    assert_refused(gang.create,
                   gang.pod_group_manifest("missing", min_count=2, base_class=False, priorityClassName="no-such-class"),
                   status=403, text="no PriorityClass with name no-such-class was found")
    assert_refused(gang.create,
                   gang.pod_group_manifest("malformed", min_count=2, base_class=False, priorityClassName="Bad_Class"),
                   status=403, text="no PriorityClass with name Bad_Class was found")
    default = next((pc.value for pc in client.SchedulingV1Api(cluster_api).list_priority_class().items
                    if pc.global_default), 0)
    assert_refused(gang.create,
                   gang.pod_group_manifest("explicit", min_count=2, base_class=False, priority=default + 5),
                   status=403,
                   text=f"priority set in the pod group ({default + 5}) must match the priority computed ({default})")

    named = gang.create(gang.pod_group_manifest("high", min_count=2, base_class=False, priorityClassName=high))
    assert named["spec"]["priority"] == gang.priority_value(high)
    assert gang.create(gang.pod_group_manifest("plain", min_count=2, base_class=False))["spec"]["priority"] == default
    assert_refused(lambda: gang.patch("PodGroup", "high", {"spec": {"priority": 7}}), field="spec.priority",
                   text=messages.IMMUTABLE)
    assert_refused(lambda: gang.patch("PodGroup", "high", {"spec": {"priorityClassName": "system-cluster-critical"}}),
                   field="spec.priorityClassName", text=messages.IMMUTABLE)


# -- rule 15: preemptionPolicy -------------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-15", profile="beta")
def test_preemption_policy_is_dropped_when_its_gate_is_off(gang, profile):
    """Behaviour: GANG-VALIDATION-15 (catalogue section 2.1 rule 15), profile beta.

    Requirement: while PodGroupPreemptionPolicy is off in the API server, ``preemptionPolicy`` MUST
    be dropped silently on create, whatever its value, on a PodGroup and on a Workload template.

    Scenario:
      1. Create PodGroups with ``preemptionPolicy`` ``Never`` and ``Sometimes`` (not a policy), and
         a Workload whose template has ``Sometimes``.
      2. All are created without ``preemptionPolicy``.
    """
    _not_applicable_when(profile, PREEMPTION_POLICY, "test_preemption_policy_is_admitted_against_the_priority_class")
    for name, value in (("never", "Never"), ("unknown", "Sometimes")):
        spec = gang.create(gang.pod_group_manifest(name, min_count=2, base_class=False, preemptionPolicy=value))["spec"]
        assert "preemptionPolicy" not in spec, spec
    workload = gang.create(gang.workload_manifest("w", [template("a", min_count=1, preemptionPolicy="Sometimes")]))
    assert "preemptionPolicy" not in workload["spec"]["podGroupTemplates"][0], workload["spec"]


# -- rule 16: resource claims --------------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-16", profile="beta")
def test_resource_claims_are_dropped_when_their_gate_is_off(gang, profile):
    """Behaviour: GANG-VALIDATION-16 (catalogue section 2.1 rule 16), profile beta.

    Requirement: while DRAWorkloadResourceClaims is off in the API server (its v1.37 default, and
    so in both gangconf profiles), ``resourceClaims`` MUST be dropped silently on create, even when
    it breaks every rule of the catalogue (5 entries, an entry with both or neither source, a name
    that is not a DNS label), on a PodGroup and on a Workload template; and
    ``status.resourceClaimStatuses`` MUST be dropped from a status update.

    v1.37.2 and the gangconf profiles: the catalogue's claim rules (at most 4, exactly one source,
    DNS-label names, immutability, status names matching spec entries) apply only with the gate
    on, which neither profile turns on (the gate is beta but off by default), so on these clusters
    they are unobservable; what is observable is that the fields are dropped.

    Scenario:
      1. Create a PodGroup with 5 claims, one of them with both sources, one with none and one
         badly named, and a Workload template with a badly named claim: both are created without
         ``resourceClaims``.
      2. Write ``status.resourceClaimStatuses`` naming no spec entry through the status
         subresource: accepted, and the PodGroup has no resourceClaimStatuses.
    """
    if profile.gate(CLAIMS):
        pytest.skip(f"not applicable: the profile turns {CLAIMS} on; this check asserts the fields are dropped")
    claims = [{"name": "both", "resourceClaimName": "x", "resourceClaimTemplateName": "y"}, {"name": "neither"},
              {"name": "Bad_Name", "resourceClaimName": "x"}, {"name": "d", "resourceClaimName": "x"},
              {"name": "e", "resourceClaimName": "x"}]
    spec = gang.create(gang.pod_group_manifest("claims", min_count=2, base_class=False, resourceClaims=claims))["spec"]
    assert "resourceClaims" not in spec, spec
    workload = gang.create(gang.workload_manifest(
        "w", [template("a", min_count=1, resourceClaims=[{"name": "Bad_Name"}])]))
    assert "resourceClaims" not in workload["spec"]["podGroupTemplates"][0], workload["spec"]

    gang.patch("PodGroup", "claims", {"status": {"resourceClaimStatuses": [{"name": "other", "resourceClaimName": "x"}]}},
               status=True)
    assert "resourceClaimStatuses" not in (gang.get_pod_group("claims").get("status") or {})


# -- rule 17: names and references ---------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-17", profile="beta")
@pytest.mark.parametrize(("kind", "name", "message"), [
    pytest.param("PodGroup", "Bad_Name", messages.DNS_SUBDOMAIN, id="podgroup-not-a-subdomain"),
    pytest.param("PodGroup", "a" * 254, "must be no more than 253 characters", id="podgroup-too-long"),
    pytest.param("Workload", "Bad_Name", messages.DNS_SUBDOMAIN, id="workload-not-a-subdomain"),
])
def test_object_name_is_rejected_unless_it_is_a_dns_subdomain(gang, kind, name, message):
    """Behaviour: GANG-VALIDATION-17 (catalogue section 2.1 rule 17), profile beta.

    Requirement: Workload and PodGroup names MUST be DNS subdomains: a name that is not gives 422 at
    ``metadata.name``; a dotted name, which is a subdomain, MUST be accepted.

    Scenario:
      1. Create the object with the given name; expect 422 at metadata.name.
      2. Create one named ``team.trainer``; expect success.
    """
    manifest = (gang.pod_group_manifest(name, min_count=2) if kind == "PodGroup"
                else gang.workload_manifest(name, [template("a", min_count=1)]))
    assert_refused(gang.create, manifest, field="metadata.name", text=message)
    ok = (gang.pod_group_manifest("team.trainer", min_count=2) if kind == "PodGroup"
          else gang.workload_manifest("team.trainer", [template("a", min_count=1)]))
    assert gang.create(ok)["metadata"]["name"] == "team.trainer"


@pytest.mark.conformance(id="GANG-VALIDATION-17", profile="beta")
@pytest.mark.parametrize(("ref", "field", "message"), [
    pytest.param({"workloadName": "Bad_Name", "templateName": "t"}, "spec.workloadRef.workloadName", messages.DNS_SUBDOMAIN,
                 id="workload-name-not-a-subdomain"),
    pytest.param({"workloadName": "w", "templateName": "a.b"}, "spec.workloadRef.templateName", messages.NO_DOTS,
                 id="template-name-not-a-label"),
    pytest.param({"workloadName": "w"}, "spec.workloadRef.templateName", messages.REQUIRED, id="template-name-missing"),
    pytest.param({"templateName": "t"}, "spec.workloadRef.workloadName", messages.REQUIRED, id="workload-name-missing"),
])
def test_workload_ref_is_rejected_when_malformed_and_is_immutable(gang, ref, field, message):
    """Behaviour: GANG-VALIDATION-17 (catalogue section 2.1 rule 17), profile beta.

    Requirement: a PodGroup's ``workloadRef`` needs ``workloadName`` (a DNS subdomain) and
    ``templateName`` (a DNS label), both required (422 ``Required value``, or the name message).
    ``workloadRef`` is immutable: changing, removing or adding it after create gives 422
    ``field is immutable`` at ``spec.workloadRef``.

    Scenario:
      1. Create a PodGroup with the given workloadRef; expect 422 at the given field.
      2. Create a PodGroup with a valid workloadRef, and one without.
      3. Change and remove the first one's reference, add one to the second: each gives 422.
    """
    assert_refused(gang.create, gang.pod_group_manifest("bad", min_count=2, base_class=False, workloadRef=ref),
                   field=field, text=message)
    gang.pod_group("with-ref", min_count=2, workload=("training", "workers"))
    gang.pod_group("without-ref", min_count=2)
    for name, patch in (("with-ref", {"workloadName": "other"}), ("with-ref", None),
                        ("without-ref", {"workloadName": "training", "templateName": "workers"})):
        assert_refused(lambda: gang.patch("PodGroup", name, {"spec": {"workloadRef": patch}}),
                       field="spec.workloadRef", text=messages.IMMUTABLE)


@pytest.mark.conformance(id="GANG-VALIDATION-17", profile="beta")
def test_parent_composite_name_is_dropped_when_composite_pod_groups_are_off(gang, profile):
    """Behaviour: GANG-VALIDATION-17 (catalogue section 2.1 rule 17), profile beta.

    Requirement: while CompositePodGroup is off in the API server, a PodGroup's
    ``parentCompositePodGroupName`` MUST be dropped silently on create, even when it is malformed
    or set without the ``workloadRef`` it requires with the gate on.

    Scenario:
      1. Create a PodGroup with a parent and no workloadRef, and one with a malformed parent.
      2. Both are created without ``parentCompositePodGroupName``.
    """
    _not_applicable_when(profile, COMPOSITE, "test_parent_composite_name_needs_a_workload_ref_and_is_immutable")
    for name, spec in (("no-ref", {"parentCompositePodGroupName": "root"}),
                       ("malformed", {"parentCompositePodGroupName": "Bad_Name",
                                      "workloadRef": {"workloadName": "w", "templateName": "t"}})):
        created = gang.create(gang.pod_group_manifest(name, min_count=2, base_class=False, **spec))["spec"]
        assert "parentCompositePodGroupName" not in created, created


# -- rule 19: status conditions ------------------------------------------------------------------------------


PROBE_CONDITION = {"type": "GangconfProbe", "status": "True", "reason": "Probed", "message": "written by gangconf",
                   "lastTransitionTime": "2026-01-01T00:00:00Z"}


@pytest.mark.conformance(id="GANG-VALIDATION-19", profile="beta")
@pytest.mark.parametrize(("change", "field", "message"), [
    pytest.param({"status": "Maybe"}, "status.conditions[0].status", 'Unsupported value: "Maybe"', id="status"),
    pytest.param({"reason": ""}, "status.conditions[0].reason", messages.REQUIRED, id="reason-missing"),
    pytest.param({"reason": "not a reason!"}, "status.conditions[0].reason", "a condition reason must start with",
                 id="reason-malformed"),
    pytest.param({"lastTransitionTime": None}, "status.conditions[0].lastTransitionTime", messages.REQUIRED,
                 id="transition-time-missing"),
])
def test_podgroup_conditions_are_validated_and_written_only_through_status(gang, change, field, message):
    """Behaviour: GANG-VALIDATION-19 (catalogue section 2.1 rule 19), profile beta.

    Requirement: PodGroup conditions are written through the ``status`` subresource only and MUST
    pass the standard condition validation there (422 at ``status.conditions[i].<field>``). A
    status sent with a create or with an update of the PodGroup itself MUST be ignored.

    Scenario:
      1. Create a PodGroup with a condition in its status: it is created with no conditions.
      2. Write a condition with the given flaw through the status subresource; expect 422.
      3. Write a valid condition through it; it is stored.
      4. Patch the PodGroup itself with a different reason: the stored condition is unchanged.
    """
    manifest = gang.pod_group_manifest("pg", min_count=2)
    manifest["status"] = {"conditions": [PROBE_CONDITION]}
    assert not (gang.create(manifest).get("status") or {}).get("conditions")

    flawed = {k: v for k, v in {**PROBE_CONDITION, **change}.items() if v is not None}
    assert_refused(lambda: gang.patch("PodGroup", "pg", {"status": {"conditions": [flawed]}}, status=True),
                   field=field, text=message)
    gang.patch("PodGroup", "pg", {"status": {"conditions": [PROBE_CONDITION]}}, status=True)
    gang.patch("PodGroup", "pg", {"status": {"conditions": [{**PROBE_CONDITION, "reason": "Overwritten"}]}})
    stored = [c for c in (gang.get_pod_group("pg").get("status") or {}).get("conditions") or []
              if c["type"] == PROBE_CONDITION["type"]]
    assert [c["reason"] for c in stored] == ["Probed"], stored


# -- rule 21: references to objects that do not exist --------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-21", profile="beta")
def test_podgroup_with_a_dangling_workload_ref_is_accepted(gang):
    """Behaviour: GANG-VALIDATION-21 (catalogue section 2.1 rule 21), profile beta.

    Requirement: v1.37 does not check references: a PodGroup whose ``workloadRef`` names a
    Workload that does not exist, or a template the Workload does not have, MUST be accepted (201)
    and kept as sent. (1.36's PodGroupWorkloadExists admission refused both with 403; v1.37
    removed it.)

    Scenario:
      1. Create a PodGroup referring to a missing Workload: created, reference kept.
      2. Create Workload ``training`` with template ``workers``, and a PodGroup referring to its
         template ``nope``: created, reference kept.
    """
    ref = {"workloadName": "missing", "templateName": "workers"}
    orphan = gang.create(gang.pod_group_manifest("orphan", min_count=2, base_class=False, workloadRef=ref))
    assert orphan["spec"]["workloadRef"] == ref
    gang.create(gang.workload_manifest("training", [template("workers", min_count=2)]))
    ref = {"workloadName": "training", "templateName": "nope"}
    unknown = gang.create(gang.pod_group_manifest("unknown-template", min_count=2, base_class=False, workloadRef=ref))
    assert unknown["spec"]["workloadRef"] == ref


# -- rule 22: a pod may join a terminating PodGroup ----------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-22", profile="beta")
def test_pod_joining_a_terminating_podgroup_is_accepted(gang, recorder, timeouts):
    """Behaviour: GANG-VALIDATION-22 (catalogue section 2.1 rule 22), profile beta.

    Requirement: in v1.37 the PodGroupProtection admission plugin only adds the finalizer (in the
    create response) and refuses nothing: a pod that names a PodGroup which is being deleted MUST
    be accepted (201). (The validating step that refuses it, ``cannot create Pod referencing
    PodGroup "<n>" because it is being deleted``, exists only after v1.37.)

    Scenario:
      1. Create gang PodGroup ``leaving`` (it carries the protection finalizer) and a member pod,
         which keeps the PodGroup from going away.
      2. Delete the PodGroup: it is recorded Terminating (deletionTimestamp set, finalizer kept).
      3. Create a second member pod: it is created, naming the terminating PodGroup.
    """
    created = gang.pod_group("leaving", min_count=2)
    assert PROTECTION_FINALIZER in created["metadata"].get("finalizers", []), created["metadata"]
    gang.pod("leaving-0", group="leaving")
    recorder.eventually(lambda s: "leaving-0" in s.pods, timeout=timeouts.observe, describe="the member is recorded")
    gang.delete_pod_group("leaving")
    recorder.eventually(lambda s: (s.podgroups.get("leaving") or {}).get("metadata", {}).get("deletionTimestamp"),
                        timeout=timeouts.observe, describe="PodGroup 'leaving' is Terminating")
    late = gang.pod("leaving-1", group="leaving")
    assert late["spec"]["schedulingGroup"] == {"podGroupName": "leaving"}
