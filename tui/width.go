package tui

import (
	"os"

	"github.com/charmbracelet/x/term"
)

// Width returns the width of the terminal standard output is, or 0 when
// it is not a terminal (cmd wraps help to it).
func Width() int {
	if !term.IsTerminal(os.Stdout.Fd()) {
		return 0
	}
	w, _, err := term.GetSize(os.Stdout.Fd())
	if err != nil {
		return 0
	}
	return w
}
