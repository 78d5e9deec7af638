"""Deviations: where v1.37.2 breaks its own documented API contract (:mod:`fixtures.deviations`).

These are not conformance checks. Each tries, within a bounded time and with many cases at once,
to reproduce a defect of v1.37.2 against the contract its API documents, and reports
``reproduced (k of n attempts)`` or ``not reproduced in n attempts``; it never fails the run,
whatever the scheduler does. The reference scheduler keeps each contract, so the report shows the
two side by side. Run one alone: ``pytest suites -m deviation -k <test name>``.
"""

from __future__ import annotations

import json
import time

import pytest
from kubernetes.client.exceptions import ApiException

from fixtures import NodeShape, WaitTimeout, deviations, scheduler_caught_up, template, template_chain

#: The node label that gives each group of an attempt two nodes of its own.
SLOT = "gangconf.dev/slot"
#: Groups per attempt (two nodes each), and attempts per run.
GROUPS, ATTEMPTS = 6, 5


def _clear(gang, recorder, pods: list[str], *, after: int, timeout: float, what: str) -> None:
    """Delete an attempt's pods and wait until they are gone, so that the next attempt starts on an empty pool."""
    gang.delete_pods(pods)
    recorder.eventually(lambda s: s.gone(*pods), timeout=timeout, after=after, describe=f"{what} are gone")


@pytest.mark.deviation(
    id="DEV-COND-TERMINAL",
    contract="PodGroupInitiallyScheduled: Once this condition transitions to True, it serves as a terminal state and "
             "will never revert to False, even if pods are subsequently evicted and group constraints are no longer "
             "met. (k8s.io/api scheduling/v1beta1 types.go:727, PodGroupStatus.conditions)",
    source="pkg/scheduler/schedule_one_podgroup.go:951 (updatePodGroupCondition)")
def test_initially_scheduled_true_is_overwritten_by_the_leftover_members_cycle(pool, gang, recorder, timeouts,
                                                                                reproduce):
    """DEV-COND-TERMINAL: a group's ``PodGroupInitiallyScheduled=True`` turned ``False`` by its leftover member.

    v1.37.2's ``updatePodGroupCondition`` (``pkg/scheduler/schedule_one_podgroup.go``) skips a
    ``False`` only when its *informer's* copy of the PodGroup already has ``True``, then sends a
    strategic-merge patch of ``/status`` without a resourceVersion (``util.PatchPodGroupStatus``,
    ``pkg/scheduler/util/utils.go``). A member left over by a successful group cycle goes straight
    back to the queue (GANG-QUEUE-003); its own cycle fails, and when it runs before the informer has
    delivered the scheduler's own ``True``, its ``False``/``Unschedulable`` lands over the ``True``.

    Each attempt: ``GROUPS`` gangs at once, each with minCount 2, three members of 2 CPUs and two
    nodes of 2 CPUs of its own (the members select them by label, so the gangs never compete). The
    members are created before their PodGroups, so that each PodGroup's creation releases all three
    into one cycle. An attempt waits until every gang has two members bound and the third reported
    unschedulable, then until the scheduler has handled everything written before (a barrier,
    :mod:`fixtures.barrier`), then until the recorder has seen a PodGroup written after that (one
    watch delivers PodGroup writes in order, so every status patch of the attempt is recorded).
    A gang whose condition was ``True`` and later anything else is a case that reproduced the
    deviation; the attempt's members are then deleted.
    """
    pool.add(2 * GROUPS, NodeShape(cpu="2"), labels=[{SLOT: f"s{i // 2}"} for i in range(2 * GROUPS)])

    def attempt(n: int) -> deviations.Attempt:
        since, began, names = recorder.mark(), time.monotonic(), [f"a{n}-g{i}" for i in range(GROUPS)]
        members = {name: gang.pods(name, 3, group=name, cpu="2", node_selector={SLOT: f"s{i}"})
                   for i, name in enumerate(names)}
        everyone = [p for pods in members.values() for p in pods]
        recorder.eventually(lambda s: all(p in s.pods for p in everyone), timeout=timeouts.observe, after=since,
                            describe=f"the {len(everyone)} members of attempt {n} are recorded")
        for name in names:
            gang.pod_group(name, min_count=2)

        def settled(s) -> bool:
            for name in names:
                bound = {p["metadata"]["name"] for p in s.bound(name)}
                left = [p for p in members[name] if p not in bound]
                if len(bound) != 2 or (s.pod_condition(left[0]) or {}).get("status") != "False":
                    return False
            return True

        state = recorder.eventually(settled, timeout=timeouts.gang_scheduled, after=since,
                                    describe=f"every gang of attempt {n}: 2 of 3 members bound, the third unschedulable")
        scheduler_caught_up(gang, recorder, timeout=timeouts.scheduler_reacts)
        fence = f"a{n}-fence"
        gang.pod_group(fence)
        recorder.eventually(lambda s: fence in s.podgroups, timeout=timeouts.observe, after=since,
                            describe=f"the PodGroup {fence}, written after the barrier, is recorded")
        observations = recorder.timeline.snapshot()[since:]
        cases, reproduced, shown = 0, [], []
        for name in names:
            history = deviations.condition_history(observations, "PodGroup", name, "PodGroupInitiallyScheduled")
            if not any(status == "True" for _, status, _, _ in history):
                continue  # never Scheduled: this gang is no case of the deviation
            cases += 1
            if deviations.regression(history) is not None:
                reproduced.append(name)
                if not shown:
                    bound = {p["metadata"]["name"] for p in state.bound(name)}
                    left = next(p for p in members[name] if p not in bound)
                    pod = deviations.condition_history(observations, "Pod", left, "PodScheduled")
                    shown = deviations.excerpt({f"PodGroup {name}": history, f"Pod {left}": pod},
                                               since=began)
        _clear(gang, recorder, everyone, after=since, timeout=timeouts.cleanup, what=f"the members of attempt {n}")
        return deviations.Attempt(cases=cases, reproduced=reproduced, excerpt=shown)

    outcome = reproduce.run(attempt, attempts=ATTEMPTS, budget=4 * timeouts.gang_scheduled)
    print(f"{outcome['id']}: {outcome['verdict']}")


