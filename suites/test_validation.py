"""What the API server refuses (and what it accepts) in Workloads, PodGroups, CompositePodGroups and pods.

The behaviour catalogue numbers the API server's validation rules in its section 2.1 without
giving them IDs; gangconf names rule N ``GANG-VALIDATION-NN``. Each check asserts the HTTP status
(422 Invalid, 400 for a body that does not decode, 403 for an admission plugin), the field path
of the cause and a substring of its message, or, where a rule says something is accepted, that
the request succeeds and the object reads back as sent.

Rules that need ``scheduling.k8s.io/v1alpha3`` (CompositePodGroup and its templates) are checked
in the alpha profile. Several fields are dropped silently by the API server while their feature
gate is off; a beta check asserts that where the gate is off and is not applicable where the
profile turns the gate on (the alpha check then asserts the validation).
"""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

ALPHA = "v1alpha3"
TOPOLOGY, COMPOSITE, PREEMPTION_POLICY, CLAIMS = (
    "TopologyAwareWorkloadScheduling", "CompositePodGroup", "PodGroupPreemptionPolicy", "DRAWorkloadResourceClaims")

# The texts v1.37.2 answers with (declarative validation and the core name validators).
REQUIRED = "Required value"
IMMUTABLE = "field is immutable"
DNS_LABEL = "a lowercase RFC 1123 label must consist of"
DNS_SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of"
NO_DOTS = "must not contain dots"
AT_MOST_8 = "must have at most 8 items"
NOT_ADDED, NOT_REMOVED = "item may not be added", "item may not be removed"


# -- helpers ----------------------------------------------------------------------------------------


def _rejected(call: Callable[[], Any]) -> ApiException:
    __tracebackhide__ = True
    with pytest.raises(ApiException) as info:
        call()
    return info.value


def _body(exc: ApiException) -> dict:
    try:
        return json.loads(exc.body) or {}
    except (TypeError, ValueError):
        return {"message": str(exc.body)}


def _causes(exc: ApiException) -> list[dict]:
    return (_body(exc).get("details") or {}).get("causes") or []


def _assert_refused(exc: ApiException, status: int, text: str, field: str | None = None) -> None:
    """``exc`` has ``status``; with ``field``, a cause at exactly that path whose message contains ``text``,
    else the response message contains ``text``."""
    __tracebackhide__ = True
    body = _body(exc)
    assert exc.status == status, f"expected HTTP {status}, got {exc.status}: {body.get('message')}"
    if field is None:
        assert text in (body.get("message") or ""), body.get("message")
    else:
        causes = [(c.get("field"), c.get("message")) for c in _causes(exc)]
        assert any(f == field and text in (m or "") for f, m in causes), \
            f"no cause at {field!r} containing {text!r}: {causes}"


def _refuses(call: Callable[[], Any], status: int, text: str, field: str | None = None) -> None:
    __tracebackhide__ = True
    _assert_refused(_rejected(call), status, text, field)


def _template(name: str, min_count: int | None = 1, **fields: Any) -> dict:
    """A PodGroupTemplate: ``gang`` with ``min_count``, or ``basic`` for None."""
    policy = {"basic": {}} if min_count is None else {"gang": {"minCount": min_count}}
    return {"name": name, "schedulingPolicy": policy, **fields}


def _composite(name: str, *, groups: list[dict] | None = None, composites: list[dict] | None = None,
               min_group_count: int | None = None, **fields: Any) -> dict:
    """A CompositePodGroupTemplate with the given children."""
    out: dict = {"name": name, "schedulingPolicy": {"basic": {}} if min_group_count is None
                 else {"gang": {"minGroupCount": min_group_count}}, **fields}
    if groups is not None:
        out["podGroupTemplates"] = groups
    if composites is not None:
        out["compositePodGroupTemplates"] = composites
    return out


def _chain(levels: int) -> dict:
    """``levels`` CompositePodGroupTemplates nested in one another, the innermost holding one PodGroupTemplate."""
    node = _composite(f"level-{levels}", groups=[_template("leaf")])
    for level in range(levels - 1, 0, -1):
        node = _composite(f"level-{level}", composites=[node])
    return node


def _pg(gang, name: str, **spec: Any) -> dict:
    """A gang PodGroup manifest (minCount 2) with extra spec fields and no priority class unless given.

    These PodGroups never get members, so they need no class of gangconf's (the builder gives one
    on shared clusters), and rule 14 checks what admission gives a PodGroup that names none.
    """
    manifest = gang.pod_group_manifest(name, min_count=2)
    manifest["spec"].pop("priorityClassName", None)
    manifest["spec"].update(spec)
    return manifest


def _cpg(gang, name: str, *, min_group_count: int = 2, workload: tuple[str, str] | None = ("training", "composite"),
         **kwargs: Any) -> dict:
    """A gang CompositePodGroup manifest (minGroupCount 2) naming Workload ``training`` by default."""
    return gang.composite_pod_group_manifest(name, min_group_count=min_group_count, workload=workload, **kwargs)


def _not_applicable_when(profile, gate: str, check: str) -> None:
    if profile.gate(gate):
        pytest.skip(f"not applicable: the profile turns {gate} on, so the field is validated instead of "
                    f"dropped; {check} (alpha) checks that")


# -- rule 1: the Workload's template lists ------------------------------------------------------------


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
    composite = [_composite("composite", groups=[_template("workers")])]
    templates = {"neither": (None, None), "both": ([_template("solo")], composite),
                 "composite-only": (None, composite)}[lists]
    manifest = gang.workload_manifest(f"w-{lists}", templates[0], composite=templates[1])
    gate = profile.gate(COMPOSITE)
    if lists == "neither" or (lists == "composite-only" and not gate):
        _refuses(lambda: gang.create(manifest), 422,
                 "must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`", "spec")
    elif lists == "both" and gate:
        _refuses(lambda: gang.create(manifest), 422,
                 "must specify exactly one of: `podGroupTemplates`, `compositePodGroupTemplates`", "spec")
    else:
        spec = gang.create(manifest)["spec"]
        if lists == "both":
            assert not spec.get("compositePodGroupTemplates") and spec["podGroupTemplates"][0]["name"] == "solo", spec
        else:
            assert spec["compositePodGroupTemplates"][0]["name"] == "composite", spec


