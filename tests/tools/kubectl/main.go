// Command kubectl builds the upstream kubectl (its module, k8s.io/kubectl, at the minor of the
// test control plane) for the tests that need the real client: krew's validate-krew-manifest
// installs the plugin through `kubectl krew install`, as krew-index's CI does.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
