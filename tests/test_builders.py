"""The builders' manifests and the pools' label handling, without a cluster.

A manifest is a plain dict: these tests pin the field names the alpha checks depend on (they are
the v1.37 JSON names) and the refusal of a label list that does not match the node count.
"""

from __future__ import annotations

import pytest
from kubernetes import client

from fixtures.builders import GangBuilder
from fixtures.kube import SCHEDULING, SCHEDULING_ALPHA
from fixtures.timeline import Observation, State
from fixtures.pools import check_labels, topology_key


class _Pool:
    id = "ptest000001"
    node_selector = {"gangconf.io/pool": "ptest000001"}
    tolerations = [{"key": "gangconf.io/pool", "operator": "Equal", "value": "ptest000001", "effect": "NoSchedule"}]


@pytest.fixture
def gang() -> GangBuilder:
    return GangBuilder(client.ApiClient(), "ns", _Pool(), {"gangconf.io/run": "r"}, scheduler_name="sched")


def test_pod_group_in_a_tree_with_a_topology_constraint_and_a_policy(gang):
    pg = gang.pod_group_manifest("a", min_count=2, workload=("w", "a"), parent="root", topology_key="k",
                                 preemption_policy="Never")
    assert pg["apiVersion"] == "/".join(SCHEDULING)
    assert pg["spec"] == {"schedulingPolicy": {"gang": {"minCount": 2}},
                          "workloadRef": {"workloadName": "w", "templateName": "a"},
                          "schedulingConstraints": {"topology": [{"key": "k"}]},
                          "parentCompositePodGroupName": "root", "preemptionPolicy": "Never"}


def test_composite_pod_group_is_v1alpha3_and_needs_its_workload(gang):
    cpg = gang.composite_pod_group_manifest("root", workload=("w", "root"), min_group_count=2, topology_key="z")
    assert cpg["apiVersion"] == "/".join(SCHEDULING_ALPHA) and cpg["kind"] == "CompositePodGroup"
    assert cpg["spec"] == {"schedulingPolicy": {"gang": {"minGroupCount": 2}},
                           "workloadRef": {"workloadName": "w", "templateName": "root"},
                           "schedulingConstraints": {"topology": [{"key": "z"}]}}
    assert gang.composite_pod_group_manifest("b", workload=("w", "b"))["spec"]["schedulingPolicy"] == {"basic": {}}


def test_workload_with_composite_templates(gang):
    wl = gang.workload_manifest("w", None, composite=[gang.composite_template(
        "root", min_group_count=1, composites=[gang.composite_template("mid", pod_groups=[gang.template("a", min_count=2)])])])
    (root,) = wl["spec"]["compositePodGroupTemplates"]
    assert "podGroupTemplates" not in wl["spec"]
    assert root["compositePodGroupTemplates"][0]["podGroupTemplates"] == [
        {"name": "a", "schedulingPolicy": {"gang": {"minCount": 2}}}]


def test_job_pod_template_is_the_test_pod(gang):
    job = gang.job_manifest("train", parallelism=3, cpu="2")
    spec = job["spec"]
    assert (spec["parallelism"], spec["completions"]) == (3, 3)
    assert spec["scheduling"] == {"schedulingPolicy": {"gang": {}}}
    pod = spec["template"]["spec"]
    assert pod["schedulerName"] == "sched" and pod["restartPolicy"] == "Never"
    assert pod["nodeSelector"] == _Pool.node_selector and pod["tolerations"] == _Pool.tolerations
    assert gang.job_manifest("b", parallelism=2, min_count=1)["spec"]["scheduling"] == {
        "schedulingPolicy": {"gang": {"minCount": 1}}}
    assert "scheduling" not in gang.job_manifest("c", parallelism=1, policy=None)["spec"]


def test_labels_are_one_dict_per_node():
    assert check_labels(2, None) == [{}, {}]
    assert check_labels(2, [{"k": "a"}, {"k": "b"}]) == [{"k": "a"}, {"k": "b"}]
    with pytest.raises(ValueError, match="labels has 1 entries for 2 nodes"):
        check_labels(2, [{"k": "a"}])


def test_topology_key_is_unique_to_the_pool():
    assert topology_key(_Pool(), "rack") == "ptest000001.gangconf.io/rack"


