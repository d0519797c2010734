// Package core is maple's bilevel engine: mask sampling, inner weighted
// training of a models.Model, the outer objectives (one file each, in
// objectives) and their logit cotangents, the one-step truncated
// hypergradient, Adam with clipping, the projections, the schedules, the
// maple-reference preset, the validation-selected iterate and, through
// package train, the evaluation of the weights it finds. It reports a
// snapshot per outer iteration to a Recorder, synchronously, as gonum's
// optimize reports to its Recorder, and takes commands (pause, resume, set
// rates, checkpoint, stop) through a mailbox that never blocks the sender;
// stop takes effect between two inner steps. It does no file or network
// I/O and knows no UI; the engine protocol is in docs/ARCHITECTURE.md. The
// comparison methods are package baselines, which imports core; core does
// not import it. The records it reads and reports (Settings, Snapshot,
// Event, State, Status) are package record's, kept here under their old
// names; core registers its objectives' names and scales there
// (RegisterObjective).
package core
