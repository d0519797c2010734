package core

import (
	"errors"
	"sync"
	"sync/atomic"
)

// ErrEnded answers a command sent after the search's Run returned.
var ErrEnded = errors.New("the search has ended; it takes no more commands")

// command is one request to the engine.
type command struct {
	kind EventKind
	lr   LearningRates
	iter int // EventExport: the checkpoint exported
}

// mailbox holds the commands the engine has not applied yet. Senders
// never block: the pending list holds at most one command of each kind
// (a repeat replaces the earlier one and moves to the end, so the last
// word wins), and the notify channel has one slot that merges wake-ups.
type mailbox struct {
	mu      sync.Mutex
	pending []command
	ended   bool
	notify  chan struct{}
	stop    atomic.Bool // read between inner steps
	onStop  func()      // called when a stop is posted (ends a running evaluation)
}

func (b *mailbox) setOnStop(f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.onStop = f
}

func newMailbox() *mailbox { return &mailbox{notify: make(chan struct{}, 1)} }

// post queues c; it fails only once the search has ended.
func (b *mailbox) post(c command) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended {
		return ErrEnded
	}
	for i, p := range b.pending {
		if p.kind == c.kind {
			b.pending = append(b.pending[:i], b.pending[i+1:]...)
			break
		}
	}
	b.pending = append(b.pending, c)
	if c.kind == EventStop {
		b.stop.Store(true)
		if b.onStop != nil {
			b.onStop()
		}
	}
	select {
	case b.notify <- struct{}{}:
	default:
	}
	return nil
}

// take returns and clears the pending commands.
func (b *mailbox) take() []command {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.pending
	b.pending = nil
	return out
}

// close refuses every later command.
func (b *mailbox) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ended = true
	b.pending = nil
}
