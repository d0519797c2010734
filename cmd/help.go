package cmd

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/maple-ood/maple/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// examples are each command's --help examples.
var examples = map[string]string{
	"run": `  maple run --dataset synthetic --objective rex   # the dashboard on a terminal
  maple run --dataset cmnist --method irmv1       # a baseline at its recipe
  maple run --dataset features --csv y.csv --features x.npy   # a linear head
  maple run --dataset cmnist --detach             # in the background
  maple run --dataset cmnist --weight-lr 0.25 --keep 1 --keep0 1   # w learnt
  maple run --dataset cmnist --model mlp:64,64 --eval-model mlp:390,390 \
      --outer-iters 50 --inner-steps 50 --headless`,
	"resume": `  maple resume 20261122-151839-01
  maple resume 20261122-151839-01 --inner-lr 0.01 --detach   # after a NaN`,
	"ls":     `  maple ls --json | jq '.[] | select(.status == "done") | .id'`,
	"show":   `  maple show 20261122-151839-01 --json`,
	"export": `  maple export 20261122-151839-01 --format npy --out weights/   # u.npy and more`,
	"eval":   `  maple eval 20261122-151839-01 --model cnn:16,32   # the weights, another model`,
	"attach": `  maple attach 20261122-151839-01            # the dashboard; q leaves it running
  maple attach 20261122-151839-01 --lines    # progress lines, e.g. in a log`,
	"data": `  maple data cmnist --data-dir ../shared/data`,
	"sweep": `  maple sweep --name cm --datasets cmnist --methods erm,irmv1,maple:rex \
      --seeds 1,2,3 --jobs 2
  maple sweep --name cm --datasets cmnist --methods erm,maple:rex \
      --seeds 1,2,3 --slurm --slurm-args '--time=4:00:00'
  maple sweep --name cm --status`,
	"table": `  maple table --sweep cm --format markdown`,
	"stop": `  maple stop 140715-01          # a run: checkpointed, resumable with maple resume
  maple stop cm                 # a sweep: its running cells, and no new ones`,
	"tag": `  maple tag 140715-01 --name baseline-rex --add paper --note "rex, Table 2"
  maple show baseline-rex       # a name works wherever an id does`,
	"logs": `  maple logs latest -f          # follow the progress lines of a detached run`,
	"plot": `  maple plot 20261122-151839-01 --out figures/   # a run's figures
  maple plot cm                 # a sweep's accuracy by method and by model width`,
}

// addHelp sets every command's examples, the usage of every command
// (wrapped to the terminal, run's and sweep's flags grouped) and the help
// topic of the settings in full.
func addHelp(f *Factory, root *cobra.Command) {
	root.SetUsageFunc(func(c *cobra.Command) error {
		_, err := fmt.Fprint(c.OutOrStderr(), usageText(c, f.helpWidth()))
		return err
	})
	root.AddCommand(&cobra.Command{Use: settingsTopic, Short: "Every setting's flag with its help in full"})
	for _, c := range root.Commands() {
		if ex, ok := examples[c.Name()]; ok {
			c.Example = ex
		}
		// Defaults the help text states itself, not as a sentinel value.
		for _, name := range []string{"label-noise", "penalty", "penalty-anneal", "method"} {
			if fl := c.Flags().Lookup(name); fl != nil {
				fl.DefValue = "0" // the zero value: no "(default ...)" is printed
				if fl.Value.Type() == "string" {
					fl.DefValue = ""
				}
			}
		}
	}
}

// helpWidth is the width help is wrapped to: the terminal's, 80 when
// standard output is not a terminal.
func (f *Factory) helpWidth() int {
	if f.Width != nil {
		if w := f.Width(); w > 0 {
			return max(w, 20)
		}
	}
	return 80
}

// summaryWidth is the width a setting's flag help is shortened for
// (summary), whatever the terminal: about two lines at 80 columns.
const summaryWidth = 80

// settingsTopic is the help topic with every setting's help in full
// (maple help settings); --help shortens the long ones.
const settingsTopic = "settings"

// writeHelp prints c's help: its description and its usage, wrapped to
// the terminal (80 columns when it is not one).
func (f *Factory) writeHelp(c *cobra.Command) {
	w, width := c.OutOrStdout(), f.helpWidth()
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	if c.Name() == settingsTopic && !c.Runnable() {
		desc = settingsHelp(width)
	}
	if desc = strings.TrimRight(desc, " \n"); desc != "" {
		fmt.Fprintf(w, "%s\n\n", wrapText(desc, width, ""))
	}
	if c.Runnable() || c.HasSubCommands() {
		fmt.Fprint(w, usageText(c, width))
	}
}

