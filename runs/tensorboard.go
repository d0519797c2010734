package runs

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/maple-ood/maple/core"
)

// TensorBoard event files are TFRecord files of tensorflow.Event protocol
// buffers (tensorflow/core/util/event.proto, summary.proto): the first
// event names the file version, each later one carries scalar summaries
// at a step. Only the fields written here are encoded, with protowire.
const (
	eventWallTime    = 1 // double
	eventStep        = 2 // int64
	eventFileVersion = 3 // string
	eventSummary     = 5 // Summary
	summaryValue     = 1 // repeated Summary.Value
	valueTag         = 1 // string
	valueSimpleValue = 2 // float
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maskedCRC is TFRecord's masked CRC-32C of b.
func maskedCRC(b []byte) uint32 {
	c := crc32.Checksum(b, castagnoli)
	return ((c >> 15) | (c << 17)) + 0xa282ead8
}

// appendRecord frames data as one TFRecord: its length and the length's
// masked CRC, the data and its masked CRC, little-endian.
func appendRecord(out, data []byte) []byte {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(data)))
	out = append(out, n[:]...)
	out = binary.LittleEndian.AppendUint32(out, maskedCRC(n[:]))
	out = append(out, data...)
	return binary.LittleEndian.AppendUint32(out, maskedCRC(data))
}

// scalarEvent encodes an Event of scalar summaries at step.
func scalarEvent(wall float64, step int64, tags []string, values []float64) []byte {
	var sum []byte
	for i, tag := range tags {
		var v []byte
		v = protowire.AppendTag(v, valueTag, protowire.BytesType)
		v = protowire.AppendString(v, tag)
		v = protowire.AppendTag(v, valueSimpleValue, protowire.Fixed32Type)
		v = protowire.AppendFixed32(v, math.Float32bits(float32(values[i])))
		sum = protowire.AppendTag(sum, summaryValue, protowire.BytesType)
		sum = protowire.AppendBytes(sum, v)
	}
	var e []byte
	e = protowire.AppendTag(e, eventWallTime, protowire.Fixed64Type)
	e = protowire.AppendFixed64(e, math.Float64bits(wall))
	e = protowire.AppendTag(e, eventStep, protowire.VarintType)
	e = protowire.AppendVarint(e, uint64(step))
	e = protowire.AppendTag(e, eventSummary, protowire.BytesType)
	return protowire.AppendBytes(e, sum)
}

// ExportTensorBoard writes the run in dir's records as a TensorBoard
// event file into out/tensorboard/ID (out "" is the run directory), one
// step per outer iteration: the outer risk and inner loss, validation and
// test accuracy (test under test/, for display), each group's weight
// fraction and validation accuracy, the keep fraction and the learning
// rates, and with --eval-each-iter the evaluation model's figures. Point
// tensorboard --logdir at out/tensorboard. A damaged metrics line is
// skipped and reported through warn. It returns the file.
func ExportTensorBoard(dir, out string, warn func(string)) (string, error) {
	snaps, out, err := records(dir, out, warn)
	if err != nil {
		return "", err
	}
	cfg, err := ReadConfig(dir)
	if err != nil {
		return "", err
	}
	logdir := filepath.Join(out, "tensorboard", filepath.Base(dir))
	if err := mkdirAll(logdir); err != nil {
		return "", err
	}
	start := cfg.Started
	if start.IsZero() {
		start = time.Now()
	}
	wall := func(s *core.Snapshot) float64 { return float64(start.UnixNano())/1e9 + s.Elapsed }
	var first []byte
	first = protowire.AppendTag(first, eventWallTime, protowire.Fixed64Type)
	first = protowire.AppendFixed64(first, math.Float64bits(float64(start.UnixNano())/1e9))
	first = protowire.AppendTag(first, eventFileVersion, protowire.BytesType)
	first = protowire.AppendString(first, "brain.Event:2")
	buf := appendRecord(nil, first)
	for _, s := range snaps {
		tags := []string{"search/outer_risk", "search/inner_loss", "val/accuracy", "val/worst_group_accuracy",
			"test/accuracy", "test/worst_group_accuracy", "search/keep_fraction", "lr/weight", "lr/keep", "lr/inner"}
		vals := []float64{s.OuterRisk, s.InnerLoss, s.ValAcc, s.ValWorst, s.TestAcc, s.TestWorst, s.KeepFrac, s.LR.Weight, s.LR.Keep, s.LR.Inner}
		for g, name := range s.GroupNames {
			if g < len(s.GroupFrac) {
				tags, vals = append(tags, "weight_fraction/"+name), append(vals, s.GroupFrac[g])
			}
			if g < len(s.ValGroups) && s.ValGroups[g] >= 0 {
				tags, vals = append(tags, "val_group_accuracy/"+name), append(vals, s.ValGroups[g])
			}
		}
		if e := s.IterEval; e != nil {
			tags = append(tags, "eval/val_worst_group_accuracy", "eval/test_accuracy", "eval/test_worst_group_accuracy")
			vals = append(vals, e.ValWorst, e.TestAcc, e.TestWorst)
		}
		buf = appendRecord(buf, scalarEvent(wall(s), int64(s.Iter), tags, vals))
	}
	host, _ := os.Hostname()
	path := filepath.Join(logdir, fmt.Sprintf("events.out.tfevents.%d.%s", start.Unix(), host))
	if err := writeFileAtomic(path, buf); err != nil {
		return "", err
	}
	return path, nil
}
