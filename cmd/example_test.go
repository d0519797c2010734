package cmd_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/maple-ood/maple/cmd"
)

// ExampleNewCmdRoot runs a command of the tree with its output captured,
// as package main does with the process's streams.
func ExampleNewCmdRoot() {
	var out bytes.Buffer
	f := cmd.NewFactory()
	f.Out, f.Err = &out, &out
	root := cmd.NewCmdRoot(f)
	root.SetArgs([]string{"ls", "--json", "--runs-dir", "no-such-dir"})
	code := cmd.ExitCode(f, root.Execute())
	fmt.Println(code, strings.TrimSpace(out.String()))
	// Output: 0 []
}
