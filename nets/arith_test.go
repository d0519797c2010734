package nets

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBLASNamesItsArithmetic: the backend's name says which kernels its
// sums run on (OpenBLAS's core kernels, oneDNN's instruction set), and
// follows the environment that caps them (OPENBLAS_CORETYPE,
// ONEDNN_MAX_CPU_ISA), because those decide the last bits of a run's
// figures as the build and thread count do. The pure-Go build names
// none.
func TestBLASNamesItsArithmetic(t *testing.T) {
	if os.Getenv("NETS_PRINT_BLAS") != "" {
		os.Stdout.WriteString("BLAS=" + BLAS() + "\n")
		return
	}
	cases := []struct {
		name string
		env  []string
		want []string // substrings by backend: openblas, onednn
	}{
		{"the CPU's own", nil, nil},
		{"OpenBLAS capped at Sandy Bridge, oneDNN at AVX", []string{"OPENBLAS_CORETYPE=SandyBridge", "ONEDNN_MAX_CPU_ISA=AVX"},
			[]string{"; Sandybridge kernels)", "; AVX)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBLASNamesItsArithmetic$")
			cmd.Env = append(os.Environ(), append([]string{"NETS_PRINT_BLAS=1"}, tc.env...)...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			var name string
			for _, l := range strings.Split(string(out), "\n") {
				if s, ok := strings.CutPrefix(l, "BLAS="); ok {
					name = s
				}
			}
			if name == "" {
				t.Fatalf("no BLAS line in %q", out)
			}
			openblas, onednn := strings.HasPrefix(name, "OpenBLAS"), strings.Contains(name, "oneDNN")
			if openblas && !strings.Contains(name, " kernels)") {
				t.Errorf("%q names no OpenBLAS kernels", name)
			}
			if onednn && !strings.Contains(name, "(cgo; ") {
				t.Errorf("%q names no oneDNN instruction set", name)
			}
			if !openblas && strings.Contains(name, "kernels") {
				t.Errorf("pure Go build names kernels: %q", name)
			}
			if tc.want != nil && openblas && !strings.Contains(name, tc.want[0]) {
				t.Errorf("%q: want %q", name, tc.want[0])
			}
			if tc.want != nil && onednn && !strings.HasSuffix(name, tc.want[1]) {
				t.Errorf("%q: want it to end %q", name, tc.want[1])
			}
		})
	}
}