@pytest.mark.deviation(
    id="DEV-VICTIM-DISRUPTIONTARGET",
    contract='PodGroup status.conditions: "DisruptionTarget": Indicates whether the PodGroup is about to be terminated '
             'due to disruption such as preemption. Reason "PreemptionByScheduler": The PodGroup was preempted by the '
             "scheduler to make room for higher-priority PodGroups or Pods. (k8s.io/api scheduling/v1beta1 "
             "types.go:729, PodGroupStatus.conditions)",
    source="pkg/scheduler/framework/preemption/executor.go:126 (PreemptPod marks only the victim pod)")
def test_a_podgroup_preempted_as_a_whole_gets_no_disruption_target(pool, gang, recorder, timeouts, reproduce):
    """DEV-VICTIM-DISRUPTIONTARGET: a victim PodGroup preempted whole never gets ``DisruptionTarget``.

    v1.37.2 defines the PodGroup condition ``DisruptionTarget`` and its reason
    ``PreemptionByScheduler`` (``scheduling/v1beta1`` ``DisruptionTarget``,
    ``PodGroupReasonPreemptionByScheduler``), but nothing in the scheduler writes it: the
    preemption executor (``Executor.PreemptPod``, ``pkg/scheduler/framework/preemption/executor.go``)
    patches ``DisruptionTarget`` onto each victim *pod* and deletes it, also when the victim unit is
    a whole PodGroup (``disruptionMode: all``); only kubectl's printer reads the PodGroup condition.

    Each attempt: ``GROUPS`` victim gangs at once (low priority, minCount 2, ``disruptionMode``
    ``all``, two members of 1 GPU on two 1-GPU nodes of their own), then a high-priority gang of one
    1-GPU member per slot, which preempts its slot's victim gang. Once every preemptor is bound and
    every victim is gone, and the recorder has every PodGroup write (a barrier and a fence, as
    above), a victim PodGroup that never had ``DisruptionTarget=True`` is a case that reproduced
    the deviation; the attempt's pods are then deleted.
    """
    low, high = gang.priority_class("low", 100), gang.priority_class("high", 1000)
    pool.add(2 * GROUPS, NodeShape(cpu="8", gpus=1), labels=[{SLOT: f"s{i // 2}"} for i in range(2 * GROUPS)])

    def attempt(n: int) -> deviations.Attempt:
        since, began = recorder.mark(), time.monotonic()
        victims = {f"a{n}-v{i}": gang.gang(f"a{n}-v{i}", 2, gpus=1, cpu="100m", priority_class=low, disruption="all",
                                           node_selector={SLOT: f"s{i}"}) for i in range(GROUPS)}
        everyone = [p for pods in victims.values() for p in pods]
        recorder.eventually(lambda s: all(s.phase(p) == "Running" for p in everyone), timeout=timeouts.gang_scheduled,
                            after=since, describe=f"the {len(everyone)} victims of attempt {n} running")
        preemptors = [p for i in range(GROUPS) for p in gang.gang(f"a{n}-p{i}", 1, gpus=1, cpu="100m",
                                                                 priority_class=high, node_selector={SLOT: f"s{i}"})]
        recorder.eventually(lambda s: len(s.bound(prefix=f"a{n}-p")) == GROUPS and s.gone(*everyone),
                            timeout=timeouts.gang_scheduled * 2, after=since,
                            describe=f"every preemptor of attempt {n} bound, every victim gone")
        scheduler_caught_up(gang, recorder, timeout=timeouts.scheduler_reacts)
        fence = f"a{n}-fence"
        gang.pod_group(fence)
        recorder.eventually(lambda s: fence in s.podgroups, timeout=timeouts.observe, after=since,
                            describe=f"the PodGroup {fence}, written after the barrier, is recorded")
        observations = recorder.timeline.snapshot()[since:]
        reproduced, shown = [], []
        for name, pods in victims.items():
            marked = deviations.condition_history(observations, "PodGroup", name, "DisruptionTarget")
            if any(status == "True" for _, status, _, _ in marked):
                continue
            reproduced.append(name)
            if not shown:
                shown = deviations.excerpt(
                    {f"Pod {p}": deviations.condition_history(observations, "Pod", p, "DisruptionTarget") for p in pods}
                    | {f"PodGroup {name}": deviations.condition_history(observations, "PodGroup", name,
                                                                         "PodGroupInitiallyScheduled")}, since=began)
                shown.append(f"PodGroup {name}: no DisruptionTarget condition recorded")
        _clear(gang, recorder, preemptors, after=since, timeout=timeouts.cleanup, what=f"the preemptors of attempt {n}")
        return deviations.Attempt(cases=len(victims), reproduced=reproduced, excerpt=shown)

    outcome = reproduce.run(attempt, attempts=3, budget=4 * timeouts.gang_scheduled)
    print(f"{outcome['id']}: {outcome['verdict']}")


