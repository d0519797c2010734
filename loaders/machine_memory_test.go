package loaders

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMachineMemory: what a run may take is the smaller of MemAvailable
// and the room under the control group's limit, its own or an
// ancestor's, in cgroup v2 and v1; "max" and v1's huge number are no
// limit.
func TestMachineMemory(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		name   string
		cgroup string
		files  map[string]string // under the cgroup root
		free   int64
	}{
		{"no cgroup limit", "0::/user.slice\n", map[string]string{"user.slice/memory.max": "max"}, 8 * gib},
		{"a v2 limit below MemAvailable", "0::/job/step\n", map[string]string{
			"job/step/memory.max": "max", "job/memory.max": "4294967296", "job/memory.current": "1073741824"}, 3 * gib},
		{"a v2 limit above it", "0::/job\n", map[string]string{"job/memory.max": "68719476736", "job/memory.current": "0"}, 8 * gib},
		{"a v1 limit", "4:memory:/slurm/job1\n0::/\n", map[string]string{
			"memory/slurm/job1/memory.limit_in_bytes": "2147483648", "memory/slurm/job1/memory.usage_in_bytes": "536870912",
			"memory/memory.limit_in_bytes": "9223372036854771712"}, gib + gib/2},
		{"a v2 group whose usage is page cache", "0::/job\n", map[string]string{
			"job/memory.max": "4294967296", "job/memory.current": "4294967296", "job/memory.stat": "anon 1073741824\ninactive_file 3221225472\n"}, 3 * gib},
		{"a full v2 group", "0::/job\n", map[string]string{"job/memory.max": "4294967296", "job/memory.current": "4294967296"}, 0},
		{"v1 without a limit", "4:memory:/x\n", map[string]string{"memory/x/memory.limit_in_bytes": "9223372036854771712"}, 8 * gib},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			proc, sys := filepath.Join(dir, "proc"), filepath.Join(dir, "sys")
			os.MkdirAll(filepath.Join(proc, "self"), 0o700)
			os.WriteFile(filepath.Join(proc, "meminfo"), []byte("MemTotal:       16777216 kB\nMemAvailable:    8388608 kB\n"), 0o600)
			os.WriteFile(filepath.Join(proc, "self", "cgroup"), []byte(tc.cgroup), 0o600)
			for p, v := range tc.files {
				os.MkdirAll(filepath.Dir(filepath.Join(sys, p)), 0o700)
				os.WriteFile(filepath.Join(sys, p), []byte(v+"\n"), 0o600)
			}
			procRoot, sysRoot = proc, sys
			t.Cleanup(func() { procRoot, sysRoot = "/proc", "/sys/fs/cgroup" })
			if m := MachineMemory(); m.Free() != tc.free {
				t.Errorf("free %d (%v), want %d", m.Free(), m, tc.free)
			}
		})
	}
}

// npyFile writes a .npy of the given header dictionary and data bytes.
func npyFile(t *testing.T, dict string, data []byte) string {
	t.Helper()
	dict += strings.Repeat(" ", 63-(10+len(dict))%64) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(dict)), byte(len(dict)>>8))
	b = append(append(b, dict...), data...)
	path := filepath.Join(t.TempDir(), "x.npy")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestNPYNoFixedCap: a file's header may declare more than 1 GiB (a
// CelebA ResNet-50 embedding file is 1.3 GB: "holds more than 1 GiB of
// data" refused it); the file's size is checked against it before
// anything is allocated, so a damaged header asking for more than the
// file holds is still refused, as truncated.
func TestNPYNoFixedCap(t *testing.T) {
	path := npyFile(t, "{'descr': '<f4', 'fortran_order': False, 'shape': (160000, 2048), }", make([]byte, 64))
	_, _, err := ReadNPYFile(path)
	if err == nil || !strings.Contains(err.Error(), "truncated: shape [160000 2048] needs 1310720000 bytes of data, the file has 64") {
		t.Errorf("error %v, want the file found truncated, not the shape refused", err)
	}
	// A stream cannot be checked: the cap stays.
	b, _ := os.ReadFile(path)
	if _, _, err := ReadNPY(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "more than 1 GiB") {
		t.Errorf("a stream: %v", err)
	}
}

// TestNPYFloat16: a float16 .npy is read, each value exactly (every
// float16 is a float32), and a float16 array's every bit pattern
// converts to the value IEEE 754 gives it.
func TestNPYFloat16(t *testing.T) {
	data := []byte{0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0x01, 0x00, 0x55, 0x35, 0x00, 0x7c}
	path := npyFile(t, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", data)
	shape, x, err := ReadNPYFile(path)
	want := []float32{1, -2, 65504, float32(math.Ldexp(1, -24)), 0.33325195, float32(math.Inf(1))}
	if err != nil || len(shape) != 2 || shape[1] != 3 || !slices.Equal(x, want) {
		t.Fatalf("%v %v %v, want %v", shape, x, err, want)
	}
	for h := range 1 << 16 {
		s, e, m := h>>15, (h>>10)&0x1f, h&0x3ff
		var v float64
		switch {
		case e == 0x1f && m == 0:
			v = math.Inf(1)
		case e == 0x1f:
			v = math.NaN()
		case e == 0:
			v = math.Ldexp(float64(m), -24)
		default:
			v = math.Ldexp(1+float64(m)/1024, e-15)
		}
		if s == 1 {
			v = -v
		}
		got := halfToFloat32(uint16(h))
		if math.IsNaN(v) != math.IsNaN(float64(got)) || !math.IsNaN(v) && (float64(got) != v || math.Signbit(float64(got)) != math.Signbit(v)) {
			t.Fatalf("float16 %#04x: %v, want %v", h, got, v)
		}
	}
}
