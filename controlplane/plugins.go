package main

import (
	"gangconf.dev/controlplane/faultplugin"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

// schedulerOptions lists the out-of-tree plugins compiled into this
// kube-scheduler. They are registered but enabled only by a scheduler
// configuration that names them; the default profile is upstream's.
//
//   - GangconfFaultReserve (faultplugin/): test-only Reserve failures for
//     the fault profile's checks. A fork's own kube-scheduler main registers
//     it the same way.
func schedulerOptions() []scheduler.Option {
	return []scheduler.Option{
		scheduler.WithPlugin(faultplugin.Name, faultplugin.New),
	}
}
