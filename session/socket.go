package session

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/runs"

	"github.com/maple-ood/maple/core"
)

// MsgKind names what a Msg carries.
type MsgKind string

// The kinds of message a search sends to an attached client.
const (
	MsgHello    MsgKind = "hello"    // first: the config, history and events so far
	MsgSnapshot MsgKind = "snapshot" // one outer iteration
	MsgEvent    MsgKind = "event"    // one event
	MsgError    MsgKind = "error"    // a command was refused
)

// CmdKind names a command from a client.
type CmdKind string

// The commands a client can send.
const (
	CmdPause      CmdKind = "pause"
	CmdResume     CmdKind = "resume"
	CmdCheckpoint CmdKind = "checkpoint"
	CmdStop       CmdKind = "stop"
	CmdSetLR      CmdKind = "set_lr"
	CmdExported   CmdKind = "exported" // with iter: an export was written
)

// Msg is one line from a running search to an attached client.
type Msg struct {
	Kind     MsgKind          `json:"kind"`
	Config   *runs.Config     `json:"config,omitempty"`
	History  []*core.Snapshot `json:"history,omitempty"`
	Events   []core.Event     `json:"events,omitempty"`
	Snapshot *core.Snapshot   `json:"snapshot,omitempty"`
	Event    *core.Event      `json:"event,omitempty"`
	Error    string           `json:"error,omitempty"`
}

// Cmd is one line from a client: pause, resume, checkpoint, stop or set_lr.
type Cmd struct {
	Cmd  CmdKind     `json:"cmd"`
	Iter int         `json:"iter,omitempty"` // exported`
	LR   *RatesPatch `json:"lr,omitempty"`
}

// RatesPatch is set_lr's rates: those it names change, the others keep
// the values in force.
type RatesPatch struct {
	Weight *float64 `json:"weight,omitempty"`
	Keep   *float64 `json:"keep,omitempty"`
	Inner  *float64 `json:"inner,omitempty"`
}

// ratesNow are the rates in force as the hub last saw them (the newest
// snapshot's), else the run's settings'.
func (s *Server) ratesNow() core.LearningRates {
	h := s.hub.History()
	if n := len(h); n > 0 && h[n-1].LR != (core.LearningRates{}) {
		return h[n-1].LR
	}
	return s.cfg.Settings.Rates()
}

// Server serves a search's snapshots and takes commands on an owner-only
// unix socket.
type Server struct {
	ln      *net.UnixListener
	path    string
	pointer string // <run>/sock when it holds the real path (long paths)
	fresh   string // the socket's own directory, removed with it, if any
	hub     *Hub
	ctl     Control
	cfg     *runs.Config
	uid     int // the only user allowed to connect
	wg      sync.WaitGroup
	mu      sync.Mutex
	conn    map[net.Conn]struct{}
}

// socketPath picks where a run's socket listens: <run>/sock, or, when that
// path is too long for a unix socket, a file in the user's private socket
// directory (see privateDir) named by a hash of the run's path, whose path
// is written into <run>/sock. fresh is a directory made for this socket
// alone, to be removed with it.
func socketPath(r *runs.Run) (listen, pointer, fresh string, err error) {
	p := r.Path(runs.SocketFile)
	if len(p) < 100 {
		return p, "", "", nil
	}
	dir, isFresh, err := privateDir()
	if err != nil {
		return "", "", "", err
	}
	if isFresh {
		fresh = dir
	}
	abs, _ := filepath.Abs(r.Dir)
	h := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, r.Config.ID+"-"+hex.EncodeToString(h[:6])+".sock"), p, fresh, nil
}

// privateDir returns a directory only this user can enter:
// $XDG_RUNTIME_DIR/maple, else <tmp>/maple-<uid>, created 0700. When that
// one is not a directory owned by this user with mode 0700 (another user
// created it first, or planted a symlink), it is left alone and a fresh
// directory with a name nobody can guess is made beside it (fresh true):
// no other user can block a run.
func privateDir() (dir string, fresh bool, err error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	name := "maple"
	if base == "" {
		base, name = os.TempDir(), fmt.Sprintf("maple-%d", os.Getuid())
	}
	dir = filepath.Join(base, name)
	if ownPrivateDir(dir) {
		return dir, false, nil
	}
	d, err := os.MkdirTemp(base, name+"-")
	if err != nil {
		return "", false, fmt.Errorf("cannot create a socket directory in %s: %w", base, err)
	}
	return d, true, nil
}