@pytest.mark.deviation(
    id="DEV-GENERATION-CLIENT",
    contract="ObjectMeta.generation: A sequence number representing a specific generation of the desired state. "
             "Populated by the system. Read-only. (k8s.io/apimachinery meta/v1 types.go:196)",
    source="pkg/registry/scheduling/podgroup/strategy.go:69 (PrepareForCreate keeps metadata.generation)")
def test_a_client_supplied_generation_is_kept_and_observed(pool, gang, recorder, timeouts, reproduce):
    """DEV-GENERATION-CLIENT: a PodGroup created with ``metadata.generation`` keeps the client's number.

    v1.37.2's PodGroup registry (``podGroupStrategy.PrepareForCreate``,
    ``pkg/registry/scheduling/podgroup/strategy.go``) clears the status a client sends on create
    but neither sets nor clears ``metadata.generation`` (other registries set it to 1), so a number
    the client wrote is stored; kube-scheduler then copies it into its condition's
    ``observedGeneration`` (``updatePodGroupCondition``). This is the API server's deviation: the
    scheduler under test cannot change it, so both columns of the report show it.

    Each attempt: ``GROUPS`` gangs at once (minCount 1, one member), each PodGroup created with
    ``metadata.generation`` 41 and up; a PodGroup the server returns with that number is a case
    that reproduced the deviation. The excerpt shows the condition it then got, once Scheduled.
    """
    pool.add(1, NodeShape(cpu="8"))

    def attempt(n: int) -> deviations.Attempt:
        since, began = recorder.mark(), time.monotonic()
        sent: dict[str, int] = {}
        stored: dict[str, object] = {}
        for i in range(GROUPS):
            name, sent[f"a{n}-g{i}"] = f"a{n}-g{i}", 41 + i
            manifest = gang.pod_group_manifest(name, min_count=1)
            manifest["metadata"]["generation"] = sent[name]
            stored[name] = gang.create(manifest)["metadata"].get("generation")
            gang.pods(name, 1, group=name, cpu="100m")
        state = recorder.eventually(
            lambda s: all((s.group_condition(g) or {}).get("status") == "True" for g in sent),
            timeout=timeouts.gang_scheduled, after=since, describe=f"every PodGroup of attempt {n} Scheduled")
        reproduced = [g for g in sent if stored[g] == sent[g]]
        shown = []
        if reproduced:
            g = reproduced[0]
            cond = state.group_condition(g)
            observations = recorder.timeline.snapshot()[since:]
            shown = [f"PodGroup {g} created with metadata.generation {sent[g]}: the server stored {stored[g]}",
                     *deviations.excerpt({f"PodGroup {g}": deviations.condition_history(
                         observations, "PodGroup", g, "PodGroupInitiallyScheduled")}, since=began),
                     f"PodGroup {g} PodGroupInitiallyScheduled observedGeneration: {cond.get('observedGeneration')}"]
        members = [f"{g}-0" for g in sent]
        _clear(gang, recorder, members, after=since, timeout=timeouts.cleanup, what=f"the members of attempt {n}")
        return deviations.Attempt(cases=len(sent), reproduced=reproduced, excerpt=shown)

    outcome = reproduce.run(attempt, attempts=2, budget=2 * timeouts.gang_scheduled)
    print(f"{outcome['id']}: {outcome['verdict']}")


