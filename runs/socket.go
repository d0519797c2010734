package runs

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/maple-ood/maple/core"
)

// Msg is one line from a running search to an attached client.
type Msg struct {
	Kind     string           `json:"kind"` // hello, snapshot, event, error
	Config   *Config          `json:"config,omitempty"`
	History  []*core.Snapshot `json:"history,omitempty"`
	Events   []core.Event     `json:"events,omitempty"`
	Snapshot *core.Snapshot   `json:"snapshot,omitempty"`
	Event    *core.Event      `json:"event,omitempty"`
	Error    string           `json:"error,omitempty"`
}

// Cmd is one line from a client: pause, resume, checkpoint, stop or set_lr.
type Cmd struct {
	Cmd string              `json:"cmd"`
	LR  *core.LearningRates `json:"lr,omitempty"`
}

// Server serves a search's snapshots and takes commands on an owner-only
// unix socket.
type Server struct {
	ln      *net.UnixListener
	path    string
	pointer string // <run>/sock when it holds the real path (long paths)
	hub     *Hub
	ctl     Control
	cfg     *Config
	// UID is the only user allowed to connect; default os.Getuid().
	UID  int
	wg   sync.WaitGroup
	mu   sync.Mutex
	conn map[net.Conn]struct{}
}

// socketPath picks where a run's socket listens: <run>/sock, or, when that
// path is too long for a unix socket, a file in the temporary directory
// whose path is written into <run>/sock.
func socketPath(r *Run) (listen, pointer string) {
	p := r.Path(SocketFile)
	if len(p) < 100 {
		return p, ""
	}
	return filepath.Join(os.TempDir(), "maple-"+r.Config.ID+".sock"), p
}

// Serve starts listening for the run r.
func Serve(r *Run, hub *Hub, ctl Control) (*Server, error) {
	path, pointer := socketPath(r)
	os.Remove(path) // a stale socket of a dead process; we hold the run's lock
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("runs: cannot listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("runs: %w", err)
	}
	if pointer != "" {
		if err := os.WriteFile(pointer, []byte(path), 0o600); err != nil {
			ln.Close()
			return nil, fmt.Errorf("runs: %w", err)
		}
	}
	cfg := r.Config
	s := &Server{ln: ln, path: path, pointer: pointer, hub: hub, ctl: ctl, cfg: &cfg, UID: os.Getuid(), conn: map[net.Conn]struct{}{}}
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
		if uid, err := peerUID(c); err != nil || uid != s.UID {
			json.NewEncoder(c).Encode(Msg{Kind: "error", Error: fmt.Sprintf("refused: only user %d may attach to this search", s.UID)})
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
	if send(Msg{Kind: "hello", Config: s.cfg, History: hist, Events: evs}) != nil {
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
				send(Msg{Kind: "error", Error: "not a command: want one JSON object per line, e.g. {\"cmd\":\"pause\"}"})
				continue
			}
			if err := s.apply(cmd); err != nil {
				send(Msg{Kind: "error", Error: err.Error()})
			}
		}
	}()
	for {
		select {
		case <-done:
			return
		case snap := <-sub.Snap:
			if send(Msg{Kind: "snapshot", Snapshot: snap}) != nil {
				return
			}
		case ev := <-sub.Events:
			if send(Msg{Kind: "event", Event: &ev}) != nil {
				return
			}
		}
	}
}

func (s *Server) apply(c Cmd) error {
	switch c.Cmd {
	case "pause":
		s.ctl.Pause()
	case "resume":
		s.ctl.Resume()
	case "checkpoint":
		s.ctl.Checkpoint()
	case "stop":
		s.ctl.Stop()
	case "set_lr":
		if c.LR == nil {
			return errors.New("set_lr needs lr: {weight, keep, inner}")
		}
		return s.ctl.SetLR(*c.LR)
	default:
		return fmt.Errorf("unknown command %q: want pause, resume, checkpoint, stop or set_lr", c.Cmd)
	}
	return nil
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
	path := filepath.Join(dir, SocketFile)
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("runs: no live search in %s (is it running? see maple ls): %w", dir, err)
	}
	if fi.Mode().IsRegular() {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("runs: %w", err)
		}
		path = strings.TrimSpace(string(b))
		if fi, err = os.Lstat(path); err != nil {
			return nil, fmt.Errorf("runs: %w", err)
		}
	}
	if err := checkSocket(path, fi); err != nil {
		return nil, err
	}
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("runs: cannot connect to %s (the search may have ended): %w", path, err)
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
		return fmt.Errorf("runs: %s is not a socket", path)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("runs: refusing %s: it must belong to you and be mode 0600 (it is %v)", path, fi.Mode().Perm())
	}
	return nil
}

// Close disconnects; the search goes on.
func (c *Client) Close() error { return c.conn.Close() }

func (c *Client) send(cmd Cmd) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.enc.Encode(cmd)
}

// Pause, Resume, Checkpoint and Stop send the command.
func (c *Client) Pause()      { c.send(Cmd{Cmd: "pause"}) }
func (c *Client) Resume()     { c.send(Cmd{Cmd: "resume"}) }
func (c *Client) Checkpoint() { c.send(Cmd{Cmd: "checkpoint"}) }
func (c *Client) Stop()       { c.send(Cmd{Cmd: "stop"}) }

// SetLR checks the rates here, then sends them.
func (c *Client) SetLR(lr core.LearningRates) error {
	if err := lr.Check(); err != nil {
		return err
	}
	return c.send(Cmd{Cmd: "set_lr", LR: &lr})
}
