package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	kubectl "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
)

// runKubectl runs kubectl as its own main does: the log verbosity is read
// from the arguments before the command is built (building it may already
// log, while reading a kuberc file), and an error is reported by kubectl's
// CheckErr, which prints it in kubectl's words and exits with kubectl's
// codes, instead of by cli.Run. The client auth plugins (exec credentials,
// OIDC) are not linked: gangconf's clusters authenticate with a token.
func runKubectl() int {
	logs.GlogSetter(kubectl.GetLogVerbosity(os.Args)) //nolint:errcheck // an unknown level leaves the default
	command := kubectl.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		kubectlutil.CheckErr(err)
	}
	return 0
}
