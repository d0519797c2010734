package loaders

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/sbinet/npyio/npy"
)

// ReadNPYFile reads a C-order .npy array of 1 or 2 dimensions with a
// float32, float64, signed integer or uint8 element type, as float32.
// The values are decoded as they are read, straight into the returned
// array: reading allocates the float32 array and a small buffer, not the
// file.
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

// maxNPYHeader bounds a .npy header's declared length (numpy writes a
// few hundred bytes), so that a damaged one cannot ask for gigabytes.
const maxNPYHeader = 1 << 20

// ReadNPY reads a .npy stream; see ReadNPYFile. When r has a Stat method
// (an *os.File), a header declaring more data than the file holds is
// refused before the array is allocated.
func ReadNPY(r io.Reader) (shape []int, data []float32, err error) {
	br := bufio.NewReader(r)
	hlen, err := npyHeaderLen(br)
	if err != nil {
		return nil, nil, err
	}
	rd, err := npyHeader(br)
	if err != nil {
		return nil, nil, err
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
		if d > 0 && n > math.MaxInt32*4/d { // 2^33 elements, 32 GiB as float32
			return nil, nil, fmt.Errorf("shape %v is too large", h.Descr.Shape)
		}
		n *= d
	}
	dt := strings.TrimLeft(h.Descr.Type, "<|=")
	size := npySizes[dt]
	if size == 0 {
		return nil, nil, fmt.Errorf("element type %q, want float32, float16, float64, int16/32/64 or uint8 (little-endian)", h.Descr.Type)
	}
	// A file's size bounds what its header may declare: the array is
	// allocated only once the file is found to hold it, however large
	// (the machine's memory is checked before, by the run). A stream that
	// cannot tell its size keeps a cap against a damaged header.
	file := false
	if st, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			file = true
			if have := fi.Size() - int64(hlen); int64(n)*int64(size) > have {
				return nil, nil, fmt.Errorf("truncated: shape %v needs %d bytes of data, the file has %d", h.Descr.Shape, int64(n)*int64(size), max(have, 0))
			}
		}
	}
	if !file && n > maxIDX/size {
		return nil, nil, fmt.Errorf("shape %v of %s holds more than 1 GiB of data, and a stream's size cannot be checked against it: save it to a file", h.Descr.Shape, h.Descr.Type)
	}
	// Element k of the file goes to out[at(k)]: itself in C order; in
	// Fortran order (np.save(df.to_numpy()) often writes column-major)
	// row k mod r, column k div r of the row-major matrix.
	at := func(k int) int { return k }
	if h.Descr.Fortran && len(h.Descr.Shape) == 2 {
		rows, cols := h.Descr.Shape[0], h.Descr.Shape[1]
		at = func(k int) int { return (k%rows)*cols + k/rows }
	}
	out := make([]float32, n)
	dec := npyDecoders[dt]
	buf := make([]byte, npyChunk-npyChunk%size)
	for k := 0; k < n; {
		m := min(len(buf)/size, n-k)
		if got, err := io.ReadFull(br, buf[:m*size]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, nil, fmt.Errorf("truncated: shape %v needs %d bytes of data, the file has %d", h.Descr.Shape, n*size, k*size+got)
			}
			return nil, nil, fmt.Errorf("reading the data: %w", err)
		}
		for i := 0; i < m; i++ {
			out[at(k+i)] = dec(buf[i*size:])
		}
		if dt == "f8" { // a float64 beyond float32's range would read as an infinity it is not
			for i := 0; i < m; i++ {
				v := math.Float64frombits(binary.LittleEndian.Uint64(buf[i*size:]))
				if math.Abs(v) > math.MaxFloat32 && !math.IsInf(v, 0) {
					j, cols := at(k+i), 1
					if len(h.Descr.Shape) == 2 {
						cols = h.Descr.Shape[1]
					}
					return nil, nil, fmt.Errorf("row %d, column %d (counted from 0) is %g, beyond float32's range (about ±3.4e38), in which maple computes: standardise the features (each column less its mean, over its sd) and save the file again", j/cols, j%cols, v)
				}
			}
		}
		k += m
	}
	// Bytes past the array: another array appended, or a file written
	// over a longer one; its shape then does not describe it.
	if rest, err := br.Peek(1); len(rest) > 0 && err == nil {
		extra := "more bytes"
		if st, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
			if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
				extra = fmt.Sprintf("%d more bytes", fi.Size()-int64(hlen)-int64(n*size))
			}
		}
		return nil, nil, fmt.Errorf("shape %v of %s needs %d bytes of data, and the file holds %s after them: it is damaged, or holds more than one array; save the one array again with numpy.save", h.Descr.Shape, h.Descr.Type, n*size, extra)
	}
	return append([]int(nil), h.Descr.Shape...), out, nil
}

