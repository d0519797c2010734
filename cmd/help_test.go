package cmd

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// TestHelpFitsTheTerminal: every command's help, its flags' included,
// wraps to the terminal's width, 80 columns when standard output is not
// a terminal (run --help had lines of 522 characters), and no flag's help
// takes more than three lines at 80 columns (the long ones are shortened;
// maple help settings has them in full).
func TestHelpFitsTheTerminal(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() || sub.Name() == "help" {
				walk(sub, append(append([]string{}, path...), sub.Name()))
			}
		}
	}
	walk(NewCmdRoot(&Factory{RunsDir: t.TempDir()}), nil)
	if len(paths) < 20 {
		t.Fatalf("%d commands found: the walk missed some", len(paths))
	}
	flagLine := regexp.MustCompile(`^  (-\w, |    )--\S`)
	for _, c := range []struct {
		name  string
		width func() int // the terminal's width; nil: not a terminal
		want  int
	}{
		{"not a terminal", nil, 80},
		{"a terminal of 80 columns", func() int { return 80 }, 80},
		{"a narrow terminal", func() int { return 50 }, 50},
		{"a wide terminal", func() int { return 132 }, 132},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, path := range paths {
				var out bytes.Buffer
				f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: "/home/ada/.local/share/maple/runs", Terminal: func() bool { return false }, Width: c.width}
				root := NewCmdRoot(f)
				root.SetOut(&out)
				root.SetErr(&out)
				args := append(append([]string{}, path...), "--help")
				if len(path) > 0 && path[len(path)-1] == settingsTopic || len(path) > 0 && path[0] == "help" {
					args = append([]string{"help"}, path...) // a topic: maple help TOPIC
				}
				root.SetArgs(args)
				if err := root.Execute(); err != nil {
					t.Fatalf("maple %s: %v", strings.Join(args, " "), err)
				}
				help := out.String()
				if !strings.Contains(help, "Usage:") && !strings.Contains(help, "--") {
					t.Fatalf("maple %s printed no help:\n%s", strings.Join(args, " "), help)
				}
				flagLines, flag := 0, ""
				for _, line := range strings.Split(help, "\n") {
					if n := utf8.RuneCountInString(line); n > c.want {
						t.Errorf("maple %s: a line of %d columns, over %d:\n%s", strings.Join(args, " "), n, c.want, line)
					}
					switch {
					case flagLine.MatchString(line):
						flag, flagLines = strings.Fields(line)[0], 1
					case flag != "" && strings.HasPrefix(line, "          "):
						flagLines++
					default:
						flag = ""
					}
					if c.width == nil && flag != "" && flagLines > 3 && path != nil && path[0] != "help" {
						t.Errorf("maple %s: the help of %s takes %d lines at 80 columns:\n%s", strings.Join(args, " "), flag, flagLines, help)
						flag = ""
					}
				}
			}
		})
	}
}

// TestSettingsTopic: maple help settings gives a setting's help in full
// where run --help shortens it.
func TestSettingsTopic(t *testing.T) {
	help := func(args ...string) string {
		var out bytes.Buffer
		f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: t.TempDir(), Terminal: func() bool { return false }}
		root := NewCmdRoot(f)
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(out.String()), " ") // unwrapped
	}
	run, topic := help("run", "--help"), help("help", "settings")
	for _, want := range []string{"every iterate evaluated from the search's initial model", "flags given override it", "--recipe"} {
		if !strings.Contains(topic, want) {
			t.Errorf("maple help settings lacks %q:\n%s", want, topic)
		}
	}
	if strings.Contains(run, "flags given override it") || !strings.Contains(run, "maple help settings") {
		t.Errorf("run --help does not shorten --recipe's help, or does not say where it is in full:\n%s", run)
	}
}

// TestHelpColumns: $COLUMNS, when a positive number, is the width help
// wraps to, whether or not standard output is a terminal (COLUMNS=50
// maple run --help | less); else the terminal's width, else 80. Every
// command's help is walked at each.
func TestHelpColumns(t *testing.T) {
	for _, c := range []struct {
		name, columns string // "" leaves COLUMNS unset
		terminal      int    // the terminal's width; 0: not a terminal
		want          int
	}{
		{"not a terminal", "", 0, 80},
		{"COLUMNS=80, not a terminal", "80", 0, 80},
		{"COLUMNS=50, not a terminal", "50", 0, 50},
		{"COLUMNS=132, not a terminal", "132", 0, 132},
		{"COLUMNS over the terminal's width", "60", 100, 60},
		{"a terminal without COLUMNS", "", 100, 100},
		{"COLUMNS not a number: the terminal's", "wide", 70, 70},
		{"COLUMNS=0: 80 off a terminal", "0", 0, 80},
		{"COLUMNS negative: 80 off a terminal", "-5", 0, 80},
		{"COLUMNS=5: the narrowest help, 20", "5", 0, 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "COLUMNS" {
					return c.columns
				}
				return ""
			}
			f := &Factory{Width: func() int { return helpColumns(getenv, func() int { return c.terminal }) }}
			if got := f.helpWidth(); got != c.want {
				t.Fatalf("help width %d, want %d", got, c.want)
			}
		})
	}
	// Through the process's own factory, as maple runs: go test's
	// standard output is not a terminal.
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				walk(sub, append(append([]string{}, path...), sub.Name()))
			}
		}
	}
	walk(NewCmdRoot(&Factory{RunsDir: t.TempDir()}), nil)
	for _, cols := range []int{80, 50} {
		t.Run(fmt.Sprintf("every command at COLUMNS=%d", cols), func(t *testing.T) {
			t.Setenv("COLUMNS", fmt.Sprint(cols))
			for _, path := range paths {
				var out bytes.Buffer
				f := NewFactory()
				f.In, f.Out, f.Err, f.RunsDir = strings.NewReader(""), &out, &out, t.TempDir()
				root := NewCmdRoot(f)
				root.SetOut(&out)
				root.SetErr(&out)
				args := append(append([]string{}, path...), "--help")
				root.SetArgs(args)
				if err := root.Execute(); err != nil {
					t.Fatalf("maple %s: %v", strings.Join(args, " "), err)
				}
				if !strings.Contains(out.String(), "Usage:") {
					t.Fatalf("maple %s printed no usage:\n%s", strings.Join(args, " "), out.String())
				}
				for _, line := range strings.Split(out.String(), "\n") {
					if n := utf8.RuneCountInString(line); n > cols {
						t.Errorf("COLUMNS=%d maple %s: a line of %d columns:\n%s", cols, strings.Join(args, " "), n, line)
					}
				}
			}
		})
	}
}

// TestRunHelpEmbeddings: run --help shows a run on one's own embeddings
// and the head it takes there without --model (its --model help,
// shortened, gives only the default of the other datasets).
func TestRunHelpEmbeddings(t *testing.T) {
	var out bytes.Buffer
	f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: t.TempDir(), Terminal: func() bool { return false }}
	root := NewCmdRoot(f)
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"run", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`maple run --dataset features --csv \S+ --features \S+\.npy +# a linear head`).MatchString(out.String()) {
		t.Errorf("run --help has no example of --dataset features naming its default head:\n%s", out.String())
	}
}