// usageText is c's usage as cobra's template writes it, wrapped to
// width; run's and sweep's flags are grouped under the settings table's
// headings, the rest under "Run".
func usageText(c *cobra.Command, width int) string {
	var b strings.Builder
	b.WriteString("Usage:")
	if c.Runnable() {
		b.WriteString("\n" + wrapText("  "+c.UseLine(), width, "    "))
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n  " + c.CommandPath() + " [command]")
	}
	if len(c.Aliases) > 0 {
		b.WriteString("\n\nAliases:\n  " + c.NameAndAliases())
	}
	if c.HasExample() {
		b.WriteString("\n\nExamples:\n" + wrapText(c.Example, width, "    "))
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n\nAvailable Commands:")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				b.WriteString("\n" + columns("  "+sub.Name(), c.NamePadding()+3, sub.Short, width))
			}
		}
	}
	shortened := false
	section := func(title string, fs *pflag.FlagSet) {
		if fs.HasAvailableFlags() {
			text, cut := flagUsages(fs, width)
			shortened = shortened || cut
			b.WriteString("\n\n" + title + ":\n" + strings.TrimRight(text, "\n"))
		}
	}
	if c.Name() == "run" || c.Name() == "sweep" {
		placed := map[string]bool{}
		for _, g := range config.Groups {
			fs := pflag.NewFlagSet(string(g), pflag.ContinueOnError)
			for _, st := range config.Table {
				if fl := c.LocalFlags().Lookup(st.Flag); fl != nil && !fl.Hidden && st.Group == g {
					fs.AddFlag(fl)
					placed[st.Flag] = true
				}
			}
			section(string(g)+" flags", fs)
		}
		rest := pflag.NewFlagSet("run", pflag.ContinueOnError)
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if !placed[fl.Name] {
				rest.AddFlag(fl)
			}
		})
		c.InheritedFlags().VisitAll(func(fl *pflag.Flag) { rest.AddFlag(fl) })
		section("Run flags", rest)
	} else {
		section("Flags", c.LocalFlags())
		section("Global Flags", c.InheritedFlags())
	}
	if shortened {
		b.WriteString("\n\n" + wrapText("… marks a flag's help shortened: maple help "+settingsTopic+" gives it in full.", width, ""))
	}
	if c.HasHelpSubCommands() {
		b.WriteString("\n\nAdditional help topics:")
		for _, sub := range c.Commands() {
			if sub.IsAdditionalHelpTopicCommand() {
				b.WriteString("\n" + columns("  "+sub.CommandPath(), c.CommandPathPadding()+3, sub.Short, width))
			}
		}
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n\n" + wrapText(fmt.Sprintf("Use %q for more information about a command.", c.CommandPath()+" [command] --help"), width, ""))
	}
	return b.String() + "\n"
}

// flagUsages lists fs's flags as pflag does (name and type, then the help
// and the default), the help wrapped to width in its column; the help of
// a setting (config.Table) longer than about two lines at 80 columns is
// shortened at a clause (cut reports one was).
func flagUsages(fs *pflag.FlagSet, width int) (text string, cut bool) {
	type row struct {
		left, help, def string
		setting         bool // a row of config.Table, its help in full in maple help settings
	}
	var rows []row
	col := 0
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden {
			return
		}
		left := "      --" + fl.Name
		if fl.Shorthand != "" && fl.ShorthandDeprecated == "" {
			left = "  -" + fl.Shorthand + ", --" + fl.Name
		}
		varname, help := pflag.UnquoteUsage(fl)
		if varname != "" {
			left += " " + varname
		}
		if fl.NoOptDefVal != "" && fl.Value.Type() != "bool" {
			left += "[=" + fl.NoOptDefVal + "]"
		}
		def := ""
		if !zeroDefault(fl) {
			if fl.Value.Type() == "string" {
				def = fmt.Sprintf(" (default %q)", fl.DefValue)
			} else {
				def = fmt.Sprintf(" (default %s)", fl.DefValue)
			}
		}
		st, ok := config.Lookup(fl.Name)
		_, axis := sweepAxisOf(fl.Name)
		rows = append(rows, row{left, help, def, ok && help == st.HelpText() || axis})
		col = max(col, runeLen(left))
	})
	col += 3
	var b strings.Builder
	for _, r := range rows {
		if r.setting {
			var c bool
			r.help, c = summary(r.help, 2*(summaryWidth-col)-runeLen(r.def))
			cut = cut || c
		}
		help := r.help + r.def
		b.WriteString(columns(r.left, col, help, width) + "\n")
	}
	return b.String(), cut
}

// columns writes left, then text in a column from col wrapped to width;
// when the column would be narrower than 30, text goes below left,
// indented.
func columns(left string, col int, text string, width int) string {
	if width-col < 30 {
		return wrapText(left, width, "    ") + "\n" + wrapText("          "+text, width, "")
	}
	lines := strings.Split(wrapText(text, width-col, ""), "\n")
	out := fmt.Sprintf("%-*s%s", col, left, lines[0])
	if runeLen(left) >= col { // a name longer than the column: its text below
		out = left + "\n" + strings.Repeat(" ", col) + lines[0]
	}
	for _, l := range lines[1:] {
		out += "\n" + strings.Repeat(" ", col) + l
	}
	return out
}

