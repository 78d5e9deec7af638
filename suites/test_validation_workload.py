"""What the API server refuses (and what it accepts) in a Workload and its PodGroupTemplates (beta).

The behaviour catalogue numbers the API server's validation rules in its section 2.1 without
giving them IDs; gangconf names rule N ``GANG-VALIDATION-NN``. Each check asserts the HTTP status
(422 Invalid), the field path of the cause and a substring of its message, or, where a rule says
something is accepted, that the request succeeds and the object reads back as sent (Priority
admission does not look at Workloads). The alpha variants (CompositePodGroupTemplates) are in
``test_validation_composite.py``; a Workload's policies and their kinds in
``test_validation_podgroup.py``, beside the PodGroup's.
"""

from __future__ import annotations

import pytest

from fixtures import assert_refused, composite_template, messages, template

COMPOSITE = "CompositePodGroup"


# -- rule 1: the Workload's template lists -------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-01", profile="beta")
@pytest.mark.parametrize("lists", ["neither", "both", "composite-only"])
def test_workload_is_rejected_unless_exactly_one_template_list_is_set(gang, profile, lists):
    """Behaviour: GANG-VALIDATION-01 (catalogue section 2.1 rule 1), profile beta.

    Requirement: a Workload MUST set exactly one of ``spec.podGroupTemplates`` and
    ``spec.compositePodGroupTemplates``; neither is refused with 422 and
    ``must specify one of: `podGroupTemplates`, `compositePodGroupTemplates``` at ``spec``. With the
    CompositePodGroup gate off the API server drops ``compositePodGroupTemplates``, so a Workload
    with both lists is accepted with the composite list gone, and one with only the composite list
    fails the union; with the gate on, both lists give ``must specify exactly one of`` and the
    composite list alone is accepted.

    Scenario:
      1. Create a Workload with neither list, with both, or with the composite list only.
      2. Expect the answer above for this profile's CompositePodGroup gate.
    """
    composite = [composite_template("composite", pod_groups=[template("workers", min_count=1)])]
    templates = {"neither": (None, None), "both": ([template("solo", min_count=1)], composite),
                 "composite-only": (None, composite)}[lists]
    manifest = gang.workload_manifest(f"w-{lists}", templates[0], composite=templates[1])
    gate = profile.gate(COMPOSITE)
    if lists == "neither" or (lists == "composite-only" and not gate):
        assert_refused(gang.create, manifest, field="spec",
                       text="must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`")
    elif lists == "both" and gate:
        assert_refused(gang.create, manifest, field="spec",
                       text="must specify exactly one of: `podGroupTemplates`, `compositePodGroupTemplates`")
    else:
        spec = gang.create(manifest)["spec"]
        if lists == "both":
            assert not spec.get("compositePodGroupTemplates") and spec["podGroupTemplates"][0]["name"] == "solo", spec
        else:
            assert spec["compositePodGroupTemplates"][0]["name"] == "composite", spec


# -- rule 2: at most 8 templates per list --------------------------------------------------------------------


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
        return [template(f"t{i}", min_count=1) for i in range(n)]

    assert_refused(gang.create, gang.workload_manifest("nine", templates(9)), field="spec.podGroupTemplates",
                   text=messages.AT_MOST_8)
    created = gang.create(gang.workload_manifest("eight", templates(8)))
    assert len(created["spec"]["podGroupTemplates"]) == 8


# -- rule 3: template names ----------------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-03", profile="beta")
@pytest.mark.parametrize(("names", "field", "message"), [
    pytest.param([""], "spec.podGroupTemplates[0].name", messages.REQUIRED, id="empty"),
    pytest.param(["Bad_Name"], "spec.podGroupTemplates[0].name", messages.DNS_LABEL, id="not-a-dns-label"),
    pytest.param(["a.b"], "spec.podGroupTemplates[0].name", messages.NO_DOTS, id="dotted"),
    pytest.param(["a", "a"], "spec.podGroupTemplates[1]", "Duplicate value", id="duplicate"),
])
def test_workload_template_name_is_rejected_when_empty_malformed_or_repeated(gang, names, field, message):
    """Behaviour: GANG-VALIDATION-03 (catalogue section 2.1 rule 3), profile beta.

    Requirement: a PodGroupTemplate's name is required and MUST be a DNS label, unique in its
    list: an empty name gives 422 ``Required value``, a name that is not a DNS label gives the
    RFC 1123 label message (a dotted name: ``must not contain dots``), and a repeated name gives
    ``Duplicate value`` at the second item. Distinct DNS-label names MUST be accepted.

    Scenario:
      1. Create a Workload whose templates have the given names; expect 422 at the given field.
      2. Create one with the names ``a`` and ``b``; expect success.
    """
    assert_refused(gang.create, gang.workload_manifest("w", [template(n, min_count=1) for n in names]), field=field,
                   text=message)
    ok = [template("a", min_count=1), template("b", min_count=1)]
    assert gang.create(gang.workload_manifest("ok", ok))["metadata"]["uid"]


