"""The in-tree plugins by name, and the one in-tree profile.

Mirrors pkg/scheduler/framework/plugins/registry.go (``NewInTreeRegistry``) and the default
plugins of pkg/scheduler/apis/config/v1/default_plugins.go with v1.37.2's gates applied: the
plugins of the default profile that the reference scheduler has, in upstream's order at each
point. The fault profile's Reserve plugin is added only when its label is given.
"""

from __future__ import annotations

from reference_scheduler.features import Features
from reference_scheduler.framework.registry import Factory, ProfileConfig, Registry
from reference_scheduler.plugins import defaultbinder, defaultpreemption, dynamicresources, fault, gangscheduling
from reference_scheduler.plugins import podgrouppodscount, topologyaware
from reference_scheduler.plugins.nodeaffinity import NodeAffinity
from reference_scheduler.plugins.nodename import NodeName
from reference_scheduler.plugins.noderesources import NodeResourcesFit
from reference_scheduler.plugins.nodeunschedulable import NodeUnschedulable
from reference_scheduler.plugins.queuesort import PrioritySort
from reference_scheduler.plugins.schedulinggates import SchedulingGates
from reference_scheduler.plugins.tainttoleration import TaintToleration

#: Plugin name -> factory(args, handle, features).
IN_TREE: dict[str, Factory] = {
    NodeUnschedulable.NAME: lambda args, handle, features: NodeUnschedulable(),
    NodeName.NAME: lambda args, handle, features: NodeName(),
    TaintToleration.NAME: lambda args, handle, features: TaintToleration(),
    NodeAffinity.NAME: lambda args, handle, features: NodeAffinity(),
    NodeResourcesFit.NAME: lambda args, handle, features: NodeResourcesFit(),
    SchedulingGates.NAME: lambda args, handle, features: SchedulingGates(),
    PrioritySort.NAME: lambda args, handle, features: PrioritySort(),
    gangscheduling.NAME: lambda args, handle, features: gangscheduling.GangScheduling(handle, features),
    defaultpreemption.NAME: lambda args, handle, features: defaultpreemption.DefaultPreemption(handle, features),
    dynamicresources.NAME: lambda args, handle, features: dynamicresources.DynamicResources(features),
    topologyaware.NAME: lambda args, handle, features: topologyaware.TopologyPlacementGenerator(handle),
    podgrouppodscount.NAME: lambda args, handle, features: podgrouppodscount.PodGroupPodsCount(handle),
    defaultbinder.NAME: lambda args, handle, features: defaultbinder.DefaultBinder(handle),
    fault.NAME: lambda args, handle, features: fault.FaultReserve(args["label"]),
}


def in_tree_registry() -> Registry:
    """A registry of every in-tree plugin (a new one each time: callers may replace plugins in it)."""
    registry = Registry()
    for name, factory in IN_TREE.items():
        registry.register(name, factory)
    return registry


def in_tree_profile(features: Features, fault_reserve_label: str | None = None) -> ProfileConfig:
    """The in-tree profile: plugin names per extension point, in the order they run, and their arguments.

    The weights are the default profile's (1 for NodeResourcesFit and PodGroupPodsCount). No in-tree plugin of the reference has work at PreFilter, PreScore, PreBind or PostBind; the
    points run all the same. The placement points have plugins only with TopologyAwareWorkloadScheduling.
    """
    topology_aware = features.topology_aware_workload_scheduling
    plugins = {
        "PreEnqueue": [SchedulingGates.NAME, gangscheduling.NAME],
        "QueueSort": [PrioritySort.NAME],
        "PlacementGenerate": [topologyaware.NAME] if topology_aware else [],
        "PlacementFeasible": [gangscheduling.NAME],
        "PreFilter": [],
        "Filter": [NodeUnschedulable.NAME, NodeName.NAME, TaintToleration.NAME, NodeAffinity.NAME,
                   NodeResourcesFit.NAME],
        "PostFilter": [defaultpreemption.NAME],
        "PreScore": [],
        "Score": [NodeResourcesFit.NAME],
        "PlacementScore": [podgrouppodscount.NAME, NodeResourcesFit.NAME] if topology_aware else [],
        "PodGroupPostFilter": [dynamicresources.NAME, defaultpreemption.NAME],
        "Reserve": [fault.NAME] if fault_reserve_label else [],
        "Permit": [gangscheduling.NAME],
        "PreBind": [],
        "Bind": [defaultbinder.NAME],
        "PostBind": [],
    }
    return ProfileConfig(plugins, args={fault.NAME: {"label": fault_reserve_label}} if fault_reserve_label else {})
