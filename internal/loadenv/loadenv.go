package loadenv

import (
	"os"
	"syscall"

	"github.com/maple-ood/maple/nets"
)

// Missing returns "NAME=value" for each default that lookup does not find.
func Missing(defaults []nets.EnvDefault, lookup func(string) (string, bool)) []string {
	var add []string
	for _, d := range defaults {
		if _, ok := lookup(d.Name); !ok {
			add = append(add, d.Name+"="+d.Value)
		}
	}
	return add
}

// Exec re-executes the running program with the missing defaults added to
// its environment and the same arguments. It returns only when nothing is
// missing or the exec failed; the program then goes on as it is (slower
// on a busy machine, never wrong).
func Exec(defaults []nets.EnvDefault) {
	add := Missing(defaults, os.LookupEnv)
	if len(add) == 0 {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		self = "/proc/self/exe" // the running file, even if replaced or removed since
	}
	_ = syscall.Exec(self, os.Args, append(os.Environ(), add...))
}