# -- rule 6: one priority per Workload -----------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-06", profile="beta")
@pytest.mark.parametrize(("first", "second"), [
    pytest.param({"priorityClassName": "high"}, {"priorityClassName": "low"}, id="class-names"),
    pytest.param({"priority": 1}, {"priority": 2}, id="priorities"),
    pytest.param({"priority": 1}, {}, id="one-unset"),
])
def test_workload_is_rejected_when_its_templates_differ_in_priority(gang, first, second):
    """Behaviour: GANG-VALIDATION-06 (catalogue section 2.1 rule 6), profile beta.

    Requirement: all templates of a Workload MUST carry the same ``priorityClassName`` and
    ``priority``; templates that differ (including one set and one unset) give 422 with
    ``detected multiple priority configurations`` at ``spec``. Templates with the same class name
    MUST be accepted (the class need not exist: Priority admission does not look at Workloads).

    Scenario:
      1. Create a Workload with two templates that differ as given; expect 422 at spec.
      2. Create one whose two templates name the same class; expect success.
    """
    bad = [template("a", min_count=1, **first), template("b", min_count=1, **second)]
    assert_refused(gang.create, gang.workload_manifest("w", bad), field="spec",
                   text="detected multiple priority configurations")
    same = [template("a", min_count=1, priorityClassName="shared"),
            template("b", min_count=1, priorityClassName="shared")]
    assert gang.create(gang.workload_manifest("ok", same))["metadata"]["uid"]


