// Command maple finds per-training-sample weights by MAPLE (Model Agnostic
// sample rEweighting, Zhou et al., ICML 2022) so that plain weighted ERM
// generalises out of distribution. It installs the process's signal
// handling and runs the command tree of package cmd; see README.md and
// docs/ARCHITECTURE.md.
package main

import (
	"context"
	"os"

	"github.com/maple-ood/maple/cmd"
	"github.com/maple-ood/maple/runs"
)

func main() { os.Exit(mainRun()) }

func mainRun() int {
	f := cmd.NewFactory()
	ctx, stop := runs.Interrupts(context.Background(), os.Exit)
	defer stop()
	return cmd.ExitCode(f, cmd.NewCmdRoot(f).ExecuteContext(ctx))
}
