package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	mcmd "github.com/maple-ood/maple/cmd"
)

// TestFailedDownload: MNIST that cannot be downloaded (every mirror
// refused, through a proxy that is not there) is a failure, exit 1 (it
// exited 2, the code of bad flags), that names the file, and it leaves no
// empty mnist/ folder behind.
func TestFailedDownload(t *testing.T) {
	bin := buildMaple(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"data", []string{"data", "cmnist"}},
		{"run", []string{"run", "--dataset", "cmnist", "--runs-dir", t.TempDir()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dataDir := t.TempDir()
			cmd := exec.Command(bin, append(c.args, "--data-dir", dataDir)...)
			cmd.Env = append(os.Environ(), "HTTPS_PROXY=http://127.0.0.1:1", "HTTP_PROXY=http://127.0.0.1:1",
				"https_proxy=http://127.0.0.1:1", "http_proxy=http://127.0.0.1:1", "NO_PROXY=", "no_proxy=")
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != mcmd.ExitFailed || !strings.Contains(string(out), "could not fetch train-images-idx3-ubyte.gz") {
				t.Errorf("maple %v: %v\n%s\nwant exit 1 and the file named", c.args, err, out)
			}
			if _, err := os.Stat(filepath.Join(dataDir, "mnist")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("left behind the folder mnist/ (%v)", err)
			}
		})
	}
}