# -- rule 7: what may change in a Workload's templates -------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-07", profile="beta")
@pytest.mark.parametrize(("after", "causes"), [
    pytest.param([template("a", min_count=2), template("b", min_count=2)], [("spec.podGroupTemplates[1]", messages.NOT_ADDED)],
                 id="add"),
    pytest.param([], [("spec.podGroupTemplates", messages.NOT_REMOVED)], id="remove"),
    pytest.param([template("z", min_count=2)],
                 [("spec.podGroupTemplates[0]", messages.NOT_ADDED), ("spec.podGroupTemplates", messages.NOT_REMOVED)],
                 id="rename"),
    pytest.param([template("a", min_count=2, disruptionMode={"all": {}})],
                 [("spec.podGroupTemplates[0].disruptionMode", messages.IMMUTABLE)], id="change-another-field"),
])
def test_workload_templates_are_fixed_after_create_except_min_count(gang, after, causes):
    """Behaviour: GANG-VALIDATION-07 (catalogue section 2.1 rule 7), profile beta.

    Requirement: templates MUST NOT be added to or removed from a Workload after it was created
    (422 ``item may not be added`` / ``item may not be removed``; renaming is both), and a
    template's other fields are immutable (``field is immutable``). ``gang.minCount`` of a template
    MUST stay mutable: changing it is accepted and stored.

    Scenario:
      1. Create a Workload with the gang template ``a`` (minCount 2).
      2. Patch its template list as given; expect 422 with the given causes.
      3. Patch ``a``'s minCount to 5; expect success, and read back 5.
    """
    gang.create(gang.workload_manifest("w", [template("a", min_count=2)]))
    assert_refused(lambda: gang.patch("Workload", "w", {"spec": {"podGroupTemplates": after}}), causes=causes)
    gang.patch("Workload", "w", {"spec": {"podGroupTemplates": [template("a", min_count=5)]}})
    assert gang.get_workload("w")["spec"]["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 5}}


# -- rule 14: priority ---------------------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-14", profile="beta")
@pytest.mark.parametrize(("fields", "field", "message"), [
    pytest.param({"priority": 1000000001}, "spec.podGroupTemplates[0].priority",
                 "must be less than or equal to 1000000000", id="priority-too-high"),
    pytest.param({"priorityClassName": "Bad_Class"}, "spec.podGroupTemplates[0].priorityClassName", messages.DNS_SUBDOMAIN,
                 id="class-not-a-dns-subdomain"),
])
def test_workload_template_priority_is_validated_but_not_admitted(gang, fields, field, message):
    """Behaviour: GANG-VALIDATION-14 (catalogue section 2.1 rule 14), profile beta.

    Requirement: a Workload template's ``priority`` MUST be at most 1000000000 (422 ``must be less
    than or equal to 1000000000``) and its ``priorityClassName`` a DNS subdomain (422, the
    RFC 1123 subdomain message). Priority admission does not look at Workloads: a template naming a
    class that does not exist MUST be accepted, and the priority at the maximum as well.

    Scenario:
      1. Create a Workload whose template has the given field; expect 422 there.
      2. Create one whose template names a class that does not exist and one with priority
         1000000000; both are accepted as sent.
    """
    assert_refused(gang.create, gang.workload_manifest("bad", [template("a", min_count=1, **fields)]), field=field,
                   text=message)
    unknown = gang.create(gang.workload_manifest(
        "unknown", [template("a", min_count=1, priorityClassName="no-such-class")]))
    assert unknown["spec"]["podGroupTemplates"][0]["priorityClassName"] == "no-such-class"
    top = gang.create(gang.workload_manifest("top", [template("a", min_count=1, priority=1000000000)]))
    assert top["spec"]["podGroupTemplates"][0]["priority"] == 1000000000


# -- rule 18: controllerRef ----------------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-18", profile="beta")
@pytest.mark.parametrize(("ref", "field", "message"), [
    pytest.param({"apiGroup": "batch", "name": "job"}, "spec.controllerRef.kind", messages.REQUIRED, id="kind-missing"),
    pytest.param({"apiGroup": "batch", "kind": "Job"}, "spec.controllerRef.name", messages.REQUIRED, id="name-missing"),
    pytest.param({"apiGroup": "Bad_Group", "kind": "Job", "name": "job"}, "spec.controllerRef.apiGroup", messages.DNS_SUBDOMAIN,
                 id="group-not-a-subdomain"),
    pytest.param({"apiGroup": "batch", "kind": "Job", "name": "a/b"}, "spec.controllerRef.name", "may not contain '/'",
                 id="name-not-a-path-segment"),
    pytest.param({"apiGroup": "batch", "kind": "a/b", "name": "job"}, "spec.controllerRef.kind", "may not contain '/'",
                 id="kind-not-a-path-segment"),
])
def test_controller_ref_is_rejected_when_malformed_and_is_immutable(gang, ref, field, message):
    """Behaviour: GANG-VALIDATION-18 (catalogue section 2.1 rule 18), profile beta.

    Requirement: a Workload's ``controllerRef`` needs ``kind`` and ``name`` (422 ``Required
    value``), both path-segment names (``may not contain '/'``), and an ``apiGroup`` that is a DNS
    subdomain. It is immutable: changing, removing or adding it gives 422 ``field is immutable``.

    Scenario:
      1. Create a Workload with the given controllerRef; expect 422 at the given field.
      2. Create one with controllerRef batch/Job/job, and one without.
      3. Change and remove the first one's controllerRef, add one to the second: each gives 422.
    """
    assert_refused(gang.create, gang.workload_manifest("bad", [template("a", min_count=1)], controllerRef=ref),
                   field=field, text=message)
    job = {"apiGroup": "batch", "kind": "Job", "name": "job"}
    owned = gang.create(gang.workload_manifest("owned", [template("a", min_count=1)], controllerRef=job))
    assert owned["spec"]["controllerRef"] == job
    gang.create(gang.workload_manifest("free", [template("a", min_count=1)]))
    for name, patch in (("owned", {"name": "other"}), ("owned", None), ("free", job)):
        assert_refused(lambda: gang.patch("Workload", name, {"spec": {"controllerRef": patch}}),
                       field="spec.controllerRef", text=messages.IMMUTABLE)
