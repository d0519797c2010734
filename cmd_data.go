package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/maple-ood/maple/loaders"
	"github.com/spf13/cobra"
)

func dataCmd() *cobra.Command {
	var asJSON bool
	var seed uint64
	df := loaders.DefaultSpec("")
	c := &cobra.Command{
		Use:   "data NAME",
		Short: "Describe a dataset: split sizes, label/attribute agreement per env, group counts",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			df.Name = args[0]
			s, err := df.Load(seed, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			sum := loaders.Describe(s)
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(sum)
			}
			printSummary(cmd.OutOrStdout(), sum)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	c.Flags().Uint64Var(&seed, "seed", 1, "seed of the dataset's random draws")
	registerData(c.Flags(), &df)
	return c
}

func printSummary(w io.Writer, s loaders.Summary) {
	fmt.Fprintf(w, "dataset %s (from %s): dim %d, shape %dx%dx%d, %d classes, label noise %g, oracle variant: %v\n",
		s.Name, s.Source, s.Dim, s.Shape[0], s.Shape[1], s.Shape[2], s.Classes, s.LabelNoise, s.HasOracle)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "split\tn\tlabel noise\tenv\tenv n\tlabel=attr")
	for _, sp := range s.Splits {
		for i, e := range sp.Envs {
			name, n, noise := sp.Split, fmt.Sprint(sp.N), "unknown"
			if sp.LabelNoise >= 0 {
				noise = fmt.Sprintf("%.3f", sp.LabelNoise)
			}
			if i > 0 {
				name, n, noise = "", "", ""
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.3f\n", name, n, noise, e.Env, e.N, e.Agreement)
		}
	}
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "groups")
	for _, g := range s.Splits[0].Groups {
		fmt.Fprintf(tw, "\t%s", g.Name)
	}
	fmt.Fprintln(tw)
	for _, sp := range s.Splits {
		fmt.Fprint(tw, sp.Split)
		for _, g := range sp.Groups {
			fmt.Fprintf(tw, "\t%d", g.N)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
