package main

import scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"

// schedulerOptions lists the out-of-tree plugins compiled into this
// kube-scheduler. They are registered but enabled only by a scheduler
// configuration that names them; the default profile is upstream's.
//
//   - GangconfFaultReserve (faultreserve.go): test-only Reserve failures for
//     the fault profile's checks.
func schedulerOptions() []scheduler.Option {
	return []scheduler.Option{
		scheduler.WithPlugin(faultReserveName, newFaultReserve),
	}
}