// zeroDefault tells whether fl's default is its type's zero value, which
// pflag does not print.
func zeroDefault(fl *pflag.Flag) bool {
	if fl.DefValue == "" { // a default the help states itself
		return true
	}
	switch fl.Value.Type() {
	case "bool":
		return fl.DefValue == "false" || fl.DefValue == ""
	case "duration":
		return fl.DefValue == "0" || fl.DefValue == "0s"
	case "string":
		return fl.DefValue == ""
	case "stringSlice", "stringArray", "intSlice", "uintSlice", "float64Slice":
		return fl.DefValue == "[]"
	}
	switch fl.DefValue {
	case "", "0", "false", "<nil>", "[]":
		return true
	}
	return false
}

// summary cuts s to at most n characters at a clause: before a "; " or a
// " (" outside parentheses, the longest such start that fits (the first
// clause when none does), marked with "…"; cut reports whether it did.
func summary(s string, n int) (string, bool) {
	if runeLen(s) <= n {
		return s, false
	}
	depth, best, first := 0, -1, -1
	for i, r := range s {
		switch r {
		case '(', '[':
			// Not before an interval such as (0, 10]: it belongs to
			// what precedes it.
			if r == '(' && depth == 0 && i > 0 && s[i-1] == ' ' && i+1 < len(s) && !strings.ContainsRune("0123456789-", rune(s[i+1])) {
				best, first = candidate(s, i-1, n, best, first)
			}
			depth++
		case ')', ']':
			depth = max(depth-1, 0)
		case ';':
			if depth == 0 && strings.HasPrefix(s[i:], "; ") {
				best, first = candidate(s, i, n, best, first)
			}
		}
	}
	switch {
	case best > 0:
		return s[:best] + "…", true
	case first > 0:
		return s[:first] + "…", true
	}
	return s, false
}

// candidate keeps the cut at i when it fits in n (with the mark) and is
// the longest so far, and the first cut of all.
func candidate(s string, i, n, best, first int) (int, int) {
	if first < 0 {
		first = i
	}
	if runeLen(s[:i])+1 <= n && i > best {
		best = i
	}
	return best, first
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// wrapText wraps each line of s to width at spaces, a line's
// continuation indented by its own leading spaces and then hang; a word
// longer than a line is broken. A line that fits is kept as it is.
func wrapText(s string, width int, hang string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if runeLen(line) <= width {
			out = append(out, line)
			continue
		}
		lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
		next := lead + hang
		if runeLen(next) > width/2 {
			next = lead
			if runeLen(next) > width/2 {
				next = ""
			}
		}
		cur, curLen := lead, runeLen(lead)
		fresh := true // cur holds no word yet
		for _, word := range strings.Fields(line) {
			wl := runeLen(word)
			if !fresh && curLen+1+wl > width {
				out = append(out, cur)
				cur, curLen, fresh = next, runeLen(next), true
			}
			for curLen+boolInt(!fresh)+wl > width { // a word longer than a line
				room := width - curLen - boolInt(!fresh)
				if room <= 0 {
					out = append(out, cur)
					cur, curLen, fresh = next, runeLen(next), true
					continue
				}
				rs := []rune(word)
				if !fresh {
					cur += " "
				}
				out = append(out, cur+string(rs[:room]))
				word, wl = string(rs[room:]), len(rs)-room
				cur, curLen, fresh = next, runeLen(next), true
			}
			if !fresh {
				cur += " "
				curLen++
			}
			cur += word
			curLen += wl
			fresh = false
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// settingsHelp is maple help settings: every setting's flag with its
// help in full, under the headings of --help, wrapped to width.
func settingsHelp(width int) string {
	var b strings.Builder
	var grid []string
	for _, ax := range (&SweepOptions{}).axes() {
		grid = append(grid, "--"+ax.s.Sweep)
	}
	b.WriteString("Every setting of a run, by its flag, with its help in full (maple run --help and maple sweep --help shorten the long ones; a sweep takes each setting's flag too, and " +
		strings.Join(grid, ", ") + " for its grid).")
	for _, g := range config.Groups {
		b.WriteString("\n\n" + string(g) + " flags:")
		for _, st := range config.Table {
			if st.Group != g || st.NoFlag {
				continue
			}
			b.WriteString("\n  --" + st.Flag + "\n" + wrapText("      "+st.HelpText(), width, ""))
			if ax, ok := sweepAxisOf(st.Sweep); ok {
				b.WriteString("\n  --" + st.Sweep + " (maple sweep)\n" + wrapText("      "+ax.help(), width, ""))
			}
		}
	}
	return b.String()
}

// helpColumns is the width help wraps to before helpWidth's bounds:
// $COLUMNS when it is a positive number (as ls reads it, also when
// standard output is not a terminal), else terminal's (0: not one).
func helpColumns(getenv func(string) string, terminal func() int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	return terminal()
}