# -- rule 2: at most 8 templates per list --------------------------------------------------------------


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
        return [_template(f"t{i}") for i in range(n)]

    _refuses(lambda: gang.create(gang.workload_manifest("nine", templates(9))), 422, AT_MOST_8,
             "spec.podGroupTemplates")
    created = gang.create(gang.workload_manifest("eight", templates(8)))
    assert len(created["spec"]["podGroupTemplates"]) == 8


@pytest.mark.conformance(id="GANG-VALIDATION-02", profile="alpha")
@pytest.mark.parametrize("where", ["composite-list", "nested-podgroup-list", "nested-composite-list"])
def test_composite_template_lists_are_rejected_beyond_eight_items(gang, where):
    """Behaviour: GANG-VALIDATION-02 (catalogue section 2.1 rule 2), profile alpha.

    Requirement: every ``compositePodGroupTemplates`` list and every nested ``podGroupTemplates``
    list of a Workload MUST hold at most 8 items: 9 gives 422 with ``must have at most 8 items`` at
    that list's path; the same tree with 8 MUST be accepted.

    Scenario:
      1. Create a v1alpha3 Workload whose list at the given place has 9 items; expect 422 there.
      2. Create the same Workload with 8 items; expect success.
    """
    def tree(n: int) -> tuple[list[dict], str]:
        if where == "composite-list":
            return [_composite(f"c{i}", groups=[_template(f"t{i}")]) for i in range(n)], "spec.compositePodGroupTemplates"
        if where == "nested-podgroup-list":
            return ([_composite("c", groups=[_template(f"t{i}") for i in range(n)])],
                    "spec.compositePodGroupTemplates[0].podGroupTemplates")
        return ([_composite("c", composites=[_composite(f"c{i}", groups=[_template(f"t{i}")]) for i in range(n)])],
                "spec.compositePodGroupTemplates[0].compositePodGroupTemplates")

    nine, path = tree(9)
    _refuses(lambda: gang.create(gang.workload_manifest("nine", None, composite=nine, version=ALPHA)), 422,
             AT_MOST_8, path)
    eight, _ = tree(8)
    assert gang.create(gang.workload_manifest("eight", None, composite=eight, version=ALPHA))["metadata"]["uid"]


