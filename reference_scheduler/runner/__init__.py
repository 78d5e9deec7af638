"""The reference scheduler against a real API server: informers, the API writer, the loop, ``main``.

Mirrors what cmd/kube-scheduler and scheduler.go's ``Run`` do around the core.

What the harness relies on is defined here, once: the line printed when the informers have
synced, the default scheduler name, and the API coordinates of the objects it watches.
"""

#: Printed to the log once every informer has listed: the harness waits for it.
READY_LINE = "reference scheduler ready: informers synced"
#: The ``spec.schedulerName`` served when ``--scheduler-name`` is not given.
DEFAULT_SCHEDULER_NAME = "gangconf-reference"
#: PodGroups are ``scheduling.k8s.io/v1beta1`` in v1.37.
SCHEDULING = ("scheduling.k8s.io", "v1beta1")
#: CompositePodGroup exists only in v1alpha3 in v1.37.
COMPOSITE_API = ("scheduling.k8s.io", "v1alpha3")
