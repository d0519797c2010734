package runs

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/maple-ood/maple/record"
)

// checkpoint.bin layout (little-endian):
//
//	"MAPLECKP" | uint32 version (2) | uint32 header length | header JSON
//	  {"iter", "adam_t", "lr", "n", "rng", "theta", "best_iter", "best_score"}
//	| W, S, WM, WV, SM, SV: n float64 each | rng bytes | theta float32s
//	| when best_iter > 0: best W, best S (n float64 each), best mask (n bytes, 0/1)
//	| uint32 CRC-32 (IEEE) of everything before it
//
// Version 1 (no selected iterate) is still read.
const ckptMagic = "MAPLECKP"

type ckptHeader struct {
	Iter      int                  `json:"iter"`
	AdamT     int                  `json:"adam_t"`
	LR        record.LearningRates `json:"lr"`
	N         int                  `json:"n"`
	RNG       int                  `json:"rng"`
	Theta     int                  `json:"theta"`
	BestIter  int                  `json:"best_iter"`
	BestScore float64              `json:"best_score"`
}

// EncodeCheckpoint serialises a search state.
func EncodeCheckpoint(st *record.State) []byte {
	h, _ := json.Marshal(ckptHeader{Iter: st.Iter, AdamT: st.AdamT, LR: st.LR, N: len(st.W), RNG: len(st.RNG), Theta: len(st.Theta),
		BestIter: st.BestIter, BestScore: st.BestScore})
	var b bytes.Buffer
	b.WriteString(ckptMagic)
	binary.Write(&b, binary.LittleEndian, uint32(2))
	binary.Write(&b, binary.LittleEndian, uint32(len(h)))
	b.Write(h)
	for _, v := range [][]float64{st.W, st.S, st.WM, st.WV, st.SM, st.SV} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.Write(st.RNG)
	binary.Write(&b, binary.LittleEndian, st.Theta)
	if st.BestIter > 0 {
		binary.Write(&b, binary.LittleEndian, st.BestW)
		binary.Write(&b, binary.LittleEndian, st.BestS)
		for _, m := range st.BestM {
			b.WriteByte(map[bool]byte{false: 0, true: 1}[m])
		}
	}
	binary.Write(&b, binary.LittleEndian, crc32.ChecksumIEEE(b.Bytes()))
	return b.Bytes()
}

// DecodeCheckpoint parses and verifies a checkpoint.
func DecodeCheckpoint(data []byte) (*record.State, error) {
	if len(data) < len(ckptMagic)+12 || string(data[:len(ckptMagic)]) != ckptMagic {
		return nil, errors.New("not a maple checkpoint (bad magic or too short)")
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errors.New("checksum mismatch: the file is truncated or corrupted")
	}
	r := bytes.NewReader(body[len(ckptMagic):])
	var ver, hl uint32
	binary.Read(r, binary.LittleEndian, &ver)
	binary.Read(r, binary.LittleEndian, &hl)
	if ver != 1 && ver != 2 {
		return nil, fmt.Errorf("checkpoint version %d, this maple reads versions 1 and 2", ver)
	}
	if int64(hl) > int64(r.Len()) {
		return nil, errors.New("header longer than the file")
	}
	hb := make([]byte, hl)
	r.Read(hb)
	var h ckptHeader
	if err := json.Unmarshal(hb, &h); err != nil {
		return nil, fmt.Errorf("bad header: %v", err)
	}
	best := int64(0)
	if h.BestIter > 0 {
		best = 17 * int64(h.N)
	}
	if h.N < 0 || h.RNG < 0 || h.Theta < 0 || h.BestIter < 0 || int64(r.Len()) != 48*int64(h.N)+int64(h.RNG)+4*int64(h.Theta)+best {
		return nil, errors.New("sizes in the header do not match the file")
	}
	st := &record.State{Iter: h.Iter, AdamT: h.AdamT, LR: h.LR, BestIter: h.BestIter, BestScore: h.BestScore}
	for _, p := range []*[]float64{&st.W, &st.S, &st.WM, &st.WV, &st.SM, &st.SV} {
		*p = make([]float64, h.N)
		binary.Read(r, binary.LittleEndian, *p)
	}
	st.RNG = make([]byte, h.RNG)
	r.Read(st.RNG)
	if h.Theta > 0 {
		st.Theta = make([]float32, h.Theta)
		binary.Read(r, binary.LittleEndian, st.Theta)
	}
	if h.BestIter > 0 {
		st.BestW, st.BestS = make([]float64, h.N), make([]float64, h.N)
		binary.Read(r, binary.LittleEndian, st.BestW)
		binary.Read(r, binary.LittleEndian, st.BestS)
		m := make([]byte, h.N)
		r.Read(m)
		st.BestM = make([]bool, h.N)
		for i, v := range m {
			st.BestM[i] = v == 1
		}
	}
	for _, v := range [][]float64{st.W, st.S} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, errors.New("non-finite weight in the checkpoint")
			}
		}
	}
	return st, nil
}

// WriteCheckpoint writes st to checkpoint.bin atomically, keeping the
// previous one as checkpoint.prev.bin.
func (r *Run) WriteCheckpoint(st *record.State) error {
	data := EncodeCheckpoint(st)
	path := r.Path(CheckpointFile)
	return writeAtomic(path, func(f *os.File) error {
		half := len(data) / 2
		if _, err := f.Write(data[:half]); err != nil {
			return err
		}
		crashPoint("checkpoint", st.Iter)
		if _, err := f.Write(data[half:]); err != nil {
			return err
		}
		// Keep the last good checkpoint until the new one is complete.
		if _, err := os.Stat(path); err == nil {
			if err := os.Rename(path, r.Path(PrevCheckpoint)); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadCheckpoint reads the run's checkpoint, falling back to the previous
// one when the newest is damaged. It returns nil, nil when there is none.
// warn receives a message for each damaged file skipped.
func ReadCheckpoint(dir string, warn func(string)) (*record.State, error) {
	var problems []string
	for _, name := range []string{CheckpointFile, PrevCheckpoint} {
		p := filepath.Join(dir, name)
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w", err)
		}
		st, err := DecodeCheckpoint(data)
		if err == nil {
			for _, m := range problems {
				warn(m)
			}
			return st, nil
		}
		problems = append(problems, fmt.Sprintf("%s: %v; it is left in place", p, err))
	}
	if len(problems) > 0 {
		var mv []string
		for _, name := range []string{CheckpointFile, PrevCheckpoint} {
			if p := filepath.Join(dir, name); fileExists(p) {
				mv = append(mv, fmt.Sprintf("mv %s %s.damaged", p, p))
			}
		}
		return nil, fmt.Errorf("no usable checkpoint: %s. The run can start again from iteration 1, its records so far set aside in %s: move the damaged checkpoints aside and resume it: %s && maple resume %s --runs-dir %s",
			strings.Join(problems, "; "), DroppedMetrics, strings.Join(mv, " && "), filepath.Base(dir), filepath.Dir(dir))
	}
	return nil, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// crashPoint kills the process with SIGKILL at a named point when the
// environment variable MAPLE_CRASH is "point:iteration" (for the
// kill-and-resume tests only).
func crashPoint(point string, iter int) {
	v := os.Getenv("MAPLE_CRASH")
	if v == "" {
		return
	}
	p, it, ok := strings.Cut(v, ":")
	if n, err := strconv.Atoi(it); ok && err == nil && p == point && n == iter {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
}
