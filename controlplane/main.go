// Command kube is a multi-call binary holding the three control-plane
// components gangconf runs as local processes: kube-apiserver,
// kube-controller-manager and kube-scheduler, all built from the
// k8s.io/kubernetes module of one release, and kubectl from the same
// release's k8s.io/kubectl, to talk to the clusters it starts.
//
// The component is chosen from the name the binary was invoked under
// (symlinks named after each component), falling back to the first argument
// (`kube kube-scheduler --help`). Only the chosen component's command is
// constructed: the components register process-wide state (signal handlers,
// feature-gate and effective-version registries) while they are built, so
// building more than one in a process is not safe.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	_ "time/tzdata" // CronJob time zones, as the upstream mains do

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // JSON log format
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

// components maps each name the binary answers to onto a function that
// builds and runs that command, returning its exit code.
var components = map[string]func() int{
	"kube-apiserver":          func() int { return cli.Run(apiserver.NewAPIServerCommand()) },
	"kube-controller-manager": func() int { return cli.Run(controllermanager.NewControllerManagerCommand()) },
	"kube-scheduler":          func() int { return cli.Run(scheduler.NewSchedulerCommand(schedulerOptions()...)) },
	"kubectl":                 runKubectl,
}

func main() {
	name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	run, ok := components[name]
	if !ok && len(os.Args) > 1 {
		if run, ok = components[os.Args[1]]; ok {
			os.Args = os.Args[1:]
		}
	}
	if !ok {
		fmt.Fprintf(os.Stderr, "kube: invoke as one of kube-apiserver, kube-controller-manager, kube-scheduler, kubectl (by symlink or as the first argument)\n")
		os.Exit(2)
	}
	os.Exit(run())
}