// ownPrivateDir creates dir 0700 if missing and tells whether it is a
// directory of this user's with mode 0700.
func ownPrivateDir(dir string) bool {
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return false
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return fi.IsDir() && ok && int(st.Uid) == os.Getuid() && fi.Mode().Perm() == 0o700
}

// Serve starts listening for the run r; only this process's user may
// connect.
func Serve(r *runs.Run, hub *Hub, ctl Control) (*Server, error) {
	return serve(r, hub, ctl, os.Getuid())
}

func serve(r *runs.Run, hub *Hub, ctl Control, uid int) (*Server, error) {
	path, pointer, fresh, err := socketPath(r)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Server, error) {
		if fresh != "" {
			os.RemoveAll(fresh)
		}
		return nil, err
	}
	os.Remove(path) // a stale socket of a dead process; we hold the run's lock
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return fail(fmt.Errorf("cannot listen on %s: %w", path, err))
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return fail(fmt.Errorf("%w", err))
	}
	if pointer != "" {
		if err := os.WriteFile(pointer, []byte(path), 0o600); err != nil {
			ln.Close()
			return fail(fmt.Errorf("%w", err))
		}
	}
	cfg := r.Config
	s := &Server{ln: ln, path: path, pointer: pointer, fresh: fresh, hub: hub, ctl: ctl, cfg: &cfg, uid: uid, conn: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Close stops the server and disconnects every client.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conn {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	os.Remove(s.path)
	if s.pointer != "" {
		os.Remove(s.pointer)
	}
	if s.fresh != "" {
		os.RemoveAll(s.fresh)
	}
	return err
}

func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid := -1
	var cerr error
	raw.Control(func(fd uintptr) {
		cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		if err != nil {
			cerr = err
			return
		}
		uid = int(cred.Uid)
	})
	return uid, cerr
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			return
		}
		if uid, err := peerUID(c); err != nil || uid != s.uid {
			json.NewEncoder(c).Encode(Msg{Kind: MsgError, Error: fmt.Sprintf("refused: only user %d may attach to this search", s.uid)})
			c.Close()
			continue
		}
		s.mu.Lock()
		s.conn[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(c)
	}
}

func (s *Server) serve(c *net.UnixConn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conn, c)
		s.mu.Unlock()
		c.Close()
	}()
	sub, hist, evs := s.hub.Subscribe()
	defer s.hub.Unsubscribe(sub)
	var wmu sync.Mutex
	enc := json.NewEncoder(c)
	send := func(m Msg) error {
		wmu.Lock()
		defer wmu.Unlock()
		c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		return enc.Encode(m)
	}
	if send(Msg{Kind: MsgHello, Config: s.cfg, History: hist, Events: evs}) != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(c)
		sc.Buffer(make([]byte, 4096), 1<<16)
		for sc.Scan() {
			var cmd Cmd
			if err := json.Unmarshal(sc.Bytes(), &cmd); err != nil {
				send(Msg{Kind: MsgError, Error: "not a command: want one JSON object per line, e.g. {\"cmd\":\"pause\"}"})
				continue
			}
			if err := s.apply(cmd); err != nil {
				send(Msg{Kind: MsgError, Error: config.FlagError(err).Error()})
			}
		}
	}()
	for {
		select {
		case <-done:
			return
		case snap := <-sub.Snap:
			if send(Msg{Kind: MsgSnapshot, Snapshot: snap}) != nil {
				return
			}
		case ev := <-sub.Events:
			if send(Msg{Kind: MsgEvent, Event: &ev}) != nil {
				return
			}
		}
	}
}

