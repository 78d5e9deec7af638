// Package faultplugin is gangconf's test-only Reserve plugin: it makes chosen
// pods fail Reserve, so that the conformance suite can reach the paths of the
// scheduler that stock plugins never take (a gang member that cannot be handed
// over to binding while its siblings wait at Permit, and the Permit timeout
// that follows).
//
// It is compiled into gangconf's kube-scheduler (and into every fork build of
// --scheduler-source) but enabled only by the scheduler configuration of the
// fault profile. A fork that ships its own kube-scheduler binary registers it
// in its main the way out-of-tree plugins are:
//
//	import "gangconf.dev/controlplane/faultplugin"
//	app.NewSchedulerCommand(app.WithPlugin(faultplugin.Name, faultplugin.New))
//
// It depends only on staging modules (k8s.io/api, apimachinery, client-go,
// klog, kube-scheduler), so it builds against any v1.36 or v1.37 tree.
//
// A pod opts in with the label
//
//	fault.gangconf.io/reserve: once     its first hand-over Reserve fails
//	fault.gangconf.io/reserve: always   every hand-over Reserve fails
//
// A "hand-over" Reserve is the one that precedes Permit and binding. A pod of
// a pod group is also reserved while the pod-group algorithm tries its
// placement (the cycle state then reports a pod-group scheduling cycle); that
// trial Reserve passes for "once". For "always" it passes until the pod's
// first hand-over failure and fails from then on, as a Reserve that can never
// succeed would: v1.37 puts the members that a successful pod-group cycle
// could not hand over straight back into the active queue, so a fault that
// passed every trial would have the scheduler retry the pod in a tight loop.
//
// The label is read from the scheduler's informer, so removing it lifts the
// fault for the next attempt. The plugin remembers pods by UID: a recreated
// pod with the same name starts afresh.
package faultplugin

import (
	"context"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

const (
	// Name is the plugin's name in a KubeSchedulerConfiguration.
	Name = "GangconfFaultReserve"
	// Label is the pod label that selects the fault.
	Label = "fault.gangconf.io/reserve"

	// Once fails a pod's first hand-over Reserve.
	Once = "once"
	// Always fails every hand-over Reserve of a pod (and its trials after the first failure).
	Always = "always"
)

// faultReserve fails Reserve for pods labelled Label.
type faultReserve struct {
	pods corelisters.PodLister

	mu sync.Mutex
	// handedOverFailures counts, per pod, the hand-over Reserves this plugin failed.
	handedOverFailures map[types.UID]int
}

var _ fwk.ReservePlugin = &faultReserve{}

// New is the plugin's factory (a framework runtime.PluginFactory); it takes no arguments.
func New(_ context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return &faultReserve{
		pods:               h.SharedInformerFactory().Core().V1().Pods().Lister(),
		handedOverFailures: map[types.UID]int{},
	}, nil
}

func (f *faultReserve) Name() string { return Name }

// mode is the pod's fault mode as the informer sees the pod now (so that a removed
// label lifts the fault), or as the scheduler's copy says when the informer does not
// have this very pod.
func (f *faultReserve) mode(pod *v1.Pod) string {
	if live, err := f.pods.Pods(pod.Namespace).Get(pod.Name); err == nil && live.UID == pod.UID {
		return live.Labels[Label]
	}
	return pod.Labels[Label]
}

// Reserve fails as the pod's label asks; see the file comment.
func (f *faultReserve) Reserve(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) *fwk.Status {
	mode := f.mode(pod)
	if mode == "" {
		return nil
	}
	if mode != Once && mode != Always {
		return fwk.AsStatus(fmt.Errorf("pod %s/%s: label %s=%q: the fault is %q or %q",
			pod.Namespace, pod.Name, Label, mode, Once, Always))
	}
	trial := state != nil && state.IsPodGroupSchedulingCycle()

	f.mu.Lock()
	failures := f.handedOverFailures[pod.UID]
	fail := false
	switch {
	case mode == Once:
		fail = !trial && failures == 0
	case trial:
		fail = failures > 0
	default:
		fail = true
	}
	if fail && !trial {
		f.handedOverFailures[pod.UID] = failures + 1
	}
	f.mu.Unlock()

	if !fail {
		return nil
	}
	phase := "hand-over"
	if trial {
		phase = "trial"
	}
	klog.FromContext(ctx).V(2).Info("Injected Reserve failure", "pod", klog.KObj(pod), "node", nodeName,
		"mode", mode, "phase", phase, "handOverFailures", failures)
	return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s=%s: Reserve failed (injected)", Label, mode))
}

// Unreserve has nothing to undo: Reserve claims nothing. It keeps the failure count,
// which is what "once" and "always" are about.
func (f *faultReserve) Unreserve(_ context.Context, _ fwk.CycleState, _ *v1.Pod, _ string) {}