# -- rule 3: template names ------------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-03", profile="beta")
@pytest.mark.parametrize(("names", "field", "message"), [
    pytest.param([""], "spec.podGroupTemplates[0].name", REQUIRED, id="empty"),
    pytest.param(["Bad_Name"], "spec.podGroupTemplates[0].name", DNS_LABEL, id="not-a-dns-label"),
    pytest.param(["a.b"], "spec.podGroupTemplates[0].name", NO_DOTS, id="dotted"),
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
    _refuses(lambda: gang.create(gang.workload_manifest("w", [_template(n) for n in names])), 422, message, field)
    assert gang.create(gang.workload_manifest("ok", [_template("a"), _template("b")]))["metadata"]["uid"]


@pytest.mark.conformance(id="GANG-VALIDATION-03", profile="alpha")
@pytest.mark.parametrize(("tree", "field", "message"), [
    pytest.param([_composite("left", groups=[_template("a")]), _composite("right", groups=[_template("a")])],
                 "spec.compositePodGroupTemplates[1].podGroupTemplates[0].name", 'Duplicate value: "a"', id="cousins"),
    pytest.param([_composite("a", groups=[_template("a")])],
                 "spec.compositePodGroupTemplates[0].podGroupTemplates[0].name", 'Duplicate value: "a"',
                 id="parent-and-child"),
    pytest.param([_composite("a", groups=[_template("x")]), _composite("a", groups=[_template("y")])],
                 "spec.compositePodGroupTemplates[1]", "Duplicate value", id="siblings"),
    pytest.param([_composite("", groups=[_template("x")])], "spec.compositePodGroupTemplates[0].name", REQUIRED,
                 id="empty-composite-name"),
])
def test_template_names_are_rejected_when_repeated_anywhere_in_the_tree(gang, tree, field, message):
    """Behaviour: GANG-VALIDATION-03 (catalogue section 2.1 rule 3), profile alpha.

    Requirement: template names MUST be unique across the whole template tree of a Workload, not
    only within one list: a name used again anywhere (a cousin, a child named like its parent, two
    sibling CompositePodGroupTemplates) gives 422 ``Duplicate value``; a CompositePodGroupTemplate
    needs a name (``Required value``). A tree of distinct names MUST be accepted.

    Scenario:
      1. Create a v1alpha3 Workload with the given tree; expect 422 at the given field.
      2. Create a tree with distinct names; expect success.
    """
    _refuses(lambda: gang.create(gang.workload_manifest("w", None, composite=tree, version=ALPHA)), 422, message, field)
    ok = [_composite("left", groups=[_template("a")]), _composite("right", groups=[_template("b")])]
    assert gang.create(gang.workload_manifest("ok", None, composite=ok, version=ALPHA))["metadata"]["uid"]


# -- rules 4 and 5: the shape of a composite template tree ------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-04", profile="alpha")
@pytest.mark.parametrize("position", [0, 1])
def test_workload_is_rejected_when_composite_templates_nest_deeper_than_four_levels(gang, position):
    """Behaviour: GANG-VALIDATION-04 (catalogue section 2.1 rule 4), profile alpha.

    Requirement: a Workload's template tree MUST be at most 4 levels deep; a deeper one gives 422
    with ``maximum template hierarchy depth is 4`` at the top-level CompositePodGroupTemplate
    (``spec.compositePodGroupTemplates[i]``) whose subtree is too deep. A tree exactly 4 levels deep
    MUST be accepted.

    v1.37.2 is more precise than the catalogue's "tree depth <= 4 for composite templates": the
    PodGroupTemplate leaves count as a level, so at most 3 CompositePodGroupTemplates can nest
    (3 composite levels plus the leaf is 4); 4 nested CompositePodGroupTemplates are refused.

    Scenario:
      1. Create a Workload whose top-level entry ``position`` is a chain of 4 nested
         CompositePodGroupTemplates over a PodGroupTemplate; expect 422 at that entry.
      2. Create one with a chain of 3; expect success.
    """
    def tree(levels: int) -> list[dict]:
        shallow = _composite("shallow", groups=[_template("shallow-leaf")])
        return [_chain(levels), shallow] if position == 0 else [shallow, _chain(levels)]

    _refuses(lambda: gang.create(gang.workload_manifest("deep", None, composite=tree(4), version=ALPHA)), 422,
             "maximum template hierarchy depth is 4", f"spec.compositePodGroupTemplates[{position}]")
    created = gang.create(gang.workload_manifest("four", None, composite=tree(3), version=ALPHA))
    assert created["spec"]["compositePodGroupTemplates"][position]["name"] == "level-1"


@pytest.mark.conformance(id="GANG-VALIDATION-05", profile="alpha")
@pytest.mark.parametrize(("tree", "field"), [
    pytest.param([_composite("empty")], "spec.compositePodGroupTemplates[0]", id="no-lists"),
    pytest.param([_composite("empty", groups=[], composites=[])], "spec.compositePodGroupTemplates[0]",
                 id="empty-lists"),
    pytest.param([_composite("outer", composites=[_composite("inner")])],
                 "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0]", id="nested"),
])
def test_composite_template_is_rejected_when_it_has_no_child(gang, tree, field):
    """Behaviour: GANG-VALIDATION-05 (catalogue section 2.1 rule 5), profile alpha.

    Requirement: every CompositePodGroupTemplate, at any depth, MUST have at least one child; one
    without gives 422 with ``must have at least one child PodGroupTemplate or
    CompositePodGroupTemplate`` at its own path.

    Scenario:
      1. Create a v1alpha3 Workload with the given childless CompositePodGroupTemplate; expect 422 there.
    """
    _refuses(lambda: gang.create(gang.workload_manifest("w", None, composite=tree, version=ALPHA)), 422,
             "must have at least one child PodGroupTemplate or CompositePodGroupTemplate", field)


# -- rule 6: one priority per Workload ----------------------------------------------------------------------


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
    bad = [_template("a", **first), _template("b", **second)]
    _refuses(lambda: gang.create(gang.workload_manifest("w", bad)), 422, "detected multiple priority configurations",
             "spec")
    same = [_template("a", priorityClassName="shared"), _template("b", priorityClassName="shared")]
    assert gang.create(gang.workload_manifest("ok", same))["metadata"]["uid"]


@pytest.mark.conformance(id="GANG-VALIDATION-06", profile="alpha")
@pytest.mark.parametrize("tree", [
    pytest.param([_composite("c", groups=[_template("a", priority=1), _template("b", priority=2)])],
                 id="leaves-differ"),
    pytest.param([_composite("c", groups=[_template("a")], priorityClassName="high")], id="parent-and-leaf-differ"),
    pytest.param([_composite("c1", groups=[_template("a", priority=1)], priority=1),
                  _composite("c2", composites=[_composite("c3", groups=[_template("b", priority=1)], priority=2)],
                             priority=1)],
                 id="nested-composite-differs"),
])
def test_composite_template_tree_is_rejected_when_its_priorities_differ(gang, tree):
    """Behaviour: GANG-VALIDATION-06 (catalogue section 2.1 rule 6), profile alpha.

    Requirement: in a composite template tree every template, composite or leaf, MUST carry the
    same priority and priority class; a tree that differs anywhere gives 422 with ``all priority
    and priorityClassName values must be identical, detected multiple values`` at ``spec``.

    Scenario:
      1. Create a v1alpha3 Workload with the given tree; expect 422 at spec.
    """
    _refuses(lambda: gang.create(gang.workload_manifest("w", None, composite=tree, version=ALPHA)), 422,
             "all priority and priorityClassName values must be identical, detected multiple values", "spec")


# -- rules 7 and 10: what may change in a Workload and a PodGroup ---------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-07", profile="beta")
@pytest.mark.parametrize(("after", "causes"), [
    pytest.param([_template("a", 2), _template("b", 2)], [("spec.podGroupTemplates[1]", NOT_ADDED)], id="add"),
    pytest.param([], [("spec.podGroupTemplates", NOT_REMOVED)], id="remove"),
    pytest.param([_template("z", 2)], [("spec.podGroupTemplates[0]", NOT_ADDED), ("spec.podGroupTemplates", NOT_REMOVED)],
                 id="rename"),
    pytest.param([_template("a", 2, disruptionMode={"all": {}})],
                 [("spec.podGroupTemplates[0].disruptionMode", IMMUTABLE)], id="change-another-field"),
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
    gang.create(gang.workload_manifest("w", [_template("a", 2)]))
    exc = _rejected(lambda: gang.patch("Workload", "w", {"spec": {"podGroupTemplates": after}}))
    for field, message in causes:
        _assert_refused(exc, 422, message, field)
    gang.patch("Workload", "w", {"spec": {"podGroupTemplates": [_template("a", 5)]}})
    assert gang.get_workload("w")["spec"]["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 5}}


@pytest.mark.conformance(id="GANG-VALIDATION-07", profile="alpha")
def test_composite_template_tree_is_fixed_after_create_except_its_counts(gang):
    """Behaviour: GANG-VALIDATION-07 (catalogue section 2.1 rule 7), profile alpha.

    Requirement: inside a composite template tree, templates MUST NOT be added after create (422
    ``item may not be added`` at the new item's path); the counts stay mutable: a nested
    PodGroupTemplate's ``minCount`` and a CompositePodGroupTemplate's ``minGroupCount`` MUST be
    accepted when changed.

    Scenario:
      1. Create a v1alpha3 Workload: gang CompositePodGroupTemplate ``c`` (minGroupCount 1) over
         the gang PodGroupTemplate ``a`` (minCount 2).
      2. Patch in a second PodGroupTemplate under ``c``; expect 422.
      3. Patch minGroupCount to 2 and minCount to 3; expect success and read both back.
    """
    def tree(groups: list[dict], min_group_count: int) -> dict:
        return {"spec": {"compositePodGroupTemplates": [_composite("c", groups=groups, min_group_count=min_group_count)]}}

    gang.create(gang.workload_manifest("w", None, composite=tree([_template("a", 2)], 1)["spec"]["compositePodGroupTemplates"],
                                       version=ALPHA))
    _refuses(lambda: gang.patch("Workload", "w", tree([_template("a", 2), _template("b", 2)], 1), version=ALPHA), 422,
             NOT_ADDED, "spec.compositePodGroupTemplates[0].podGroupTemplates[1]")
    spec = gang.patch("Workload", "w", tree([_template("a", 3)], 2), version=ALPHA)["spec"]
    composite = spec["compositePodGroupTemplates"][0]
    assert composite["schedulingPolicy"] == {"gang": {"minGroupCount": 2}}, composite
    assert composite["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 3}}, composite


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
        _refuses(lambda: gang.patch("PodGroup", "pg", {"spec": {"schedulingPolicy": policy(after)}}), 422, message, field)
        name = "pg" if before else gang.pod_group("pg-gang", min_count=2)["metadata"]["name"]
        assert gang.set_min_count(name, 5)["spec"]["schedulingPolicy"] == {"gang": {"minCount": 5}}
        return
    gang.create(gang.workload_manifest("w", [_template("a", before)]))
    _refuses(lambda: gang.patch("Workload", "w", {"spec": {"podGroupTemplates": [_template("a", after)]}}), 422,
             message, field)
    name = "w" if before else gang.create(gang.workload_manifest("w-gang", [_template("a", 2)]))["metadata"]["name"]
    spec = gang.patch("Workload", name, {"spec": {"podGroupTemplates": [_template("a", 5)]}})["spec"]
    assert spec["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 5}}, spec


# -- rules 8 and 9: the scheduling policy ------------------------------------------------------------------


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
    _refuses(lambda: gang.create(manifest), 422, message, field)


@pytest.mark.conformance(id="GANG-VALIDATION-08", profile="alpha")
@pytest.mark.parametrize("kind", ["CompositePodGroup", "CompositePodGroupTemplate"])
def test_composite_scheduling_policy_is_rejected_when_both_kinds_are_set(gang, kind):
    """Behaviour: GANG-VALIDATION-08 (catalogue section 2.1 rule 8), profile alpha.

    Requirement: a CompositePodGroup's and a CompositePodGroupTemplate's ``schedulingPolicy`` MUST
    set exactly one of ``basic`` and ``gang``; both give 422 ``must specify exactly one of:
    `basic`, `gang```.

    Scenario:
      1. Create a CompositePodGroup, or a v1alpha3 Workload with one CompositePodGroupTemplate,
         whose policy has both; expect 422 at its ``schedulingPolicy``.
    """
    both = {"basic": {}, "gang": {"minGroupCount": 1}}
    if kind == "CompositePodGroup":
        manifest, field = _cpg(gang, "cpg"), "spec.schedulingPolicy"
        manifest["spec"]["schedulingPolicy"] = both
    else:
        composite = _composite("c", groups=[_template("a")])
        composite["schedulingPolicy"] = both
        manifest = gang.workload_manifest("w", None, composite=[composite], version=ALPHA)
        field = "spec.compositePodGroupTemplates[0].schedulingPolicy"
    _refuses(lambda: gang.create(manifest), 422, "must specify exactly one of: `basic`, `gang`", field)


@pytest.mark.conformance(id="GANG-VALIDATION-09", profile="beta")
@pytest.mark.parametrize(
    ("min_count", "message"),
    [(0, REQUIRED), (-1, "must be greater than or equal to 1")],
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
    _refuses(lambda: gang.pod_group("bad", min_count=min_count), 422, message, "spec.schedulingPolicy.gang.minCount")
    _refuses(lambda: gang.create(gang.workload_manifest("bad", [_template("a", min_count)])), 422, message,
             "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount")
    assert gang.pod_group("good", min_count=1)["spec"]["schedulingPolicy"]["gang"]["minCount"] == 1


@pytest.mark.conformance(id="GANG-VALIDATION-09", profile="alpha")
@pytest.mark.parametrize(("min_group_count", "message"), [(0, REQUIRED), (-1, "must be greater than or equal to 1")],
                         ids=["zero", "negative"])
def test_composite_is_rejected_when_min_group_count_is_below_one(gang, min_group_count, message):
    """Behaviour: GANG-VALIDATION-09 (catalogue section 2.1 rule 9), profile alpha.

    Requirement: ``gang.minGroupCount`` of a CompositePodGroup and of a CompositePodGroupTemplate
    MUST be at least 1: 0 gives 422 ``Required value``, a negative value ``must be greater than or
    equal to 1``. minGroupCount 1 MUST be accepted.

    Scenario:
      1. Create a CompositePodGroup with the given minGroupCount; expect 422 at its minGroupCount.
      2. Create a v1alpha3 Workload whose CompositePodGroupTemplate has it; expect 422 there.
      3. Create the CompositePodGroup with minGroupCount 1; expect success.
    """
    _refuses(lambda: gang.create(_cpg(gang, "bad", min_group_count=min_group_count)), 422, message,
             "spec.schedulingPolicy.gang.minGroupCount")
    tree = [_composite("c", groups=[_template("a")], min_group_count=min_group_count)]
    _refuses(lambda: gang.create(gang.workload_manifest("bad", None, composite=tree, version=ALPHA)), 422, message,
             "spec.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount")
    created = gang.create(_cpg(gang, "good", min_group_count=1))
    assert created["spec"]["schedulingPolicy"] == {"gang": {"minGroupCount": 1}}


# -- rule 11: the CompositePodGroup object ------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-11", profile="alpha")
@pytest.mark.parametrize(("change", "field"), [
    pytest.param({"schedulingPolicy": {"gang": {"minGroupCount": 3}}}, "spec.schedulingPolicy", id="min-group-count"),
    pytest.param({"schedulingPolicy": {"gang": None, "basic": {}}}, "spec.schedulingPolicy", id="policy-kind"),
    pytest.param({"workloadRef": {"workloadName": "other"}}, "spec.workloadRef", id="workload-ref"),
    pytest.param({"parentCompositePodGroupName": "other-root"}, "spec.parentCompositePodGroupName", id="parent"),
    pytest.param({"parentCompositePodGroupName": None}, "spec.parentCompositePodGroupName", id="parent-unset"),
])
def test_composite_pod_group_needs_a_workload_ref_and_keeps_its_spec(gang, change, field):
    """Behaviour: GANG-VALIDATION-11 (catalogue section 2.1 rule 11), profile alpha.

    Requirement: a CompositePodGroup MUST name its Workload (``spec.workloadRef`` missing gives 422
    ``Required value``), and its ``schedulingPolicy`` (minGroupCount included),
    ``parentCompositePodGroupName`` and ``workloadRef`` are immutable: changing any gives 422
    ``field is immutable`` at that field.

    Scenario:
      1. Create a CompositePodGroup without workloadRef; expect 422 at spec.workloadRef.
      2. Create one with workloadRef, minGroupCount 2 and a parent; read it back as sent.
      3. Patch the given field; expect 422 ``field is immutable`` there.
    """
    missing = _cpg(gang, "no-ref")
    del missing["spec"]["workloadRef"]
    _refuses(lambda: gang.create(missing), 422, REQUIRED, "spec.workloadRef")

    created = gang.create(_cpg(gang, "cpg", parent="root"))
    assert created["spec"]["parentCompositePodGroupName"] == "root"
    assert created["spec"]["workloadRef"] == {"workloadName": "training", "templateName": "composite"}
    _refuses(lambda: gang.patch("CompositePodGroup", "cpg", {"spec": change}, version=ALPHA), 422, IMMUTABLE, field)


# -- rule 12: topology constraints ----------------------------------------------------------------------------


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
    spec = gang.create(_pg(gang, "pg", schedulingConstraints=two))["spec"]
    assert "schedulingConstraints" not in spec, spec
    template = gang.create(gang.workload_manifest("w", [_template("a", schedulingConstraints=two)]))
    assert not template["spec"]["podGroupTemplates"][0].get("schedulingConstraints"), template["spec"]


@pytest.mark.conformance(id="GANG-VALIDATION-12", profile="alpha")
@pytest.mark.parametrize(("kind", "topology", "field", "message"), [
    pytest.param("PodGroup", [{"key": "rack"}, {"key": "zone"}], "spec.schedulingConstraints.topology",
                 "must have at most 1 item", id="podgroup-two-keys"),
    pytest.param("PodGroup", [{"key": ""}], "spec.schedulingConstraints.topology[0].key", REQUIRED,
                 id="podgroup-empty-key"),
    pytest.param("PodGroup", [{"key": "bad key!"}], "spec.schedulingConstraints.topology[0].key",
                 "name part must consist of alphanumeric characters", id="podgroup-not-a-label-key"),
    pytest.param("Workload", [{"key": "rack"}, {"key": "zone"}],
                 "spec.podGroupTemplates[0].schedulingConstraints.topology", "must have at most 1 item",
                 id="template-two-keys"),
    pytest.param("CompositePodGroup", [{"key": "rack"}, {"key": "zone"}], "spec.schedulingConstraints.topology",
                 "must have at most 1 item", id="composite-two-keys"),
    pytest.param("CompositePodGroup", [{"key": ""}], "spec.schedulingConstraints.topology[0].key", REQUIRED,
                 id="composite-empty-key"),
])
def test_topology_constraint_is_rejected_when_malformed_or_changed(gang, kind, topology, field, message):
    """Behaviour: GANG-VALIDATION-12 (catalogue section 2.1 rule 12), profile alpha.

    Requirement: with TopologyAwareWorkloadScheduling on, ``schedulingConstraints.topology`` MUST
    have at most 1 item (422 ``must have at most 1 item``) whose ``key`` is required (``Required
    value``) and a label key (the label-key message); on a PodGroup, a Workload template and a
    CompositePodGroup alike. A valid constraint is kept, and is immutable (``field is immutable``
    at ``spec.schedulingConstraints``).

    Scenario:
      1. Create the object with the given topology; expect 422 at the given field.
      2. Create a PodGroup with the key ``topology.kubernetes.io/zone``: it is kept as sent.
      3. Patch its key to ``rack``; expect 422 ``field is immutable``.
    """
    constraints = {"topology": topology}
    if kind == "PodGroup":
        manifest = _pg(gang, "bad", schedulingConstraints=constraints)
    elif kind == "Workload":
        manifest = gang.workload_manifest("bad", [_template("a", schedulingConstraints=constraints)])
    else:
        manifest = _cpg(gang, "bad", schedulingConstraints=constraints)
    _refuses(lambda: gang.create(manifest), 422, message, field)

    zone = {"topology": [{"key": "topology.kubernetes.io/zone"}]}
    assert gang.create(_pg(gang, "zoned", schedulingConstraints=zone))["spec"]["schedulingConstraints"] == zone
    _refuses(lambda: gang.patch("PodGroup", "zoned", {"spec": {"schedulingConstraints": {"topology": [{"key": "rack"}]}}}),
             422, IMMUTABLE, "spec.schedulingConstraints")


# -- rule 13: disruptionMode ----------------------------------------------------------------------------------


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
        manifest = _pg(gang, "bad", disruptionMode=mode)
    else:
        manifest = gang.workload_manifest("bad", [_template("a", disruptionMode=mode)])
    _refuses(lambda: gang.create(manifest), status, message, field)

    assert gang.pod_group("all", min_count=2, disruption="all")["spec"]["disruptionMode"] == {"all": {}}
    _refuses(lambda: gang.patch("PodGroup", "all", {"spec": {"disruptionMode": {"all": None, "single": {}}}}), 422,
             IMMUTABLE, "spec.disruptionMode")


# -- rule 14: priority --------------------------------------------------------------------------------------------


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
    _refuses(lambda: gang.create(_pg(gang, "missing", priorityClassName="no-such-class")), 403,
             "no PriorityClass with name no-such-class was found")
    _refuses(lambda: gang.create(_pg(gang, "malformed", priorityClassName="Bad_Class")), 403,
             "no PriorityClass with name Bad_Class was found")
    default = next((pc.value for pc in client.SchedulingV1Api(cluster_api).list_priority_class().items
                    if pc.global_default), 0)
    _refuses(lambda: gang.create(_pg(gang, "explicit", priority=default + 5)), 403,
             f"priority set in the pod group ({default + 5}) must match the priority computed ({default})")

    assert gang.create(_pg(gang, "high", priorityClassName=high))["spec"]["priority"] == gang.priority_value(high)
    assert gang.create(_pg(gang, "plain"))["spec"]["priority"] == default
    _refuses(lambda: gang.patch("PodGroup", "high", {"spec": {"priority": 7}}), 422, IMMUTABLE, "spec.priority")
    _refuses(lambda: gang.patch("PodGroup", "high", {"spec": {"priorityClassName": "system-cluster-critical"}}), 422,
             IMMUTABLE, "spec.priorityClassName")


@pytest.mark.conformance(id="GANG-VALIDATION-14", profile="beta")
@pytest.mark.parametrize(("fields", "field", "message"), [
    pytest.param({"priority": 1000000001}, "spec.podGroupTemplates[0].priority",
                 "must be less than or equal to 1000000000", id="priority-too-high"),
    pytest.param({"priorityClassName": "Bad_Class"}, "spec.podGroupTemplates[0].priorityClassName", DNS_SUBDOMAIN,
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
    _refuses(lambda: gang.create(gang.workload_manifest("bad", [_template("a", **fields)])), 422, message, field)
    unknown = gang.create(gang.workload_manifest("unknown", [_template("a", priorityClassName="no-such-class")]))
    assert unknown["spec"]["podGroupTemplates"][0]["priorityClassName"] == "no-such-class"
    top = gang.create(gang.workload_manifest("top", [_template("a", priority=1000000000)]))
    assert top["spec"]["podGroupTemplates"][0]["priority"] == 1000000000


# -- rule 15: preemptionPolicy ----------------------------------------------------------------------------------


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
        spec = gang.create(_pg(gang, name, preemptionPolicy=value))["spec"]
        assert "preemptionPolicy" not in spec, spec
    template = gang.create(gang.workload_manifest("w", [_template("a", preemptionPolicy="Sometimes")]))
    assert "preemptionPolicy" not in template["spec"]["podGroupTemplates"][0], template["spec"]


@pytest.mark.conformance(id="GANG-VALIDATION-15", profile="alpha")
def test_preemption_policy_is_admitted_against_the_priority_class(gang):
    """Behaviour: GANG-VALIDATION-15 (catalogue section 2.1 rule 15), profile alpha.

    Requirement: with PodGroupPreemptionPolicy on, a PodGroup's ``preemptionPolicy`` is
    ``Never`` or ``PreemptLowerPriority`` (the default) and MUST match what Priority admission
    computes from the priority class, else 403 ``the string value of PreemptionPolicy (<v>) must
    not be provided in pod group spec; priority admission controller computed <c> ...``; a
    Workload template with a value that is not a policy gets 422 ``Unsupported value``. Once
    created the policy is immutable (422 ``field is immutable``).

    v1.37.2 differs from the catalogue, which lists only ``Never | PreemptLowerPriority`` and
    immutability: on a PodGroup (and a CompositePodGroup) every value is first judged by Priority
    admission, so a value that is not a policy gets that 403 rather than a 422, and ``Never`` is
    refused (403) unless the priority class says Never too, while a class whose policy is Never
    refuses a PodGroup that leaves the field out (it is defaulted to PreemptLowerPriority before
    admission runs).

    Scenario:
      1. Create a PriorityClass ``never`` (value 10, preemptionPolicy Never) for this test.
      2. A PodGroup with ``Sometimes``, one with ``Never`` and no class, and one naming the class
         without a policy: each gets the 403 above.
      3. A PodGroup naming the class with ``Never`` is created with priority 10 and policy Never; a
         PodGroup with neither gets ``PreemptLowerPriority``.
      4. Patching the first one's policy gives 422 ``field is immutable``.
      5. A Workload template with ``Sometimes`` gives 422 ``Unsupported value``.
    """
    never = gang.priority_class("never", 10, preemption_policy="Never")
    refused = "must not be provided in pod group spec; priority admission controller computed"
    _refuses(lambda: gang.create(_pg(gang, "unknown", preemptionPolicy="Sometimes")), 403,
             f"the string value of PreemptionPolicy (Sometimes) {refused} PreemptLowerPriority")
    _refuses(lambda: gang.create(_pg(gang, "never-alone", preemptionPolicy="Never")), 403,
             f"the string value of PreemptionPolicy (Never) {refused} PreemptLowerPriority")
    _refuses(lambda: gang.create(_pg(gang, "class-alone", priorityClassName=never)), 403,
             f"the string value of PreemptionPolicy (PreemptLowerPriority) {refused} Never")

    spec = gang.create(_pg(gang, "never", priorityClassName=never, preemptionPolicy="Never"))["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (gang.priority_value(never), "Never"), spec
    assert gang.create(_pg(gang, "default"))["spec"]["preemptionPolicy"] == "PreemptLowerPriority"
    _refuses(lambda: gang.patch("PodGroup", "never", {"spec": {"preemptionPolicy": "PreemptLowerPriority"}}), 422,
             IMMUTABLE, "spec.preemptionPolicy")
    _refuses(lambda: gang.create(gang.workload_manifest("w", [_template("a", preemptionPolicy="Sometimes")])), 422,
             'Unsupported value: "Sometimes"', "spec.podGroupTemplates[0].preemptionPolicy")


# -- rule 16: resource claims -------------------------------------------------------------------------------------


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
    spec = gang.create(_pg(gang, "claims", resourceClaims=claims))["spec"]
    assert "resourceClaims" not in spec, spec
    template = gang.create(gang.workload_manifest("w", [_template("a", resourceClaims=[{"name": "Bad_Name"}])]))
    assert "resourceClaims" not in template["spec"]["podGroupTemplates"][0], template["spec"]

    gang.patch("PodGroup", "claims", {"status": {"resourceClaimStatuses": [{"name": "other", "resourceClaimName": "x"}]}},
               status=True)
    assert "resourceClaimStatuses" not in (gang.get_pod_group("claims").get("status") or {})


# -- rule 17: names and references ----------------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-17", profile="beta")
@pytest.mark.parametrize(("kind", "name", "message"), [
    pytest.param("PodGroup", "Bad_Name", DNS_SUBDOMAIN, id="podgroup-not-a-subdomain"),
    pytest.param("PodGroup", "a" * 254, "must be no more than 253 characters", id="podgroup-too-long"),
    pytest.param("Workload", "Bad_Name", DNS_SUBDOMAIN, id="workload-not-a-subdomain"),
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
                else gang.workload_manifest(name, [_template("a")]))
    _refuses(lambda: gang.create(manifest), 422, message, "metadata.name")
    ok = (gang.pod_group_manifest("team.trainer", min_count=2) if kind == "PodGroup"
          else gang.workload_manifest("team.trainer", [_template("a")]))
    assert gang.create(ok)["metadata"]["name"] == "team.trainer"


@pytest.mark.conformance(id="GANG-VALIDATION-17", profile="beta")
@pytest.mark.parametrize(("ref", "field", "message"), [
    pytest.param({"workloadName": "Bad_Name", "templateName": "t"}, "spec.workloadRef.workloadName", DNS_SUBDOMAIN,
                 id="workload-name-not-a-subdomain"),
    pytest.param({"workloadName": "w", "templateName": "a.b"}, "spec.workloadRef.templateName", NO_DOTS,
                 id="template-name-not-a-label"),
    pytest.param({"workloadName": "w"}, "spec.workloadRef.templateName", REQUIRED, id="template-name-missing"),
    pytest.param({"templateName": "t"}, "spec.workloadRef.workloadName", REQUIRED, id="workload-name-missing"),
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
    _refuses(lambda: gang.create(_pg(gang, "bad", workloadRef=ref)), 422, message, field)
    gang.pod_group("with-ref", min_count=2, workload=("training", "workers"))
    gang.pod_group("without-ref", min_count=2)
    for name, patch in (("with-ref", {"workloadName": "other"}), ("with-ref", None),
                        ("without-ref", {"workloadName": "training", "templateName": "workers"})):
        _refuses(lambda: gang.patch("PodGroup", name, {"spec": {"workloadRef": patch}}), 422, IMMUTABLE,
                 "spec.workloadRef")


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
        created = gang.create(_pg(gang, name, **spec))["spec"]
        assert "parentCompositePodGroupName" not in created, created


@pytest.mark.conformance(id="GANG-VALIDATION-17", profile="alpha")
@pytest.mark.parametrize(("kind", "spec", "field", "message"), [
    pytest.param("PodGroup", {"parentCompositePodGroupName": "root"}, "spec.workloadRef",
                 "must be set when parentCompositePodGroupName is set", id="parent-without-workload-ref"),
    pytest.param("PodGroup", {"parentCompositePodGroupName": "Bad_Name",
                              "workloadRef": {"workloadName": "w", "templateName": "t"}},
                 "spec.parentCompositePodGroupName", DNS_SUBDOMAIN, id="parent-not-a-subdomain"),
    pytest.param("CompositePodGroup", {"workloadRef": {"workloadName": "w"}}, "spec.workloadRef.templateName",
                 REQUIRED, id="composite-template-name-missing"),
    pytest.param("CompositePodGroup-name", {}, "metadata.name", DNS_SUBDOMAIN, id="composite-name-not-a-subdomain"),
])
def test_parent_composite_name_needs_a_workload_ref_and_is_immutable(gang, kind, spec, field, message):
    """Behaviour: GANG-VALIDATION-17 (catalogue section 2.1 rule 17), profile alpha.

    Requirement: with CompositePodGroup on, a PodGroup's ``parentCompositePodGroupName`` MUST be a
    DNS subdomain and requires ``workloadRef`` (422 ``Required value: must be set when
    parentCompositePodGroupName is set``); it is immutable (``field is immutable``). A
    CompositePodGroup's name MUST be a DNS subdomain and its ``workloadRef`` needs a templateName.

    Scenario:
      1. Create the object as given; expect 422 at the given field.
      2. Create a v1alpha3 PodGroup with a parent and a workloadRef; the parent is kept.
      3. Patch the parent to another name; expect 422 ``field is immutable``.
    """
    if kind == "PodGroup":
        manifest = _pg(gang, "bad", **spec)
        manifest["apiVersion"] = f"scheduling.k8s.io/{ALPHA}"
    elif kind == "CompositePodGroup":
        manifest = _cpg(gang, "bad", workload=None, **spec)
    else:
        manifest = _cpg(gang, "Bad_Name")
    _refuses(lambda: gang.create(manifest), 422, message, field)

    child = _pg(gang, "child", parentCompositePodGroupName="root",
                workloadRef={"workloadName": "training", "templateName": "leaf"})
    assert gang.create(child)["spec"]["parentCompositePodGroupName"] == "root"
    _refuses(lambda: gang.patch("PodGroup", "child", {"spec": {"parentCompositePodGroupName": "other"}}), 422,
             IMMUTABLE, "spec.parentCompositePodGroupName")


# -- rule 18: controllerRef ----------------------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-18", profile="beta")
@pytest.mark.parametrize(("ref", "field", "message"), [
    pytest.param({"apiGroup": "batch", "name": "job"}, "spec.controllerRef.kind", REQUIRED, id="kind-missing"),
    pytest.param({"apiGroup": "batch", "kind": "Job"}, "spec.controllerRef.name", REQUIRED, id="name-missing"),
    pytest.param({"apiGroup": "Bad_Group", "kind": "Job", "name": "job"}, "spec.controllerRef.apiGroup", DNS_SUBDOMAIN,
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
    _refuses(lambda: gang.create(gang.workload_manifest("bad", [_template("a")], controllerRef=ref)), 422, message,
             field)
    job = {"apiGroup": "batch", "kind": "Job", "name": "job"}
    assert gang.create(gang.workload_manifest("owned", [_template("a")], controllerRef=job))["spec"]["controllerRef"] == job
    gang.create(gang.workload_manifest("free", [_template("a")]))
    for name, patch in (("owned", {"name": "other"}), ("owned", None), ("free", job)):
        _refuses(lambda: gang.patch("Workload", name, {"spec": {"controllerRef": patch}}), 422, IMMUTABLE,
                 "spec.controllerRef")


# -- rule 19: status conditions --------------------------------------------------------------------------------


PROBE_CONDITION = {"type": "GangconfProbe", "status": "True", "reason": "Probed", "message": "written by gangconf",
                   "lastTransitionTime": "2026-01-01T00:00:00Z"}


@pytest.mark.conformance(id="GANG-VALIDATION-19", profile="beta")
@pytest.mark.parametrize(("change", "field", "message"), [
    pytest.param({"status": "Maybe"}, "status.conditions[0].status", 'Unsupported value: "Maybe"', id="status"),
    pytest.param({"reason": ""}, "status.conditions[0].reason", REQUIRED, id="reason-missing"),
    pytest.param({"reason": "not a reason!"}, "status.conditions[0].reason", "a condition reason must start with",
                 id="reason-malformed"),
    pytest.param({"lastTransitionTime": None}, "status.conditions[0].lastTransitionTime", REQUIRED,
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
    _refuses(lambda: gang.patch("PodGroup", "pg", {"status": {"conditions": [flawed]}}, status=True), 422, message, field)
    gang.patch("PodGroup", "pg", {"status": {"conditions": [PROBE_CONDITION]}}, status=True)
    gang.patch("PodGroup", "pg", {"status": {"conditions": [{**PROBE_CONDITION, "reason": "Overwritten"}]}})
    stored = [c for c in (gang.get_pod_group("pg").get("status") or {}).get("conditions") or []
              if c["type"] == PROBE_CONDITION["type"]]
    assert [c["reason"] for c in stored] == ["Probed"], stored


# -- rule 20: the pod's schedulingGroup -------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-20", profile="beta")
@pytest.mark.parametrize(("group", "message"), [
    pytest.param({"podGroupName": ""}, DNS_SUBDOMAIN, id="empty-name"),
    pytest.param({}, "must specify one of: `podGroupName`", id="no-name"),
    pytest.param({"podGroupName": "Bad_Name"}, DNS_SUBDOMAIN, id="not-a-subdomain"),
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
    _refuses(lambda: gang.create(bad), 422, message, "spec.schedulingGroup.podGroupName")

    grouped = gang.pod("grouped", group="team.trainer")
    assert grouped["spec"]["schedulingGroup"] == {"podGroupName": "team.trainer"}
    gang.pod("plain")
    forbidden = "pod updates may not change fields other than"
    for name, value in (("grouped", {"podGroupName": "other"}), ("grouped", None), ("plain", {"podGroupName": "g"})):
        _refuses(lambda: gang.patch("Pod", name, {"spec": {"schedulingGroup": value}}), 422, forbidden, "spec")


# -- rules 21 and 22: what the API server does not refuse in v1.37 ---------------------------------------------


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
    assert gang.create(_pg(gang, "orphan", workloadRef=ref))["spec"]["workloadRef"] == ref
    gang.create(gang.workload_manifest("training", [_template("workers", 2)]))
    ref = {"workloadName": "training", "templateName": "nope"}
    assert gang.create(_pg(gang, "unknown-template", workloadRef=ref))["spec"]["workloadRef"] == ref


@pytest.mark.conformance(id="GANG-VALIDATION-21", profile="alpha")
def test_composite_references_to_missing_objects_are_accepted(gang):
    """Behaviour: GANG-VALIDATION-21 (catalogue section 2.1 rule 21), profile alpha.

    Requirement: v1.37 does not check that a parent CompositePodGroup or a referenced Workload
    exists: a PodGroup naming a missing parent, and a CompositePodGroup naming a missing Workload
    or a missing parent, MUST be accepted (201) and kept as sent.

    Scenario:
      1. Create a v1alpha3 PodGroup whose parent ``nowhere`` does not exist: created, parent kept.
      2. Create a CompositePodGroup whose Workload and parent do not exist: created, both kept.
    """
    child = _pg(gang, "child", parentCompositePodGroupName="nowhere",
                workloadRef={"workloadName": "missing", "templateName": "leaf"})
    child["apiVersion"] = f"scheduling.k8s.io/{ALPHA}"
    assert gang.create(child)["spec"]["parentCompositePodGroupName"] == "nowhere"
    created = gang.create(_cpg(gang, "orphan", workload=("missing", "composite"), parent="nowhere"))
    assert created["spec"]["workloadRef"] == {"workloadName": "missing", "templateName": "composite"}
    assert created["spec"]["parentCompositePodGroupName"] == "nowhere"


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
    assert "scheduling.k8s.io/podgroup-protection" in created["metadata"].get("finalizers", []), created["metadata"]
    gang.pod("leaving-0", group="leaving")
    recorder.eventually(lambda s: "leaving-0" in s.pods, timeout=timeouts.observe, describe="the member is recorded")
    gang.delete_pod_group("leaving")
    recorder.eventually(lambda s: (s.podgroups.get("leaving") or {}).get("metadata", {}).get("deletionTimestamp"),
                        timeout=timeouts.observe, describe="PodGroup 'leaving' is Terminating")
    late = gang.pod("leaving-1", group="leaving")
    assert late["spec"]["schedulingGroup"] == {"podGroupName": "leaving"}
