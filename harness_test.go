package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The end-to-end tests' one harness: a private tmux server whose panes
// run the real binary, and waits for a state (a screen, a file, a
// process gone, a condition), never for a time. Each wait has a limit,
// a bound on a loaded machine rather than a schedule.

// screenLimit is how long a wait for a screen lasts unless the server's
// limit says otherwise.
const screenLimit = 30 * time.Second

// tmuxServer runs commands in a private tmux server, killed when the
// test ends.
type tmuxServer struct {
	sock string
	// limit bounds waitScreen (screenLimit when zero).
	limit time.Duration
}

// newTmux starts a private tmux server, or skips the test when tmux is
// not installed.
func newTmux(t *testing.T) *tmuxServer {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	s := &tmuxServer{sock: filepath.Join(t.TempDir(), "tmux.sock")}
	t.Cleanup(func() { s.do("kill-server") })
	// A session that outlives every test session keeps the server up: a
	// server whose last session has just ended exits, and a new session
	// started in that moment finds "no server running".
	s.do("new-session", "-d", "-s", "keep", "sleep 100000")
	return s
}

// do runs a tmux command on the server and returns its output.
func (s *tmuxServer) do(args ...string) string {
	out, _ := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	return string(out)
}

// open runs cmdline in a new 120x40 session called name.
func (s *tmuxServer) open(name, cmdline string) {
	s.openSized(name, 120, 40, cmdline)
}

// openSized runs cmdline in a new session of w x h called name.
func (s *tmuxServer) openSized(name string, w, h int, cmdline string) {
	s.do("new-session", "-d", "-s", name, "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), cmdline)
}

// start runs command in a new 120x40 session and returns the pid of the
// command (exec'd by the pane's shell).
func (s *tmuxServer) start(t *testing.T, name, command string) int {
	t.Helper()
	s.open(name, "exec "+command)
	out := strings.TrimSpace(s.do("list-panes", "-t", name, "-F", "#{pane_pid}"))
	pid, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("tmux pane pid %q", out)
	}
	return pid
}

// keys types keys into the session target.
func (s *tmuxServer) keys(target string, keys ...string) {
	s.do(append([]string{"send-keys", "-t", target}, keys...)...)
}

// screen returns what the session target shows.
func (s *tmuxServer) screen(target string) string {
	return s.do("capture-pane", "-p", "-t", target)
}

// waitScreen waits until the session target shows what, and returns the
// screen.
func (s *tmuxServer) waitScreen(t *testing.T, target, what string) string {
	t.Helper()
	limit := s.limit
	if limit == 0 {
		limit = screenLimit
	}
	var screen string
	if !waitUntil(limit, func() bool { screen = s.screen(target); return strings.Contains(screen, what) }) {
		t.Fatalf("waited for %q; the screen shows:\n%s", what, screen)
	}
	return screen
}

// waitScreenWithout waits until the session target no longer shows
// what.
func (s *tmuxServer) waitScreenWithout(t *testing.T, target, what string) {
	t.Helper()
	var screen string
	if !waitUntil(screenLimit, func() bool { screen = s.screen(target); return !strings.Contains(screen, what) }) {
		t.Fatalf("waited for %q to go; the screen shows:\n%s", what, screen)
	}
}

// keysUntil types keys into target until it shows what, and returns the
// screen: for a program that drops the keys typed in its first moments
// (the dashboard drops type-ahead), the state "it takes keys" rather than
// a time.
func (s *tmuxServer) keysUntil(t *testing.T, target, what string, keys ...string) string {
	t.Helper()
	var screen string
	ok := waitUntil(screenLimit, func() bool {
		s.keys(target, keys...)
		// Give the keys' effect the time to show before typing them again.
		return waitUntil(time.Second, func() bool { screen = s.screen(target); return strings.Contains(screen, what) })
	})
	if !ok {
		t.Fatalf("typed %v until %q; the screen shows:\n%s", keys, what, screen)
	}
	return screen
}

// waitUntil checks cond every 20 ms until it holds (true) or limit has
// passed (false).
func waitUntil(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); ; time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// waitGlob waits until a file matching pattern exists, up to limit; then
// it kills cmd and fails the test.
func waitGlob(t *testing.T, pattern string, limit time.Duration, cmd *exec.Cmd) {
	t.Helper()
	if !waitUntil(limit, func() bool { m, _ := filepath.Glob(pattern); return len(m) > 0 }) {
		cmd.Process.Kill()
		t.Fatalf("no %s after %v", pattern, limit)
	}
}

// alive tells whether the process pid runs (a zombie, exited and not yet
// reaped, counts as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// waitGone waits up to limit for pid to exit and returns how long it took.
func waitGone(pid int, limit time.Duration) (time.Duration, bool) {
	t0 := time.Now()
	ok := waitUntil(limit, func() bool { return !alive(pid) })
	return time.Since(t0), ok
}

// runDirs lists the run directories in dir (not the sweep's claims).
func runDirs(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	all, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []os.DirEntry
	for _, e := range all {
		if !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e)
		}
	}
	return out
}
