// Package core is maple's bilevel engine: mask sampling, inner weighted
// training through nets, the outer objectives and their logit cotangents,
// the one-step truncated hypergradient, Adam with clipping, the
// projections, the schedules and the final weighted-ERM evaluation. It
// reports a snapshot per outer iteration to a Recorder, synchronously, as
// gonum's optimize reports to its Recorder, and takes commands (pause,
// resume, set rates, checkpoint, stop) through a mailbox that never
// blocks the sender; stop takes effect between two inner steps. It does
// no file or network I/O and knows no UI; the engine protocol is in
// docs/ARCHITECTURE.md.
package core
