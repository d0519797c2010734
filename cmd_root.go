package main

import "github.com/spf13/cobra"

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "maple",
		Short:         "MAPLE sample reweighting for out-of-distribution learning",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(dataCmd(), runCmd())
	return root
}
