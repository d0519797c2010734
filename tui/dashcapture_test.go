package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/spf13/pflag"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
)

// capturedSearch is a search whose screens the docs show: maple run's
// flags as docs/USAGE.md prints them, and the clock its screens are
// pinned to, so that they read the same on every machine.
type capturedSearch struct {
	flags   string    // maple run's flags, a line break and indent where the page breaks them
	started time.Time // gives the run id
	pace    float64   // seconds an outer iteration takes (elapsed and eta)
	timing  core.Timing
}

// dashboardSearch is the synthetic search of the dashboard's captures:
// the former defaults' search, spelt out. Its clock is that of a run on
// two busy cores.
var dashboardSearch = capturedSearch{
	flags: "--dataset synthetic --model mlp:32 --objective rex --outer-iters 60 --inner-steps 100 --keep 0.5 --keep0 0.9 \\\n" +
		"    --weight-lr 0.25 --keep-lr 0.05 --weight-decay 0.001 --detach-sum=false --mask-eps 0",
	started: time.Date(2026, 11, 26, 13, 6, 42, 0, time.UTC),
	pace:    0.43,
	timing:  core.Timing{Inner: 0.27, OuterGrad: 0.001, Hyper: 0.009},
}

// captureThreads is the thread count the captures' searches compute on.
const captureThreads = 2

// dashboardPause is the outer iteration at which the captured search is
// paused.
const dashboardPause = 46

// config returns the run config of `maple run` with the search's flags,
// resolved as maple run resolves them, started at its pinned time.
func (c capturedSearch) config(t *testing.T) runs.Config {
	t.Helper()
	cfg := runs.DefaultConfig("synthetic")
	cfg.Settings.Model = core.DefaultSettings().Model
	set := parseSettings(t, &cfg, strings.ReplaceAll(c.flags, "\\\n", ""))
	if err := config.CheckMethodFlags([]string{cfg.Method}, set); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Resolve(cfg, set, cfg.Eval.Model)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Started = c.started
	return cfg
}

// parseSettings sets cfg from maple's setting flags as a command line
// gives them, and returns the flags given.
func parseSettings(t *testing.T, cfg *runs.Config, flags string) map[string]bool {
	t.Helper()
	fl := pflag.NewFlagSet("maple", pflag.ContinueOnError)
	config.Register(fl, cfg, func(config.Setting) bool { return true })
	if err := fl.Parse(strings.Fields(flags)); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	fl.Visit(func(f *pflag.Flag) { set[f.Name] = true })
	return set
}

// pin sets a snapshot's clock to the search's pinned one.
func (c capturedSearch) pin(s *core.Snapshot) {
	s.Elapsed, s.Seconds = c.pace*float64(s.Iter), c.timing
}

// dashboardScreen runs the dashboard's captured search in this process
// until it has recorded iteration dashboardPause and returns the live
// dashboard's screen at 120x40 without colour: fed the search's
// snapshots and events one by one, as the hub passes them to a live
// dashboard, then the pause the engine records when space is pressed.
func dashboardScreen(t *testing.T) []string {
	t.Helper()
	c := dashboardSearch
	r, err := runs.Open(t.TempDir()).Create(c.config(t))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hub := session.NewHub()
	sum, err := session.Execute(context.Background(), r, nil, session.Options{Hub: hub, StopAt: dashboardPause})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Iter != dashboardPause {
		t.Fatalf("the search stopped at iteration %d, want %d", sum.Iter, dashboardPause)
	}
	_, snaps, events := hub.Subscribe()
	d := NewDashboard(r.Config, &fakeCtl{}, false)
	d.SetDir(r.Dir)
	d.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.Update(tea.ColorProfileMsg{Profile: colorprofile.Ascii}) // NO_COLOR
	for _, s := range snaps {
		for len(events) > 0 && events[0].Iter < s.Iter {
			d.Update(EventMsg{Event: events[0]})
			events = events[1:]
		}
		c.pin(s)
		d.Update(SnapshotMsg{Snap: s})
	}
	d.Update(EventMsg{Event: core.Event{Kind: core.EventPause, Iter: dashboardPause}})
	return trimScreen(d.Render())
}

// samplesSearch is the ColoredMNIST search of the samples pane's
// captures: 2,000 training images. Its clock is that of a run on two busy
// cores.
var samplesSearch = capturedSearch{
	flags:   "--dataset cmnist --train-size 2000 --model mlp:64 --objective rex --weight-lr 0.25 --keep 0.5 --keep0 0.9 --outer-iters 20 --inner-steps 50 --eval-steps 200",
	started: time.Date(2026, 11, 26, 12, 18, 2, 0, time.UTC),
	pace:    0.36,
	timing:  core.Timing{Inner: 0.22, OuterGrad: 0.04, Hyper: 0.013},
}

