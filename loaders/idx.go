package loaders

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// IDX is an IDX file of unsigned bytes (MNIST's format): its dimensions
// and its data in row-major order.
type IDX struct {
	Dims []int
	Data []byte
}

// maxIDX bounds the values an IDX file may declare (1 GiB), so that a
// corrupted header cannot ask for absurd allocations.
const maxIDX = 1 << 30

// ReadIDXFile reads an IDX file, gzip-compressed or raw.
func ReadIDXFile(path string) (*IDX, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	defer f.Close()
	x, err := ReadIDX(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return x, nil
}

// ReadIDX reads an IDX stream, gzip-compressed or raw. Only the unsigned
// byte element type (0x08) is accepted.
func ReadIDX(r io.Reader) (*IDX, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	if head, err := br.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("not a valid gzip stream (%v); delete the file so that it is fetched again", err)
		}
		defer zr.Close()
		return readIDX(zr, true)
	}
	return readIDX(br, false)
}

func readIDX(r io.Reader, gz bool) (*IDX, error) {
	var magic [4]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil {
		return nil, fmt.Errorf("truncated IDX header (%v)", err)
	}
	if magic[0] != 0 || magic[1] != 0 {
		return nil, fmt.Errorf("not an IDX file: magic %x, want 0000 then type and rank", magic)
	}
	if magic[2] != 0x08 {
		return nil, fmt.Errorf("IDX element type 0x%02x, want 0x08 (unsigned byte)", magic[2])
	}
	rank := int(magic[3])
	if rank < 1 || rank > 4 {
		return nil, fmt.Errorf("IDX rank %d, want 1 to 4", rank)
	}
	dims := make([]int, rank)
	size := 1
	for i := range dims {
		var d uint32
		if err := binary.Read(r, binary.BigEndian, &d); err != nil {
			return nil, fmt.Errorf("truncated IDX header (%v)", err)
		}
		dims[i] = int(d)
		if d == 0 || size > maxIDX/int(d) {
			return nil, fmt.Errorf("IDX dimensions %v are empty or larger than 1 GiB", dims[:i+1])
		}
		size *= int(d)
	}
	data := make([]byte, size)
	n, err := io.ReadFull(r, data)
	if err != nil {
		return nil, fmt.Errorf("truncated: %d of the %d bytes its header declares (%v); delete the file so that it is fetched again", n, size, err)
	}
	// Trailing bytes mean the header and the data disagree.
	var extra [1]byte
	if m, _ := r.Read(extra[:]); m > 0 {
		return nil, fmt.Errorf("more data than its header declares (%v); the file is not a valid IDX file", dims)
	}
	if gz {
		// Drain to let gzip verify its checksum.
		if _, err := io.Copy(io.Discard, r); err != nil {
			return nil, fmt.Errorf("corrupted gzip stream (%v); delete the file so that it is fetched again", err)
		}
	}
	return &IDX{Dims: dims, Data: data}, nil
}

// WriteIDX writes an unsigned-byte IDX stream (for tests and fixtures).
func WriteIDX(w io.Writer, dims []int, data []byte) error {
	var b bytes.Buffer
	b.Write([]byte{0, 0, 0x08, byte(len(dims))})
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, uint32(d))
	}
	b.Write(data)
	_, err := w.Write(b.Bytes())
	return err
}