// npyChunk is the size of the buffer a .npy's data is read through.
const npyChunk = 256 << 10

// npySizes are the bytes of an element of each type read.
var npySizes = map[string]int{"f4": 4, "f2": 2, "f8": 8, "i4": 4, "i8": 8, "u1": 1, "i2": 2}

// npyDecoders decode one little-endian element of each type as float32.
var npyDecoders = map[string]func([]byte) float32{
	"f2": func(b []byte) float32 { return halfToFloat32(binary.LittleEndian.Uint16(b)) },
	"f4": func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) },
	"f8": func(b []byte) float32 { return float32(math.Float64frombits(binary.LittleEndian.Uint64(b))) },
	"i2": func(b []byte) float32 { return float32(int16(binary.LittleEndian.Uint16(b))) },
	"i4": func(b []byte) float32 { return float32(int32(binary.LittleEndian.Uint32(b))) },
	"i8": func(b []byte) float32 { return float32(int64(binary.LittleEndian.Uint64(b))) },
	"u1": func(b []byte) float32 { return float32(b[0]) },
}

// npyHeaderLen peeks at the magic, version and header length of a .npy
// stream and returns the length of all three and the header, refusing
// what is not a .npy or declares an absurd header.
func npyHeaderLen(br *bufio.Reader) (int, error) {
	head, err := br.Peek(12)
	if len(head) < 10 || !bytes.HasPrefix(head, []byte("\x93NUMPY")) {
		if err == nil || errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("not a .npy file (no NUMPY magic at its start); save it with numpy.save")
		}
		return 0, fmt.Errorf("reading the header: %w", err)
	}
	var n int
	switch head[6] {
	case 1:
		n = 10 + int(binary.LittleEndian.Uint16(head[8:10]))
	case 2, 3:
		if len(head) < 12 {
			return 0, fmt.Errorf("not a .npy file (its header is cut short); save it with numpy.save")
		}
		n = 12 + int(binary.LittleEndian.Uint32(head[8:12]))
	default:
		return 0, fmt.Errorf("not a .npy file (format version %d); save it with numpy.save", head[6])
	}
	if n > maxNPYHeader {
		return 0, fmt.Errorf("not a .npy file (its header claims %d bytes); the file is damaged: save it again with numpy.save", n)
	}
	return n, nil
}

// npyHeader parses the header through the .npy library, which is not
// hardened against every malformed header: a panic there is a damaged
// header here.
func npyHeader(br *bufio.Reader) (rd *npy.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			rd, err = nil, fmt.Errorf("not a .npy file (its header cannot be parsed); the file is damaged: save it again with numpy.save")
		}
	}()
	rd, err = npy.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("not a .npy file (%v); save it with numpy.save", err)
	}
	return rd, nil
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

// halfToFloat32 converts an IEEE 754 half-precision value exactly (every
// float16 is a float32): subnormals, infinities and NaN included.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: normalise
		e := int32(-14)
		for man&0x400 == 0 {
			man <<= 1
			e--
		}
		man &= 0x3ff
		return math.Float32frombits(sign | uint32(e+127)<<23 | man<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}
