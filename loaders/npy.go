package loaders

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/sbinet/npyio/npy"
)

// ReadNPYFile reads a C-order .npy array of 1 or 2 dimensions with a
// float32, float64, signed integer or uint8 element type, as float32.
func ReadNPYFile(path string) (shape []int, data []float32, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w", err)
	}
	defer f.Close()
	shape, data, err = ReadNPY(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return shape, data, nil
}

// ReadNPY reads a .npy stream; see ReadNPYFile.
func ReadNPY(r io.Reader) (shape []int, data []float32, err error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxIDX+1))
	if err != nil {
		return nil, nil, err
	}
	if len(raw) > maxIDX {
		return nil, nil, fmt.Errorf("larger than 1 GiB")
	}
	defer func() {
		// The .npy library is not hardened against every malformed
		// header; a panic there is a malformed file here.
		if p := recover(); p != nil {
			shape, data, err = nil, nil, fmt.Errorf("malformed .npy file (%v)", p)
		}
	}()
	rd, err := npy.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, fmt.Errorf("not a .npy file (%v); save it with numpy.save", err)
	}
	h := rd.Header
	if len(h.Descr.Shape) < 1 || len(h.Descr.Shape) > 2 {
		return nil, nil, fmt.Errorf("shape %v, want 1 or 2 dimensions", h.Descr.Shape)
	}
	n := 1
	for _, d := range h.Descr.Shape {
		if d < 0 {
			return nil, nil, fmt.Errorf("shape %v has a negative dimension; the header is damaged", h.Descr.Shape)
		}
		if d > 0 && n > maxIDX/d {
			return nil, nil, fmt.Errorf("shape %v is too large", h.Descr.Shape)
		}
		n *= d
	}
	dt := strings.TrimLeft(h.Descr.Type, "<|=")
	size := map[string]int{"f4": 4, "f8": 8, "i4": 4, "i8": 8, "u1": 1, "i2": 2}[dt]
	if size == 0 {
		return nil, nil, fmt.Errorf("element type %q, want float32, float64, int16/32/64 or uint8 (little-endian)", h.Descr.Type)
	}
	if have := len(raw) - npyHeaderLen(raw); n*size > have {
		return nil, nil, fmt.Errorf("truncated: shape %v needs %d bytes of data, the file has %d", h.Descr.Shape, n*size, have)
	}
	var out []float32
	switch dt {
	case "f4":
		out, err = readAs[float32](rd)
	case "f8":
		out, err = readAs[float64](rd)
	case "i2":
		out, err = readAs[int16](rd)
	case "i4":
		out, err = readAs[int32](rd)
	case "i8":
		out, err = readAs[int64](rd)
	case "u1":
		out, err = readAs[uint8](rd)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading the data: %v", err)
	}
	if len(out) != n {
		return nil, nil, fmt.Errorf("truncated: %d of %d values", len(out), n)
	}
	if h.Descr.Fortran && len(h.Descr.Shape) == 2 {
		// np.save(df.to_numpy()) often writes column-major: make it
		// row-major (one sample per row).
		r, c := h.Descr.Shape[0], h.Descr.Shape[1]
		t := make([]float32, n)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				t[i*c+j] = out[j*r+i]
			}
		}
		out = t
	}
	return append([]int(nil), h.Descr.Shape...), out, nil
}

// readAs reads the array as its on-disk element type and converts it.
func readAs[E float32 | float64 | int16 | int32 | int64 | uint8](rd *npy.Reader) ([]float32, error) {
	var v []E
	if err := rd.Read(&v); err != nil {
		return nil, err
	}
	if f, ok := any(v).([]float32); ok {
		return f, nil
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out, nil
}

// npyHeaderLen is the length of the magic, version, length field and
// header of a .npy file (already parsed, so well formed).
func npyHeaderLen(raw []byte) int {
	if len(raw) < 12 {
		return len(raw)
	}
	if raw[6] == 1 {
		return 10 + int(binary.LittleEndian.Uint16(raw[8:10]))
	}
	return 12 + int(binary.LittleEndian.Uint32(raw[8:12]))
}

// WriteNPY writes a 1-D float32 or float64 array in the .npy format with
// a version 1.0 header (little-endian, C order), readable by numpy.load.
// (The .npy library writes version 2.0 headers, so this is done here.)
func WriteNPY[T float32 | float64 | int64 | uint8](w io.Writer, v []T) error {
	var descr string
	var size int
	switch any(v).(type) {
	case []float32:
		descr, size = "<f4", 4
	case []float64:
		descr, size = "<f8", 8
	case []int64:
		descr, size = "<i8", 8
	case []uint8:
		descr, size = "|u1", 1
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }", descr, len(v))
	// Pad with spaces and a newline so that the data starts 64-aligned.
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	hdr := make([]byte, 0, total+pad)
	hdr = append(hdr, "\x93NUMPY\x01\x00"...)
	hdr = binary.LittleEndian.AppendUint16(hdr, uint16(len(dict)+pad+1))
	hdr = append(hdr, dict...)
	hdr = append(hdr, bytes.Repeat([]byte{' '}, pad)...)
	hdr = append(hdr, '\n')
	buf := make([]byte, 0, len(hdr)+size*len(v))
	buf = append(buf, hdr...)
	switch x := any(v).(type) {
	case []float32:
		for _, e := range x {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(e))
		}
	case []float64:
		for _, e := range x {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(e))
		}
	case []int64:
		for _, e := range x {
			buf = binary.LittleEndian.AppendUint64(buf, uint64(e))
		}
	case []uint8:
		buf = append(buf, x...)
	}
	_, err := w.Write(buf)
	return err
}