@pytest.mark.deviation(
    id="DEV-PREEMPTPOLICY-DEFAULTING", profile="alpha",
    contract="PodGroupSpec.preemptionPolicy: One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if "
             "unset. When Priority Admission Controller is enabled, it populates this field from PriorityClassName, "
             "and defaults to PreemptLowerPriority if value is unset in PriorityClass. (k8s.io/api scheduling/v1beta1 "
             "types.go:707)",
    source="pkg/apis/scheduling/v1beta1/defaults.go:42 (defaulted before plugin/pkg/admission/priority/admission.go:234)")
def test_a_podgroup_naming_a_never_class_without_the_field_is_refused(gang, reproduce):
    """DEV-PREEMPTPOLICY-DEFAULTING: with PodGroupPreemptionPolicy on, a PodGroup whose PriorityClass
    says ``preemptionPolicy: Never`` and that sets no ``preemptionPolicy`` of its own is refused.

    v1.37.2's defaulting (``SetDefaults_PodGroup``, ``pkg/apis/scheduling/v1beta1/defaults.go``)
    fills an unset ``preemptionPolicy`` with ``PreemptLowerPriority`` before admission runs; the
    Priority admission plugin (``admitPodGroup``, ``plugin/pkg/admission/priority/admission.go``) then
    sees a field "set" that differs from the class's ``Never`` and refuses the PodGroup with 403
    ``the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod group
    spec``, where the API documents that admission populates it from the class. This is the API
    server's deviation: the scheduler under test cannot change it, so both columns show it.

    Each attempt creates ``GROUPS`` such PodGroups; one refused, or stored with any policy but
    ``Never``, is a case that reproduced the deviation.
    """
    never = gang.priority_class("never", 500, preemption_policy="Never")

    def attempt(n: int) -> deviations.Attempt:
        reproduced, shown = [], []
        for i in range(GROUPS):
            name = f"a{n}-g{i}"
            manifest = gang.pod_group_manifest(name, min_count=1, priority_class=never)
            try:
                stored = gang.create(manifest)
            except ApiException as exc:
                what = f"PodGroup {name} (priorityClassName {never}, no preemptionPolicy): HTTP {exc.status}: " \
                       f"{json.loads(exc.body or '{}').get('message')}"
            else:
                policy = (stored.get("spec") or {}).get("preemptionPolicy")
                if policy == "Never":
                    continue
                what = f"PodGroup {name} (priorityClassName {never}, no preemptionPolicy): stored with {policy}"
            reproduced.append(name)
            shown = shown or [what]
        return deviations.Attempt(cases=GROUPS, reproduced=reproduced, excerpt=shown)

    outcome = reproduce.run(attempt, attempts=2, budget=60)
    print(f"{outcome['id']}: {outcome['verdict']}")


