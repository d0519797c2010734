package session

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// ExitInterrupted is the exit code of a process ended by a signal or
// Ctrl-C (128 + SIGINT, the shell's convention).
const ExitInterrupted = 130

// Interrupts returns a context that the first SIGINT, SIGTERM or SIGHUP
// cancels: a search under it stops between two inner steps, checkpoints
// its last completed iteration and releases its run. A second signal
// calls exit(ExitInterrupted) at once (the lock goes with the process;
// the last checkpoint stays). This is the process's only signal handler,
// with or without the dashboard. stop undoes it.
//
// SIGPIPE is taken too and dropped: a closed output pipe (`maple run 2>&1
// | head` once head has exited) then makes a write fail with EPIPE
// instead of killing the process, so that the search goes on, writing its
// log.txt, and ends as it would have.
func Interrupts(parent context.Context, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	pipe := make(chan os.Signal, 1) // never read: a full channel drops the signal
	signal.Notify(pipe, syscall.SIGPIPE)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-ch:
				n++
				if n == 1 {
					cancel()
					continue
				}
				exit(ExitInterrupted)
				return
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		signal.Stop(pipe)
		close(done)
		cancel()
	}
}
