"""What the API server refuses (and what it accepts) with the alpha API: CompositePodGroups, their
templates, and the PodGroup fields behind alpha gates.

The behaviour catalogue numbers the API server's validation rules in its section 2.1 without
giving them IDs; gangconf names rule N ``GANG-VALIDATION-NN``. Rules that need
``scheduling.k8s.io/v1alpha3`` (CompositePodGroup and its templates) or a gate the alpha profile
turns on are checked here, in the alpha profile; each check asserts the HTTP status, the field
path of the cause and a substring of its message, or that an accepted object reads back as sent.
Its PodGroups never get members and name no priority class unless a check gives one
(``base_class=False``).
"""

from __future__ import annotations

import pytest

from fixtures import ALPHA, api_version, assert_refused, composite_template, messages, template, template_chain

#: The Workload and template a CompositePodGroup names unless a check says otherwise.
TRAINING = ("training", "composite")


# -- rule 2: at most 8 templates per list --------------------------------------------------------------------


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
            return ([composite_template(f"c{i}", pod_groups=[template(f"t{i}", min_count=1)]) for i in range(n)],
                    "spec.compositePodGroupTemplates")
        if where == "nested-podgroup-list":
            return ([composite_template("c", pod_groups=[template(f"t{i}", min_count=1) for i in range(n)])],
                    "spec.compositePodGroupTemplates[0].podGroupTemplates")
        children = [composite_template(f"c{i}", pod_groups=[template(f"t{i}", min_count=1)]) for i in range(n)]
        return ([composite_template("c", composites=children)],
                "spec.compositePodGroupTemplates[0].compositePodGroupTemplates")

    nine, path = tree(9)
    assert_refused(gang.create, gang.workload_manifest("nine", None, composite=nine, version=ALPHA), field=path,
                   text=messages.AT_MOST_8)
    eight, _ = tree(8)
    assert gang.create(gang.workload_manifest("eight", None, composite=eight, version=ALPHA))["metadata"]["uid"]


