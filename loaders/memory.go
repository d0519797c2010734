package loaders

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// Memory is what the machine can give a run now: the kernel's estimate
// of the memory available without swapping, and the room left under the
// memory limit of the process's control group (a container's, a Slurm
// job's), whichever is known.
type Memory struct {
	Available int64 // /proc/meminfo's MemAvailable, in bytes; 0 when unknown
	Limit     int64 // the cgroup's limit, in bytes; 0 when none or unknown
	Used      int64 // the cgroup's usage against Limit, in bytes, less the page cache it can drop
}

// Known tells whether either figure is known; Free is 0 otherwise.
func (m Memory) Known() bool { return m.Available > 0 || m.Limit > 0 }

// Free is the memory a run may take: the smaller of MemAvailable and the
// room under the cgroup's limit (0 when the group is full); 0 when
// neither is known (see Known).
func (m Memory) Free() int64 {
	free := m.Available
	if m.Limit > 0 {
		room := max(m.Limit-m.Used, 0)
		if free == 0 || room < free {
			free = room
		}
	}
	return free
}

// String says where Free comes from, in GiB.
func (m Memory) String() string {
	var parts []string
	if m.Available > 0 {
		parts = append(parts, fmt.Sprintf("%s available (MemAvailable)", gib(m.Available)))
	}
	if m.Limit > 0 {
		parts = append(parts, fmt.Sprintf("%s left under the control group's limit of %s", gib(max(m.Limit-m.Used, 0)), gib(m.Limit)))
	}
	if len(parts) == 0 {
		return "the machine's free memory is unknown"
	}
	return strings.Join(parts, ", ")
}

func gib(b int64) string { return SizeText(b) }

// SizeText writes a size in memory for people: GiB to one decimal, MiB
// below 1 GiB.
func SizeText(b int64) string {
	if b < 1<<30 {
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}

// Where the kernel's files are read from: the tests point them at files
// of their own.
var (
	procRoot = "/proc"
	sysRoot  = "/sys/fs/cgroup"
)

// MachineMemory reads what the machine can give a run now.
func MachineMemory() Memory {
	m := Memory{Available: meminfo("MemAvailable:")}
	m.Limit, m.Used = cgroupLimit()
	return m
}

// meminfo reads one field of /proc/meminfo, in bytes; 0 when unknown.
func meminfo(field string) int64 {
	f, err := os.Open(filepath.Join(procRoot, "meminfo"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// cgroupLimit returns the tightest memory limit of the process's control
// group and its ancestors, with that group's usage: cgroup v2's
// memory.max and memory.current, else v1's memory.limit_in_bytes and
// memory.usage_in_bytes. 0, 0 when there is none (or "max").
func cgroupLimit() (limit, used int64) {
	b, err := os.ReadFile(filepath.Join(procRoot, "self", "cgroup"))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		var base, limitFile, usageFile, cacheKey string
		switch {
		case f[0] == "0" && f[1] == "": // v2
			base, limitFile, usageFile, cacheKey = sysRoot, "memory.max", "memory.current", "inactive_file"
		case strings.Contains(","+f[1]+",", ",memory,"): // v1
			base, limitFile, usageFile, cacheKey = filepath.Join(sysRoot, "memory"), "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"
		default:
			continue
		}
		// The group and each of its ancestors up to the root of the
		// hierarchy; the one with the least room is the limit.
		best := int64(-1)
		for dir := filepath.Join(base, f[2]); ; dir = filepath.Dir(dir) {
			l, ok := readBytes(filepath.Join(dir, limitFile))
			if ok && l > 0 && l < 1<<60 { // v1 writes "no limit" as a huge number
				u, _ := readBytes(filepath.Join(dir, usageFile))
				// Page cache the kernel drops under pressure is not
				// used, as container tools count it (a job that has
				// just read its data would seem full).
				u = max(u-statField(filepath.Join(dir, "memory.stat"), cacheKey), 0)
				if room := l - u; best < 0 || room < best {
					best, limit, used = room, l, u
				}
			}
			if dir == base || len(dir) <= len(base) {
				break
			}
		}
		if limit > 0 {
			return limit, used
		}
	}
	return 0, 0
}

// readBytes reads a cgroup file holding one number; "max" is no limit.
func readBytes(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// NPYShape reads the shape and element type of the .npy at path from its
// header alone.
func NPYShape(path string) (shape []int, descr string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("%w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if _, err := npyHeaderLen(br); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	rd, err := npyHeader(br)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return rd.Header.Descr.Shape, rd.Header.Descr.Type, nil
}

// DataBytes estimates the memory d's data will take once loaded, before
// anything is read, where that can be known: a .npy of features from its
// header (as float32, the matrix maple trains on), a CSV from its size
// (read whole, as text, before its values are parsed). 0 for the
// datasets maple builds or downloads, whose sizes are fixed.
func (d Spec) DataBytes() int64 {
	var n int64
	if d.Features != "" {
		if shape, _, err := NPYShape(d.Features); err == nil {
			elems := int64(1)
			for _, s := range shape {
				elems *= int64(s)
			}
			n += 4 * elems
		}
	}
	if d.CSV != "" {
		if fi, err := os.Stat(d.CSV); err == nil {
			// The text, a string header per field, and the values parsed.
			factor := int64(3)
			if d.Features != "" {
				factor = 2 // annotations only
			}
			n += factor * fi.Size()
		}
	}
	return n
}

// statField reads one field of a cgroup's memory.stat; 0 when absent.
func statField(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// gcSlack is the garbage the collector lets grow beside large data: 32
// MiB, or 2% of the data where that is more. The data's matrices hold no
// pointers, so a collection marks little and costs little however often
// it runs.
func gcSlack(data int64) int64 { return max(32<<20, data/50) }

// bigData is the size of data from which HoldData lowers the collector's
// percent: below it the runtime's default (GOGC 100) stands.
const bigData = 256 << 20

// heldPercent is the collector's percent HoldData set last (0: none).
var heldPercent int

// HoldData sets the garbage collector for a process that holds data of
// the given size, in bytes: the heap may grow by gcSlack before a
// collection, where Go's default lets it double (a 1.2 GB feature matrix
// made runs of 2 GB and more, most of it garbage not yet collected). The
// matrices hold no pointers, so a collection costs little. Below bigData,
// or when the environment sets GOGC, it does nothing; it only ever lowers
// the percent it set.
func HoldData(data int64) {
	if data < bigData || os.Getenv("GOGC") != "" {
		return
	}
	p := max(1, int((100*gcSlack(data)+data-1)/data)) // rounded up
	if heldPercent > 0 && p >= heldPercent {
		return
	}
	heldPercent = p
	debug.SetGCPercent(p)
}
