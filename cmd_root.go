package main

import (
	"github.com/spf13/cobra"
)

// globals are the flags every subcommand shares.
type globals struct {
	runsDir string
}

func rootCmd() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:           "maple",
		Short:         "MAPLE sample reweighting for out-of-distribution learning",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return lsMain(cmd, g, false)
		},
	}
	root.PersistentFlags().StringVar(&g.runsDir, "runs-dir", "runs", "directory that holds the runs")
	root.AddCommand(dataCmd(), runCmd(g), lsCmd(g), showCmd(g), resumeCmd(g), exportCmd(g), evalCmd(g), attachCmd(g), sweepCmd(g), tableCmd(g), plotCmd(g))
	return root
}