#: The PriorityClasses every cluster has (``scheduling/v1`` ``SystemPriorityClasses``), above the user maximum.
SYSTEM_CLASSES = ("system-cluster-critical", "system-node-critical")


def _answer(create) -> str:
    """What the server answered a create: ``accepted`` with the priority it got, or the refusal in one line."""
    try:
        obj = create()
    except ApiException as exc:
        return f"HTTP {exc.status}: {json.loads(exc.body or '{}').get('message')}"
    return f"accepted, spec.priority {(obj.get('spec') or {}).get('priority')}"


@pytest.mark.deviation(
    id="DEV-PRIORITY-SYSTEM-CLASS",
    contract="PodGroupSpec.priority: When Priority Admission Controller is enabled, it prevents users from setting "
             "this field. The admission controller populates this field from PriorityClassName. "
             "(k8s.io/api scheduling/v1beta1 types.go:693, PodGroupSpec.priority; priorityClassName, types.go:680: "
             "Controllers are expected to fill this field by copying it from a PodGroupTemplate.)",
    source="pkg/apis/scheduling/v1beta1/zz_generated.validations.go:1510 (maximum 1000000000 on the priority "
           "plugin/pkg/admission/priority/admission.go:221 wrote)")
def test_a_podgroup_naming_a_system_priority_class_is_refused(gang, reproduce):
    """DEV-PRIORITY-SYSTEM-CLASS: a PodGroup naming ``system-cluster-critical`` or ``system-node-critical``
    is refused with 422, for a ``spec.priority`` the client never set.

    v1.37.2's Priority admission (``admitPodGroup``, ``plugin/pkg/admission/priority/admission.go``)
    resolves the class and writes its value into ``spec.priority`` (2000000000 and 2000001000 for
    the two system classes); declarative validation of ``PodGroupSpec`` then applies its
    ``+k8s:maximum=1000000000`` (HighestUserDefinablePriority) to that value and refuses the
    PodGroup with 422 ``spec.priority: Invalid value: ...: must be less than or equal to
    1000000000``. The class exists in every cluster, a Pod naming it in the same namespace is
    admitted (Priority admission has no namespace rule; only a ResourceQuota configuration can
    limit it), and a Workload template naming it is accepted (admission does not resolve
    templates), so a controller copying that template into a PodGroup, as the API asks, is refused.
    This is the API server's deviation: the scheduler under test cannot change it, so both columns
    show it.

    Each attempt creates ``GROUPS`` PodGroups, half naming each system class; one refused is a
    case that reproduced the deviation. The excerpt shows the server's answer, beside those to a
    dry-run Pod and a dry-run Workload template naming the same class.
    """
    def attempt(n: int) -> deviations.Attempt:
        reproduced, shown = [], []
        for i in range(GROUPS):
            name, cls = f"a{n}-g{i}", SYSTEM_CLASSES[i % 2]
            what = _answer(lambda: gang.create(gang.pod_group_manifest(name, min_count=1, priority_class=cls)))
            if what.startswith("accepted"):
                continue
            reproduced.append(name)
            if not shown:
                pod = gang.pod_manifest(f"{name}-pod", priority_class=cls)
                workload = gang.workload_manifest(f"{name}-workload", [template("a", min_count=1,
                                                                                priorityClassName=cls)])
                group, version = workload["apiVersion"].split("/")
                shown = [f"PodGroup {name} (priorityClassName {cls}): {what}",
                         f"Pod {name}-pod (priorityClassName {cls}, same namespace, dry run): " + _answer(
                             lambda: gang.api.sanitize_for_serialization(
                                 gang.core.create_namespaced_pod(gang.namespace, pod, dry_run="All"))),
                         f"Workload {name}-workload (template priorityClassName {cls}, dry run): " + _answer(
                             lambda: gang.custom.create_namespaced_custom_object(
                                 group, version, gang.namespace, "workloads", workload, dry_run="All"))]
        return deviations.Attempt(cases=GROUPS, reproduced=reproduced, excerpt=shown)

    outcome = reproduce.run(attempt, attempts=2, budget=60)
    print(f"{outcome['id']}: {outcome['verdict']}")


