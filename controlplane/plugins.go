package main

import scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"

// schedulerOptions lists the out-of-tree plugins compiled into this
// kube-scheduler. They are registered but enabled only by a scheduler
// configuration that names them; the default profile is upstream's.
func schedulerOptions() []scheduler.Option {
	return nil
}