# -- rule 3: template names ----------------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-03", profile="alpha")
@pytest.mark.parametrize(("tree", "field", "message"), [
    pytest.param([composite_template("left", pod_groups=[template("a", min_count=1)]),
                  composite_template("right", pod_groups=[template("a", min_count=1)])],
                 "spec.compositePodGroupTemplates[1].podGroupTemplates[0].name", 'Duplicate value: "a"', id="cousins"),
    pytest.param([composite_template("a", pod_groups=[template("a", min_count=1)])],
                 "spec.compositePodGroupTemplates[0].podGroupTemplates[0].name", 'Duplicate value: "a"',
                 id="parent-and-child"),
    pytest.param([composite_template("a", pod_groups=[template("x", min_count=1)]),
                  composite_template("a", pod_groups=[template("y", min_count=1)])],
                 "spec.compositePodGroupTemplates[1]", "Duplicate value", id="siblings"),
    pytest.param([composite_template("", pod_groups=[template("x", min_count=1)])], "spec.compositePodGroupTemplates[0].name",
                 messages.REQUIRED,
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
    assert_refused(gang.create, gang.workload_manifest("w", None, composite=tree, version=ALPHA), field=field,
                   text=message)
    ok = [composite_template("left", pod_groups=[template("a", min_count=1)]),
          composite_template("right", pod_groups=[template("b", min_count=1)])]
    assert gang.create(gang.workload_manifest("ok", None, composite=ok, version=ALPHA))["metadata"]["uid"]


# -- rule 4: the depth of a composite template tree ----------------------------------------------------------


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
        shallow = composite_template("shallow", pod_groups=[template("shallow-leaf", min_count=1)])
        chain = template_chain(levels, template("leaf", min_count=1))
        return [chain, shallow] if position == 0 else [shallow, chain]

    assert_refused(gang.create, gang.workload_manifest("deep", None, composite=tree(4), version=ALPHA),
                   field=f"spec.compositePodGroupTemplates[{position}]", text="maximum template hierarchy depth is 4")
    created = gang.create(gang.workload_manifest("four", None, composite=tree(3), version=ALPHA))
    assert created["spec"]["compositePodGroupTemplates"][position]["name"] == "level-1"


# -- rule 5: a composite template has a child ----------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-05", profile="alpha")
@pytest.mark.parametrize(("tree", "field"), [
    pytest.param([composite_template("empty")], "spec.compositePodGroupTemplates[0]", id="no-lists"),
    pytest.param([composite_template("empty", pod_groups=[], composites=[])], "spec.compositePodGroupTemplates[0]",
                 id="empty-lists"),
    pytest.param([composite_template("outer", composites=[composite_template("inner")])],
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
    assert_refused(gang.create, gang.workload_manifest("w", None, composite=tree, version=ALPHA), field=field,
                   text="must have at least one child PodGroupTemplate or CompositePodGroupTemplate")


# -- rule 6: one priority per Workload -----------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-06", profile="alpha")
@pytest.mark.parametrize("tree", [
    pytest.param([composite_template("c", pod_groups=[template("a", min_count=1, priority=1),
                                                      template("b", min_count=1, priority=2)])],
                 id="leaves-differ"),
    pytest.param([composite_template("c", pod_groups=[template("a", min_count=1)], priorityClassName="high")],
                 id="parent-and-leaf-differ"),
    pytest.param([composite_template("c1", pod_groups=[template("a", min_count=1, priority=1)], priority=1),
                  composite_template("c2", composites=[composite_template("c3", pod_groups=[template("b", min_count=1, priority=1)],
                                                                          priority=2)],
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
    assert_refused(gang.create, gang.workload_manifest("w", None, composite=tree, version=ALPHA), field="spec",
                   text="all priority and priorityClassName values must be identical, detected multiple values")


# -- rule 7: what may change in a Workload's templates -------------------------------------------------------


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
        return {"spec": {"compositePodGroupTemplates": [
            composite_template("c", pod_groups=groups, min_group_count=min_group_count)]}}

    gang.create(gang.workload_manifest(
        "w", None, composite=tree([template("a", min_count=2)], 1)["spec"]["compositePodGroupTemplates"], version=ALPHA))
    two = tree([template("a", min_count=2), template("b", min_count=2)], 1)
    assert_refused(lambda: gang.patch("Workload", "w", two, version=ALPHA),
                   field="spec.compositePodGroupTemplates[0].podGroupTemplates[1]", text=messages.NOT_ADDED)
    spec = gang.patch("Workload", "w", tree([template("a", min_count=3)], 2), version=ALPHA)["spec"]
    composite = spec["compositePodGroupTemplates"][0]
    assert composite["schedulingPolicy"] == {"gang": {"minGroupCount": 2}}, composite
    assert composite["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 3}}, composite


# -- rule 8: one kind of scheduling policy -------------------------------------------------------------------


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
        manifest = gang.composite_pod_group_manifest("cpg", min_group_count=2, workload=TRAINING)
        field = "spec.schedulingPolicy"
        manifest["spec"]["schedulingPolicy"] = both
    else:
        composite = composite_template("c", pod_groups=[template("a", min_count=1)])
        composite["schedulingPolicy"] = both
        manifest = gang.workload_manifest("w", None, composite=[composite], version=ALPHA)
        field = "spec.compositePodGroupTemplates[0].schedulingPolicy"
    assert_refused(gang.create, manifest, field=field, text="must specify exactly one of: `basic`, `gang`")


# -- rule 9: minCount and minGroupCount ----------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-09", profile="alpha")
@pytest.mark.parametrize(("min_group_count", "message"), [(0, messages.REQUIRED), (-1, "must be greater than or equal to 1")],
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
    assert_refused(gang.create,
                   gang.composite_pod_group_manifest("bad", min_group_count=min_group_count, workload=TRAINING),
                   field="spec.schedulingPolicy.gang.minGroupCount", text=message)
    tree = [composite_template("c", pod_groups=[template("a", min_count=1)], min_group_count=min_group_count)]
    assert_refused(gang.create, gang.workload_manifest("bad", None, composite=tree, version=ALPHA),
                   field="spec.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount", text=message)
    created = gang.create(gang.composite_pod_group_manifest("good", min_group_count=1, workload=TRAINING))
    assert created["spec"]["schedulingPolicy"] == {"gang": {"minGroupCount": 1}}


# -- rule 11: the CompositePodGroup object -------------------------------------------------------------------


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
    missing = gang.composite_pod_group_manifest("no-ref", min_group_count=2, workload=TRAINING)
    del missing["spec"]["workloadRef"]
    assert_refused(gang.create, missing, field="spec.workloadRef", text=messages.REQUIRED)

    created = gang.create(gang.composite_pod_group_manifest("cpg", min_group_count=2, workload=TRAINING, parent="root"))
    assert created["spec"]["parentCompositePodGroupName"] == "root"
    assert created["spec"]["workloadRef"] == {"workloadName": "training", "templateName": "composite"}
    assert_refused(lambda: gang.patch("CompositePodGroup", "cpg", {"spec": change}, version=ALPHA), field=field,
                   text=messages.IMMUTABLE)


# -- rule 12: topology constraints ---------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-12", profile="alpha")
@pytest.mark.parametrize(("kind", "topology", "field", "message"), [
    pytest.param("PodGroup", [{"key": "rack"}, {"key": "zone"}], "spec.schedulingConstraints.topology",
                 "must have at most 1 item", id="podgroup-two-keys"),
    pytest.param("PodGroup", [{"key": ""}], "spec.schedulingConstraints.topology[0].key", messages.REQUIRED,
                 id="podgroup-empty-key"),
    pytest.param("PodGroup", [{"key": "bad key!"}], "spec.schedulingConstraints.topology[0].key",
                 "name part must consist of alphanumeric characters", id="podgroup-not-a-label-key"),
    pytest.param("Workload", [{"key": "rack"}, {"key": "zone"}],
                 "spec.podGroupTemplates[0].schedulingConstraints.topology", "must have at most 1 item",
                 id="template-two-keys"),
    pytest.param("CompositePodGroup", [{"key": "rack"}, {"key": "zone"}], "spec.schedulingConstraints.topology",
                 "must have at most 1 item", id="composite-two-keys"),
    pytest.param("CompositePodGroup", [{"key": ""}], "spec.schedulingConstraints.topology[0].key", messages.REQUIRED,
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
        manifest = gang.pod_group_manifest("bad", min_count=2, base_class=False, schedulingConstraints=constraints)
    elif kind == "Workload":
        manifest = gang.workload_manifest("bad", [template("a", min_count=1, schedulingConstraints=constraints)])
    else:
        manifest = gang.composite_pod_group_manifest("bad", min_group_count=2, workload=TRAINING,
                                                     schedulingConstraints=constraints)
    assert_refused(gang.create, manifest, field=field, text=message)

    zone = {"topology": [{"key": "topology.kubernetes.io/zone"}]}
    zoned = gang.create(gang.pod_group_manifest("zoned", min_count=2, base_class=False, schedulingConstraints=zone))
    assert zoned["spec"]["schedulingConstraints"] == zone
    rack = {"spec": {"schedulingConstraints": {"topology": [{"key": "rack"}]}}}
    assert_refused(lambda: gang.patch("PodGroup", "zoned", rack), field="spec.schedulingConstraints", text=messages.IMMUTABLE)


# -- rule 15: preemptionPolicy -------------------------------------------------------------------------------


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
    assert_refused(gang.create,
                   gang.pod_group_manifest("unknown", min_count=2, base_class=False, preemptionPolicy="Sometimes"),
                   status=403, text=f"the string value of PreemptionPolicy (Sometimes) {refused} PreemptLowerPriority")
    assert_refused(gang.create,
                   gang.pod_group_manifest("never-alone", min_count=2, base_class=False, preemptionPolicy="Never"),
                   status=403, text=f"the string value of PreemptionPolicy (Never) {refused} PreemptLowerPriority")
    assert_refused(gang.create,
                   gang.pod_group_manifest("class-alone", min_count=2, base_class=False, priorityClassName=never),
                   status=403, text=f"the string value of PreemptionPolicy (PreemptLowerPriority) {refused} Never")

    spec = gang.create(gang.pod_group_manifest("never", min_count=2, base_class=False, priorityClassName=never,
                                               preemptionPolicy="Never"))["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (gang.priority_value(never), "Never"), spec
    default = gang.create(gang.pod_group_manifest("default", min_count=2, base_class=False))
    assert default["spec"]["preemptionPolicy"] == "PreemptLowerPriority"
    assert_refused(lambda: gang.patch("PodGroup", "never", {"spec": {"preemptionPolicy": "PreemptLowerPriority"}}),
                   field="spec.preemptionPolicy", text=messages.IMMUTABLE)
    assert_refused(gang.create,
                   gang.workload_manifest("w", [template("a", min_count=1, preemptionPolicy="Sometimes")]),
                   field="spec.podGroupTemplates[0].preemptionPolicy", text='Unsupported value: "Sometimes"')


# -- rule 17: names and references ---------------------------------------------------------------------------


@pytest.mark.conformance(id="GANG-VALIDATION-17", profile="alpha")
@pytest.mark.parametrize(("kind", "spec", "field", "message"), [
    pytest.param("PodGroup", {"parentCompositePodGroupName": "root"}, "spec.workloadRef",
                 "must be set when parentCompositePodGroupName is set", id="parent-without-workload-ref"),
    pytest.param("PodGroup", {"parentCompositePodGroupName": "Bad_Name",
                              "workloadRef": {"workloadName": "w", "templateName": "t"}},
                 "spec.parentCompositePodGroupName", messages.DNS_SUBDOMAIN, id="parent-not-a-subdomain"),
    pytest.param("CompositePodGroup", {"workloadRef": {"workloadName": "w"}}, "spec.workloadRef.templateName",
                 messages.REQUIRED, id="composite-template-name-missing"),
    pytest.param("CompositePodGroup-name", {}, "metadata.name", messages.DNS_SUBDOMAIN, id="composite-name-not-a-subdomain"),
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
        manifest = gang.pod_group_manifest("bad", min_count=2, base_class=False, **spec)
        manifest["apiVersion"] = api_version(ALPHA)
    elif kind == "CompositePodGroup":
        manifest = gang.composite_pod_group_manifest("bad", min_group_count=2, workload=None, **spec)
    else:
        manifest = gang.composite_pod_group_manifest("Bad_Name", min_group_count=2, workload=TRAINING)
    assert_refused(gang.create, manifest, field=field, text=message)

    child = gang.pod_group_manifest("child", min_count=2, base_class=False, parentCompositePodGroupName="root",
                                    workloadRef={"workloadName": "training", "templateName": "leaf"})
    assert gang.create(child)["spec"]["parentCompositePodGroupName"] == "root"
    assert_refused(lambda: gang.patch("PodGroup", "child", {"spec": {"parentCompositePodGroupName": "other"}}),
                   field="spec.parentCompositePodGroupName", text=messages.IMMUTABLE)


# -- rule 21: references to objects that do not exist --------------------------------------------------------


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
    child = gang.pod_group_manifest("child", min_count=2, base_class=False, parentCompositePodGroupName="nowhere",
                                    workloadRef={"workloadName": "missing", "templateName": "leaf"})
    child["apiVersion"] = api_version(ALPHA)
    assert gang.create(child)["spec"]["parentCompositePodGroupName"] == "nowhere"
    created = gang.create(gang.composite_pod_group_manifest("orphan", min_group_count=2,
                                                            workload=("missing", "composite"), parent="nowhere"))
    assert created["spec"]["workloadRef"] == {"workloadName": "missing", "templateName": "composite"}
    assert created["spec"]["parentCompositePodGroupName"] == "nowhere"
