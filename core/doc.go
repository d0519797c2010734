// Package core is maple's bilevel engine: mask sampling, inner weighted
// training through nets, the outer objectives and their logit cotangents,
// the one-step truncated hypergradient, Adam with clipping, the
// projections, the schedules and the final weighted-ERM evaluation. It
// reports a snapshot per outer iteration to a Recorder and takes commands
// between outer iterations. It does no file I/O and knows no UI.
package core
