// Package cmd is maple's command line, in cli/cli's pattern: per command
// an options struct, a NewCmdX(f, runF) constructor (runF replaces the run
// function in tests) and a run function that parses flags into settings
// and calls the packages (runs, report, tui); the Factory carries the
// process's streams and the runs directory. Package main only installs the
// signal handling and maps errors to exit codes. See docs/ARCHITECTURE.md.
package cmd