// mnistDir is where the tests find MNIST: $MAPLE_DATA_DIR, else
// ../shared/data beside the checkout; "" when neither has it.
func mnistDir() string {
	data := os.Getenv("MAPLE_DATA_DIR")
	if data == "" {
		data = filepath.Join("..", "..", "shared", "data")
	}
	if _, err := os.Stat(filepath.Join(data, "mnist")); err != nil {
		return ""
	}
	return data
}

// samplesScreens runs the samples pane's captured search to its end (on
// MNIST from data), its recorded clock pinned, and returns its page in
// the runs browser with the samples pane shown (enter, then tab twice),
// at 80x24 and at 120x40 without colour.
func samplesScreens(t *testing.T, data string) (small, large []string) {
	t.Helper()
	c := samplesSearch
	cfg := c.config(t)
	cfg.Dataset.DataDir, cfg.Dataset.Offline = data, true
	dir := t.TempDir()
	r, err := runs.Open(dir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := session.Execute(context.Background(), r, nil, session.Options{})
	r.Close()
	if err != nil || sum.Status != core.StatusDone {
		t.Fatalf("the search ended %v: %v", sum.Status, err)
	}
	snaps, err := runs.ReadMetrics(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range snaps {
		c.pin(s)
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(r.Path(runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	screen := func(w, h int) []string {
		b := newBrowser(dir, w, h)
		b.Update(tea.ColorProfileMsg{Profile: colorprofile.Ascii}) // NO_COLOR
		bpress(b, keyMsg("enter"))
		if b.mode != modeRun || b.replay == nil {
			t.Fatalf("enter did not open the run's page (mode %d)", b.mode)
		}
		for _, k := range []string{"tab", "tab"} {
			_, cmd := b.Update(keyMsg(k))
			deliverSamples(b, cmd)
		}
		return trimScreen(b.Render())
	}
	return screen(80, 24), screen(120, 40)
}

// deliverSamples runs cmd and gives the browser the samples it read (a
// pane's cursor blink, and the like, are left).
func deliverSamples(b *Browser, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch m := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range m {
			deliverSamples(b, c)
		}
	case samplesMsg:
		b.Update(m)
	}
}

// dashboardMark precedes a page's fenced block that TestDashboardCaptures
// rewrites.
func dashboardMark(name string) string {
	return "<!-- capture " + name + " (generated by a search run by go test ./tui -run TestDashboardCaptures -update; do not edit) -->"
}

// pageCaptures are the captures of one page: the page's text with each
// fenced block after a mark rewritten to its capture; a page that is a
// capture (whole) is written as it.
type pageCaptures struct {
	page     string
	whole    string              // the page's text, when the page is a capture itself
	captures map[string]string   // the body of each fenced block, by capture name
	mark     func(string) string // a capture's marker line (captureMark, dashboardMark)
}

// write returns text with the captures written in.
func (p pageCaptures) write(text string) (string, error) {
	if p.whole != "" {
		return p.whole, nil
	}
	var err error
	for name, body := range p.captures {
		if text, err = spliceCapture(text, p.mark(name), body); err != nil {
			return "", fmt.Errorf("%s: %w", p.page, err)
		}
	}
	return text, nil
}

// TestDashboardCaptures renders the dashboard's captures in README.md,
// docs/USAGE.md and docs/dashboard-synthetic-120x40.txt from a search
// run here (the synthetic search docs/USAGE.md prints, paused at
// iteration 46 of 60; 120x40, without colour), and the samples pane's
// in README.md and docs/USAGE.md from a small ColoredMNIST search run
// here (its page in the browser at 80x24 and 120x40, without colour;
// skipped without MNIST). The clock is pinned: elapsed, eta, the phases'
// seconds and the run ids; and so is the thread count. The test fails when a page's capture differs:
// a figure on a captured screen is the search's. -update rewrites the
// captures. The figures are the pure-Go build's: another backend rounds
// differently.
func TestDashboardCaptures(t *testing.T) {
	if !strings.HasPrefix(nets.BLAS(), "gonum") {
		t.Skipf("the captures are the pure-Go build's; this build uses %s", nets.BLAS())
	}
	if testing.Short() {
		t.Skip("-short: the captures' searches take about 35 CPU-seconds")
	}
	if raceEnabled {
		t.Skip("the captures' searches take minutes under the race detector; the pure-Go pass checks them")
	}
	// The float32 sums are split by thread, so that the figures depend on
	// the thread count: the captures are computed on two, on any machine.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(captureThreads))
	screen := dashboardScreen(t)
	if len(screen) != 40 || !strings.HasPrefix(screen[1], fmt.Sprintf("iter %d/60 ", dashboardPause)) || !strings.Contains(screen[0], "paused") {
		t.Fatalf("not the paused search's screen at 120x40:\n%s", strings.Join(screen, "\n"))
	}
	full := strings.Join(screen, "\n") + "\n"
	// The README's: the screen cut to its first rows (the header and the
	// first chart), its frame's last line and the footer.
	cut := strings.Join(append(append([]string{}, screen[:19]...), screen[len(screen)-2:]...), "\n") + "\n"
	readme := map[string]string{"dashboard-synthetic": cut}
	usage := map[string]string{"dashboard-synthetic-120x40": "$ maple run " + dashboardSearch.flags + "\n" + full}
	if data := mnistDir(); data == "" {
		t.Run("samples", func(t *testing.T) {
			t.Skip("no MNIST under $MAPLE_DATA_DIR or ../shared/data: the samples pane's captures are not checked")
		})
	} else {
		// docs/USAGE.md prints the search's command beside its capture.
		if b, err := os.ReadFile(filepath.Join("..", "docs", "USAGE.md")); err != nil || !strings.Contains(string(b), "`maple run "+samplesSearch.flags+"`") {
			t.Errorf("docs/USAGE.md does not print the samples pane's search as `maple run %s` (%v)", samplesSearch.flags, err)
		}
		small, large := samplesScreens(t, data)
		// The README's: the samples pane's frame at 80x24.
		from, to := -1, -1
		for i, l := range small {
			if strings.HasPrefix(l, "┌") && from < 0 {
				from = i
			}
			if strings.HasPrefix(l, "└") && to < 0 {
				to = i
			}
		}
		if from < 0 || to < from || !strings.Contains(small[from+1], "samples") {
			t.Fatalf("no samples pane at 80x24:\n%s", strings.Join(small, "\n"))
		}
		readme["samples-cmnist-80x24"] = strings.Join(small[from:to+1], "\n") + "\n"
		usage["samples-cmnist-120x40"] = strings.Join(large, "\n") + "\n"
	}
	pages := []pageCaptures{
		{page: "README.md", captures: readme, mark: dashboardMark},
		{page: "docs/USAGE.md", captures: usage, mark: dashboardMark},
		{page: "docs/dashboard-synthetic-120x40.txt", whole: full},
	}
	checkPages(t, pages, "what the search gives (go test ./tui -run TestDashboardCaptures -update rewrites it)")
	checkChangedDigit(t, pages)
}

// checkChangedDigit shows that checkPages fails on a page whose capture
// has its last digit changed.
func checkChangedDigit(t *testing.T, pages []pageCaptures) {
	t.Helper()
	t.Run("a changed digit fails", func(t *testing.T) {
		for _, pg := range pages {
			b, err := os.ReadFile(filepath.Join("..", pg.page))
			if err != nil {
				t.Fatal(err)
			}
			text, err := pg.write(string(b)) // the page as the test wants it
			if err != nil {
				t.Fatal(err)
			}
			for name := range pg.captures {
				start := strings.Index(text, pg.mark(name)) + len(pg.mark(name)) + len("\n```\n")
				end := start + strings.Index(text[start:], "```\n")
				changed := changeDigit(t, text, start, end)
				if again, _ := pg.write(changed); again == changed {
					t.Errorf("%s: capture %s with a digit changed passes", pg.page, name)
				}
			}
			if pg.whole != "" {
				changed := changeDigit(t, text, 0, len(text))
				if again, _ := pg.write(changed); again == changed {
					t.Errorf("%s with a digit changed passes", pg.page)
				}
			}
		}
	})
}

// changeDigit returns text with the last digit in text[from:to] changed.
func changeDigit(t *testing.T, text string, from, to int) string {
	t.Helper()
	for j := to - 1; j >= from; j-- {
		if c := text[j]; c >= '0' && c <= '9' {
			return text[:j] + string(rune('0'+(c-'0'+1)%10)) + text[j+1:]
		}
	}
	t.Fatalf("no digit in %q", text[from:to])
	return ""
}
