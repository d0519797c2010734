package cmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// needArgs is a command's positional arguments check: exactly n, each
// described by what (e.g. "a run id"), and a usage error (exit 2) that
// says what to give otherwise.
func needArgs(n int, what, hint string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		if len(args) < n {
			return usageError{fmt.Errorf("maple %s needs %s (%s)", c.Name(), what, hint)}
		}
		return usageError{fmt.Errorf("maple %s takes %s; %q is one argument too many (quote values with spaces)", c.Name(), what, args[n])}
	}
}

// needNames is the positional arguments check of a command that acts on
// one or more named things (maple rm, maple archive): at least one, and
// none blank. An empty name is a usage error (exit 2), never a name that
// matches something: maple rm "$UNSET" --yes once matched every run of
// no sweep.
func needNames(what, hint string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageError{fmt.Errorf("maple %s needs %s (%s)", c.Name(), what, hint)}
		}
		return blankName(c.Name(), args)
	}
}

// blankName refuses an empty or blank name among names.
func blankName(command string, names []string) error {
	for i, n := range names {
		if strings.TrimSpace(n) == "" {
			return usageError{fmt.Errorf("maple %s: name %d of %d is empty (%q): give a run id or a sweep name (see maple ls); nothing was touched", command, i+1, len(names), n)}
		}
	}
	return nil
}

// noArgs refuses positional arguments with a usage error; on the root
// command an argument is an unknown command, and the nearest command
// names are suggested.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if !c.HasParent() {
		if c.SuggestionsMinimumDistance <= 0 {
			c.SuggestionsMinimumDistance = 2
		}
		msg := fmt.Sprintf("unknown command %q", args[0])
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usageError{fmt.Errorf("%s (see maple --help)", msg)}
	}
	return usageError{fmt.Errorf("maple %s takes no arguments; got %q", c.Name(), args[0])}
}

// flagError is every command's flag error: a usage error, with the
// nearest flag names for an unknown one.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		fl, v := bad.GetFlag(), bad.GetValue()
		if v == "" {
			v = `""`
		}
		want := wantOf(bad.Unwrap())
		if fl.Value.Type() == "duration" {
			want = "want a duration such as 90s, 5m or 1h30m" // not time's "time: invalid duration"
		}
		if strings.HasSuffix(fl.Value.Type(), "Slice") && strings.HasPrefix(want, "want a ") {
			want = "want a list, comma-separated, each " + strings.TrimPrefix(want, "want ")
		}
		return usageError{fmt.Errorf("--%s %s: %s (see maple %s --help)", fl.Name, v, want, c.Name())}
	}
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return usageError{err}
	}
	var near []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && editDistance(name, f.Name) <= max(1, len(name)/4) {
			near = append(near, "--"+f.Name)
		}
	})
	if len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return usageError{fmt.Errorf("%s (see maple %s --help)", msg, c.Name())}
}

// wantOf says in words what a flag's parser refused: what kind of value
// it wants (strconv's "strconv.ParseUint: parsing "-1": invalid syntax"
// says it to a Go programmer only), or the parser's own words.
func wantOf(cause error) string {
	var ne *strconv.NumError
	if !errors.As(cause, &ne) {
		return cause.Error()
	}
	if errors.Is(ne.Err, strconv.ErrRange) {
		return "out of range: give a smaller number"
	}
	switch ne.Func {
	case "ParseUint":
		return "want a whole number, 0 or more"
	case "ParseInt":
		return "want a whole number"
	case "ParseFloat":
		return "want a number"
	case "ParseBool":
		return "want true or false"
	}
	return cause.Error()
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