#: CompositePodGroups in a chain of the depth a Workload's templates allow (3 over the PodGroup, 4
#: levels in all), and in one deeper than kube-scheduler's walk to the root. v1.37.2 still serves a
#: chain of 4 (5 levels, which the templates would refuse): its walk reaches the root; from 5 on it does not.
LEGAL_CHAIN, DEEP_CHAIN = 3, 5


@pytest.mark.deviation(
    id="DEV-COMPOSITE-DEPTH", profile="alpha",
    contract='CompositePodGroupStatus.conditions: Known reasons for the CompositePodGroupInitiallyScheduled '
             'condition: "Invalid": Set to True when kube-scheduler detects an invalid group layout during runtime '
             "validation. The `message` field details the specific layout violation (such as a detected cycle, "
             "exceeding the maximum depth of 4, or referencing multiple distinct Workloads). (k8s.io/api "
             "scheduling/v1alpha3 types.go:1399)",
    source="pkg/scheduler/backend/cache/cache.go:1315 (BuildHierarchySnapshotFromPod stops below the root); "
           "pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go:292 (PreEnqueue rejects, silently)")
def test_a_composite_chain_deeper_than_the_limit_is_never_reported_invalid(pool, gang, recorder, timeouts, reproduce):
    """DEV-COMPOSITE-DEPTH: a chain of CompositePodGroups deeper than 4 levels is never reported
    ``Invalid``; on v1.37.2 its pods wait forever, with no condition on any object and no event.

    The API limits the depth only of a Workload's templates; CompositePodGroups and PodGroups name
    their parent by name, and a chain of any depth is accepted. v1.37.2's
    ``BuildHierarchySnapshotFromPod`` (``pkg/scheduler/backend/cache/cache.go``) walks up at most
    ``WorkloadMaxTreeDepth - 1`` parents and builds the snapshot from where it stopped, below the
    real root; GangScheduling's PreEnqueue (``checkCPGHierarchyReadiness``,
    ``pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go``) then finds no root in that
    snapshot and rejects the pod as ``UnschedulableAndUnresolvable``. A PreEnqueue rejection writes
    nothing, and nothing in v1.37.2 writes a CompositePodGroup condition, so the ``Invalid`` the API
    documents never comes. The reference scheduler has no depth limit either: it serves the chain
    (the excerpt says which), which breaks the same sentence, so both columns show it.

    Each attempt: one chain of ``LEGAL_CHAIN`` CompositePodGroups (the control: its member must be
    bound, else the attempt is inconclusive) and ``GROUPS`` chains of ``DEEP_CHAIN``, each over a
    gang PodGroup (minCount 1) with one member, all created root first, with room for every
    member. Once the control is bound, the deep chains are given ``stays_pending`` seconds to be
    reported ``Invalid``, then the scheduler a barrier (:mod:`fixtures.barrier`) and a fence, as
    above. A deep chain none of whose CompositePodGroups has a condition of reason ``Invalid`` is
    a case that reproduced the deviation; the excerpt says what its member got instead (bound, a
    condition, an event, or nothing at all). The attempt's members are then deleted.
    """
    pool.add(1, NodeShape(cpu="8"))

    def chain(n: int, i: int, depth: int) -> tuple[str, list[str], str]:
        """A Workload, ``depth`` CompositePodGroups root first, the leaf PodGroup and its member."""
        workload, leaf = f"a{n}-w{i}", f"a{n}-c{i}"
        gang.create(gang.workload_manifest(workload, None, composite=[template_chain(
            LEGAL_CHAIN, template("leaf", min_count=1))]))
        composites = [f"{leaf}-{k}" for k in range(depth, 0, -1)]
        for k, name in enumerate(composites):
            level = min(k + 1, LEGAL_CHAIN)
            gang.composite_pod_group(name, workload=(workload, f"level-{level}"),
                                     parent=composites[k - 1] if k else None)
        gang.pod_group(leaf, min_count=1, workload=(workload, "leaf"), parent=composites[-1])
        return leaf, composites, gang.pods(leaf, 1, group=leaf)[0]

    def attempt(n: int) -> deviations.Attempt:
        since, began = recorder.mark(), time.monotonic()
        control = chain(n, GROUPS, LEGAL_CHAIN)
        deep = [chain(n, i, DEEP_CHAIN) for i in range(GROUPS)]
        members = [control[2]] + [member for _, _, member in deep]
        recorder.eventually(lambda s: bool(s.bound(control[0])), timeout=timeouts.gang_scheduled, after=since,
                            describe=f"the member of the {LEGAL_CHAIN}-level control chain of attempt {n} bound")

        def invalid(s, composites: list[str]) -> bool:
            return any(c.get("reason") == "Invalid" for name in composites
                       for c in ((s.composites.get(name) or {}).get("status") or {}).get("conditions") or [])

        def got(s, leaf: str, composites: list[str], member: str) -> str:
            """What the member of a deep chain and its objects got, in one line."""
            pod = s.pods.get(member) or {}
            said = [f"bound to {node}" if (node := (pod.get("spec") or {}).get("nodeName")) else "not bound"]
            cond = s.pod_condition(member)
            said.append(f"PodScheduled {cond.get('status')}/{cond.get('reason')}" if cond
                        else "no PodScheduled condition")
            said.append(f"{len(s.events_for(member, 'FailedScheduling'))} FailedScheduling events")
            group = s.group_condition(leaf)
            said.append(f"PodGroup {leaf} {group.get('status')}/{group.get('reason')}" if group
                        else f"PodGroup {leaf}: no condition")
            marked = [name for name in composites
                      if ((s.composites.get(name) or {}).get("status") or {}).get("conditions")]
            said.append(f"CompositePodGroups with a condition: {', '.join(marked) or 'none'}")
            return f"Pod {member}: " + "; ".join(said)

        try:
            recorder.eventually(lambda s: all(invalid(s, composites) for _, composites, _ in deep),
                                timeout=timeouts.stays_pending, after=since,
                                describe=f"every deep chain of attempt {n} reported Invalid")
        except WaitTimeout:
            pass  # the outcome on v1.37.2; judged on the state after the barrier
        scheduler_caught_up(gang, recorder, timeout=timeouts.scheduler_reacts)
        fence = f"a{n}-fence"
        gang.pod_group(fence)
        state = recorder.eventually(lambda s: fence in s.podgroups, timeout=timeouts.observe, after=since,
                                    describe=f"the PodGroup {fence}, written after the barrier, is recorded")
        reproduced = [leaf for leaf, composites, _ in deep if not invalid(state, composites)]
        shown = []
        if reproduced:
            leaf, composites, member = next(d for d in deep if d[0] == reproduced[0])
            shown = [f"CompositePodGroups {' > '.join(composites)} > PodGroup {leaf}: all accepted by the API",
                     f"Pod {control[2]} of the {LEGAL_CHAIN}-level control chain: bound to "
                     f"{(state.pods[control[2]].get('spec') or {}).get('nodeName')}",
                     f"+{time.monotonic() - began:.3f}s {got(state, leaf, composites, member)}"]
        _clear(gang, recorder, members, after=since, timeout=timeouts.cleanup, what=f"the members of attempt {n}")
        return deviations.Attempt(cases=GROUPS, reproduced=reproduced, excerpt=shown)

    outcome = reproduce.run(attempt, attempts=2, budget=2 * timeouts.gang_scheduled)
    print(f"{outcome['id']}: {outcome['verdict']}")
