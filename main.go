// Command maple finds per-training-sample weights by MAPLE (Model Agnostic
// sample rEweighting, Zhou et al., ICML 2022) so that plain weighted ERM
// generalises out of distribution. See README.md.
package main

import (
	"fmt"
	"os"
)

// version is the program version recorded with every run.
const version = "0.1.0-dev"

func main() {
	if err := rootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "maple:", err)
		os.Exit(1)
	}
}
