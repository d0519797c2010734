package loaders

import (
	"strings"
	"testing"
)

// TestOptionHelp: the help of an option only some datasets read names
// every dataset that reads it.
func TestOptionHelp(t *testing.T) {
	for _, option := range []string{"Envs", "ValFraction", "ImageSize"} {
		help := OptionHelp(option)
		for _, name := range Reading(option) {
			if !strings.Contains(help, name+":") && !strings.Contains(help, name+",") {
				t.Errorf("%s reads %s, but its help %q does not name it", name, option, help)
			}
		}
	}
	if h := OptionHelp("Downsample"); !strings.Contains(h, "mnist-fashion: keep every k-th pixel (default 2)") || !strings.Contains(h, "cifar-mnist: keep every k-th pixel (default 1)") {
		t.Errorf("--downsample's help %q lacks a domino dataset's default", h)
	}
}