def test_state_keeps_composite_pod_groups_and_shows_them():
    state = State()
    cpg = {"metadata": {"name": "root"}, "spec": {}, "status": {}}
    state.apply(Observation(0.0, "CompositePodGroup", "ADDED", cpg))
    state.apply(Observation(0.1, "PodGroup", "ADDED", {"metadata": {"name": "a"},
                                                         "spec": {"parentCompositePodGroupName": "root"}}))
    assert state.composites == {"root": cpg}
    assert "CompositePodGroup root: conditions=-" in state.summary()
    assert "PodGroup a (in root)" in state.summary()
    state.apply(Observation(0.2, "CompositePodGroup", "DELETED", {"metadata": {"name": "root"}}))
    assert state.composites == {}


def test_the_base_class_goes_on_every_pod_and_group_that_names_none(gang):
    """On a shared cluster (:meth:`GangBuilder.use_base_class`) nothing gangconf creates is left at the
    cluster's default priority: pods, PodGroups, CompositePodGroups and a Job's pods name the base class."""
    assert "priorityClassName" not in gang.pod_manifest("p")["spec"]
    gang.base_class = "ns-base"
    assert gang.pod_manifest("p")["spec"]["priorityClassName"] == "ns-base"
    assert gang.pod_manifest("p", priority_class="ns-high")["spec"]["priorityClassName"] == "ns-high"
    assert gang.pod_group_manifest("g", min_count=2)["spec"]["priorityClassName"] == "ns-base"
    assert gang.pod_group_manifest("g", priority_class="ns-high")["spec"]["priorityClassName"] == "ns-high"
    assert gang.composite_pod_group_manifest("c", workload=("w", "c"))["spec"]["priorityClassName"] == "ns-base"
    assert gang.composite_pod_group_manifest("c", workload=("w", "c"),
                                             priorityClassName="ns-high")["spec"]["priorityClassName"] == "ns-high"
    job = gang.job_manifest("j", parallelism=2)
    assert job["spec"]["template"]["spec"]["priorityClassName"] == "ns-base"


def test_one_template_factory_with_one_default():
    """``min_count=None`` is ``basic`` (a gang is asked for); other fields are sent as spelled;
    ``fixtures.template`` and ``GangBuilder.template`` are the same function."""
    import fixtures
    from fixtures.builders import composite_template, template, template_chain
    assert fixtures.template is template is GangBuilder.template
    assert template("a") == {"name": "a", "schedulingPolicy": {"basic": {}}}
    assert template("a", min_count=1, priority=3) == {"name": "a", "schedulingPolicy": {"gang": {"minCount": 1}},
                                                      "priority": 3}
    assert composite_template("c", pod_groups=[], composites=[]) == {
        "name": "c", "schedulingPolicy": {"basic": {}}, "podGroupTemplates": [], "compositePodGroupTemplates": []}
    assert "podGroupTemplates" not in composite_template("c")
    leaf = template("leaf", min_count=1)
    chain = template_chain(3, leaf)
    names = []
    node = chain
    while "compositePodGroupTemplates" in node:
        names.append(node["name"])
        node = node["compositePodGroupTemplates"][0]
    assert names == ["level-1", "level-2"] and node["name"] == "level-3" and node["podGroupTemplates"] == [leaf]


def test_a_pod_group_without_the_base_class_and_with_extra_fields(gang):
    gang.base_class = "ns-base"
    spec = gang.pod_group_manifest("g", min_count=2, base_class=False, priority=5)["spec"]
    assert "priorityClassName" not in spec and spec["priority"] == 5
    assert gang.pod_group_manifest("g", base_class=False, priorityClassName="x")["spec"]["priorityClassName"] == "x"


class _Gone:
    """A client API whose every delete answers 404, or ``status``."""

    def __init__(self, status: int = 404):
        self.status, self.calls = status, []

    def __getattr__(self, name):
        def call(*args, **kwargs):
            self.calls.append((name, args))
            from kubernetes.client.rest import ApiException
            raise ApiException(status=self.status)
        return call


@pytest.mark.parametrize(("kind", "api", "version"), [
    ("Pod", "core", None), ("PodGroup", "custom", "v1beta1"), ("Workload", "custom", "v1beta1"),
    ("CompositePodGroup", "custom", "v1alpha3")])
def test_delete_takes_gone_already_for_success_and_names_the_kind(gang, kind, api, version):
    fake = _Gone()
    setattr(gang, api, fake)
    gang.delete(kind, "x")
    (name, args), = fake.calls
    assert name.startswith("delete_namespaced") and "x" in args
    if version:
        assert version in args


def test_delete_raises_any_other_refusal(gang):
    from kubernetes.client.rest import ApiException
    gang.custom = _Gone(403)
    with pytest.raises(ApiException):
        gang.delete_pod_group("x")