func (s *Server) apply(c Cmd) error {
	switch c.Cmd {
	case CmdPause:
		return s.ctl.Pause()
	case CmdResume:
		return s.ctl.Resume()
	case CmdCheckpoint:
		return s.ctl.Checkpoint()
	case CmdStop:
		return s.ctl.Stop()
	case CmdExported:
		return s.ctl.Exported(c.Iter)
	case CmdSetLR:
		if c.LR == nil || (c.LR.Weight == nil && c.LR.Keep == nil && c.LR.Inner == nil) {
			return errors.New("set_lr needs lr naming one or more of weight, keep, inner")
		}
		lr := s.ratesNow()
		for _, f := range []struct {
			v  *float64
			to *float64
		}{{c.LR.Weight, &lr.Weight}, {c.LR.Keep, &lr.Keep}, {c.LR.Inner, &lr.Inner}} {
			if f.v != nil {
				*f.to = *f.v
			}
		}
		return s.ctl.SetLR(lr)
	}
	return fmt.Errorf("unknown command %q: want pause, resume, checkpoint, stop or set_lr", c.Cmd)
}

// Client is an attached view of a search in another process. It
// implements Control.
type Client struct {
	conn *net.UnixConn
	enc  *json.Encoder
	mu   sync.Mutex
	// Msgs delivers the server's messages; it is closed when the
	// connection ends.
	Msgs chan Msg
}

// Attach connects to the search running in the run directory dir. It
// refuses a socket that is not owned by this user or is open to others.
func Attach(dir string) (*Client, error) {
	path := filepath.Join(dir, runs.SocketFile)
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("no live search in %s (is it running? see maple ls): %w", dir, err)
	}
	if fi.Mode().IsRegular() {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%w", err)
		}
		path = strings.TrimSpace(string(b))
		if fi, err = os.Lstat(path); err != nil {
			return nil, fmt.Errorf("%w", err)
		}
	}
	if err := checkSocket(path, fi); err != nil {
		return nil, err
	}
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s (the search may have ended): %w", path, err)
	}
	cl := &Client{conn: c, enc: json.NewEncoder(c), Msgs: make(chan Msg, 64)}
	go func() {
		defer close(cl.Msgs)
		dec := json.NewDecoder(bufio.NewReader(c))
		for {
			var m Msg
			if err := dec.Decode(&m); err != nil {
				return
			}
			cl.Msgs <- m
		}
	}()
	return cl, nil
}

func checkSocket(path string, fi os.FileInfo) error {
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("%s is not a socket", path)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("refusing %s: it must belong to you and be mode 0600 (it is %v)", path, fi.Mode().Perm())
	}
	return nil
}

// Close disconnects; the search goes on.
func (c *Client) Close() error { return c.conn.Close() }

func (c *Client) send(cmd Cmd) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if err := c.enc.Encode(cmd); err != nil {
		return fmt.Errorf("the search did not take the command (%w); it may have ended", err)
	}
	return nil
}

// Pause, Resume, Checkpoint and Stop send the command; the search
// answers a refusal with an error message.
func (c *Client) Pause() error      { return c.send(Cmd{Cmd: CmdPause}) }
func (c *Client) Resume() error     { return c.send(Cmd{Cmd: CmdResume}) }
func (c *Client) Checkpoint() error { return c.send(Cmd{Cmd: CmdCheckpoint}) }
func (c *Client) Stop() error       { return c.send(Cmd{Cmd: CmdStop}) }

// Exported tells the search that the weights of the checkpoint at iter
// were exported, to record as an event.
func (c *Client) Exported(iter int) error { return c.send(Cmd{Cmd: CmdExported, Iter: iter}) }

// SetLR checks the rates here, then sends them.
func (c *Client) SetLR(lr core.LearningRates) error {
	if err := lr.Check(); err != nil {
		return err
	}
	return c.send(Cmd{Cmd: CmdSetLR, LR: &RatesPatch{Weight: &lr.Weight, Keep: &lr.Keep, Inner: &lr.Inner}})
}

// Follow prints what an attached client receives as progress lines (the
// same Printer as a headless run) until the connection closes.
func Follow(w io.Writer, cl *Client) {
	p := runs.Printer{W: w}
	for m := range cl.Msgs {
		switch m.Kind {
		case MsgHello:
			fmt.Fprintf(w, "attached to %s (%s on %s), %d iterations so far\n", m.Config.ID, m.Config.Method, m.Config.Dataset.Name, len(m.History))
		case MsgSnapshot:
			p.Snapshot(m.Snapshot)
		case MsgEvent:
			p.Event(*m.Event)
		case MsgError:
			fmt.Fprintln(w, "error:", m.Error)
		}
	}
	fmt.Fprintln(w, "the search closed the connection (finished or stopped)")
}
