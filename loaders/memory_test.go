package loaders

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestNPYMemoryBoundedByTheFile: a .npy is read straight into the
// float32 matrix and split in place, so that what loading allocates is
// bounded by the file (a 960 MB file made a 3.9 GB peak: the file read
// whole, the array decoded beside it, then each split copied).
func TestNPYMemoryBoundedByTheFile(t *testing.T) {
	dir := t.TempDir()
	rows, cols := 8000, 500
	x := make([]float32, rows*cols)
	for i := range x {
		x[i] = float32(i%977) / 977
	}
	// A version 1.0 header of a rows x cols float32 array, then the data.
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	dict += strings.Repeat(" ", (64-(10+len(dict)+1)%64)%64) + "\n"
	raw := append([]byte("\x93NUMPY\x01\x00"), byte(len(dict)), byte(len(dict)>>8))
	raw = append(raw, dict...)
	for _, v := range x {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
	}
	npyPath := filepath.Join(dir, "x.npy")
	if err := os.WriteFile(npyPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	file := float64(len(raw))
	var csv strings.Builder
	csv.WriteString("label,split\n")
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&csv, "%d,%s\n", i%2, []string{"train", "train", "val", "test"}[i%4])
	}
	c := DefaultFeatures()
	c.CSV, c.NPY = writeFile(t, filepath.Join(dir, "a.csv"), csv.String()), npyPath

	var shape []int
	var data []float32
	var err error
	if got := float64(allocated(func() { shape, data, err = ReadNPYFile(npyPath) })); err != nil || got > 1.1*file {
		t.Errorf("ReadNPYFile of a %.0f MB file allocated %.1fx the file (%v), want at most 1.1x", file/1e6, got/file, err)
	}
	if fmt.Sprint(shape) != fmt.Sprint([]int{rows, cols}) || data[cols+1] != x[cols+1] {
		t.Fatalf("shape %v", shape)
	}
	var s *Splits
	if got := float64(allocated(func() { s, err = Features(c) })); err != nil || got > 1.5*file {
		t.Errorf("Features with a %.0f MB .npy allocated %.1fx the file (%v), want at most 1.5x", file/1e6, got/file, err)
	}
	if s == nil {
		t.Fatal("no splits")
	}
	// Test row 0 is file row 3; val row 1 is file row 6.
	if s.Train.N != rows/2 || s.Test.X[0] != x[3*cols] || s.Val.Row(1)[7] != x[6*cols+7] || s.Train.Row(3)[2] != x[5*cols+2] {
		t.Errorf("rows moved to the wrong splits: train %d test[0] %v", s.Train.N, s.Test.X[0])
	}
}

// TestCSVLongLine: a line far longer than any sample's is refused as it
// is read, briefly, where the whole line was read and quoted back.
func TestCSVLongLine(t *testing.T) {
	dir := t.TempDir()
	c := DefaultFeatures()
	long := "f,label,split\n1,0,train\n" + strings.Repeat("7", maxCSVLine+10) + ",1,train\n"
	c.CSV = writeFile(t, filepath.Join(dir, "long.csv"), long)
	var err error
	got := allocated(func() { _, err = Features(c) })
	if err == nil || !strings.Contains(err.Error(), "long.csv: line 3 is longer than") || len(err.Error()) > 400 {
		t.Fatalf("error %.300v, want a short one naming long.csv's line 3", err)
	}
	// encoding/csv parses what it read of the line before it reports the
	// error: a few copies of the bound, not of the line.
	if got > 8*maxCSVLine {
		t.Errorf("reading a %d-byte line allocated %d bytes, want at most %d", len(long), got, 8*maxCSVLine)
	}
}

// TestHoldData: large data lowers the collector's percent to let 2% of
// it (at least 32 MiB) grow as garbage; small data, or GOGC in the
// environment, leave it alone.
func TestHoldData(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer func() { debug.SetGCPercent(prev); heldPercent = 0 }()
	for _, c := range []struct {
		name string
		gogc string
		data int64
		want int
	}{
		{"small data", "", 100 << 20, 100},
		{"512 MiB", "", 512 << 20, 7},
		{"2 GiB", "", 2 << 30, 2},
		{"GOGC set", "200", 2 << 30, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			heldPercent = 0
			t.Setenv("GOGC", c.gogc)
			HoldData(c.data)
			if got := debug.SetGCPercent(100); got != c.want {
				t.Errorf("GC percent %d, want %d", got, c.want)
			}
		})
	}
}
