package export

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
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
	summaryValue     = 1 // repeated runs.Summary.Value
	valueTag         = 1 // string
	valueSimpleValue = 2 // float
	valueHisto       = 5 // HistogramProto
	valueMetadata    = 9 // SummaryMetadata

	histoMin, histoMax, histoNum, histoSum, histoSumSq = 1, 2, 3, 4, 5 // double
	histoBucketLimit, histoBucket                      = 6, 7          // packed repeated double

	metaPluginData               = 1 // SummaryMetadata.plugin_data
	pluginName, pluginContent    = 1, 2
	hparamsVersion               = 1 // HParamsPluginData (tensorboard/plugins/hparams/plugin_data.proto)
	hparamsExperiment            = 2
	hparamsSessionStart          = 3
	hparamsSessionEnd            = 4
	experimentHParamInfos        = 4 // Experiment (api.proto)
	experimentMetricInfos        = 5
	hparamInfoName               = 1
	metricInfoName               = 1 // MetricName
	metricNameTag                = 2
	sessionStartHParams          = 1 // map<string, google.protobuf.Value>
	sessionStartTime             = 5
	sessionEndStatus             = 1
	sessionEndTime               = 2
	protoValueNumber             = 2 // google.protobuf.Value
	protoValueString             = 3
	statusSuccess, statusRunning = 1, 3
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

// scalarEvent encodes an Event of scalar summaries at step, and any
// other runs.Summary.Values given (histograms).
func scalarEvent(wall float64, step int64, tags []string, values []float64, more ...[]byte) []byte {
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
	for _, v := range more {
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

// TensorBoard writes the run in dir's records as a TensorBoard
// event file into out/tensorboard/ID (out "" is the run directory), one
// step per outer iteration: the outer risk and inner loss, validation and
// test accuracy (test under test/, for display), each group's weight
// fraction and validation accuracy, the keep fraction and the learning
// rates, with --eval-each-iter the evaluation model's figures, and the
// histograms of w, s and u (u also per group); then the hparams plugin's
// records (every setting, and the final figures of a finished run) for
// TensorBoard's HParams view. Point
// tensorboard --logdir at out/tensorboard. A damaged metrics line is
// skipped and reported through warn. It returns the file.
func TensorBoard(dir, out string, warn func(string)) (string, error) {
	snaps, out, err := records(dir, out, warn)
	if err != nil {
		return "", err
	}
	cfg, err := runs.ReadConfig(dir)
	if err != nil {
		return "", err
	}
	logdir := filepath.Join(out, "tensorboard", filepath.Base(dir))
	if err := runs.MakeDir(logdir); err != nil {
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
	sum, err := runs.ReadSummary(dir) // none yet: the session ends "running", without final figures
	if err != nil {
		warn(err.Error() + "; the export has no final figures")
	}
	endWall, endStep := float64(start.UnixNano())/1e9, int64(0)
	if len(snaps) > 0 {
		endWall, endStep = wall(snaps[len(snaps)-1]), int64(snaps[len(snaps)-1].Iter)
	}
	hpFirst, hpLast := hparamsEvents(cfg, sum, float64(start.UnixNano())/1e9, endWall, endStep)
	buf = appendRecord(buf, hpFirst)
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
		buf = appendRecord(buf, scalarEvent(wall(s), int64(s.Iter), tags, vals, histograms(s)...))
	}
	buf = appendRecord(buf, hpLast)
	host, _ := os.Hostname()
	path := filepath.Join(logdir, fmt.Sprintf("events.out.tfevents.%d.%s", start.Unix(), host))
	if err := runs.WriteFile(path, buf); err != nil {
		return "", err
	}
	return path, nil
}

// field appends a length-delimited field.
func field(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func double(b []byte, num protowire.Number, x float64) []byte {
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(x))
}

// histogramValue encodes a runs.Summary.Value holding h as a HistogramProto:
// bucket i counts the values up to bucket_limit[i], the bins' right
// edges.
func histogramValue(tag string, h *core.Histogram) []byte {
	var hp []byte
	n := 0
	for _, c := range h.Counts {
		n += c
	}
	hp = double(hp, histoMin, h.Min)
	hp = double(hp, histoMax, h.Max)
	hp = double(hp, histoNum, float64(n))
	hp = double(hp, histoSum, h.Sum)
	hp = double(hp, histoSumSq, h.SumSq)
	var lim, cnt []byte
	for b, c := range h.Counts {
		lim = protowire.AppendFixed64(lim, math.Float64bits(h.Edges[b+1]))
		cnt = protowire.AppendFixed64(cnt, math.Float64bits(float64(c)))
	}
	hp = field(hp, histoBucketLimit, lim)
	hp = field(hp, histoBucket, cnt)
	var v []byte
	v = protowire.AppendTag(v, valueTag, protowire.BytesType)
	v = protowire.AppendString(v, tag)
	return field(v, valueHisto, hp)
}

// binned is the histogram of the dashboard's per-group bins of u summed
// over groups (name ""), or of one group: its min, max and sums from the
// bins' edges and midpoints, the values themselves not being recorded.
func binned(edges []float64, counts [][]int, group int) *core.Histogram {
	if len(edges) < 2 {
		return nil
	}
	h := &core.Histogram{Edges: edges, Counts: make([]int, len(edges)-1)}
	for g, row := range counts {
		if group >= 0 && g != group {
			continue
		}
		for b, c := range row {
			if b < len(h.Counts) {
				h.Counts[b] += c
			}
		}
	}
	first, last := -1, -1
	for b, c := range h.Counts {
		if c > 0 {
			if first < 0 {
				first = b
			}
			last = b
		}
		mid := (edges[b] + edges[b+1]) / 2
		h.Sum += float64(c) * mid
		h.SumSq += float64(c) * mid * mid
	}
	if first >= 0 {
		h.Min, h.Max = edges[first], edges[last+1]
	}
	return h
}

// histograms are an iteration's runs.Summary.Values of histograms: w, s, and
// u over all samples and per group.
func histograms(s *core.Snapshot) [][]byte {
	var out [][]byte
	if s.WeightHist != nil {
		out = append(out, histogramValue("hist/w", s.WeightHist))
	}
	if s.KeepHist != nil {
		out = append(out, histogramValue("hist/s", s.KeepHist))
	}
	if h := binned(s.HistEdges, s.Hist, -1); h != nil {
		out = append(out, histogramValue("hist/u", h))
		for g, name := range s.GroupNames {
			if g < len(s.Hist) {
				out = append(out, histogramValue("hist/u/"+name, binned(s.HistEdges, s.Hist, g)))
			}
		}
	}
	return out
}

// hparamsValue encodes a runs.Summary.Value carrying the hparams plugin's
// data under tag.
func hparamsValue(tag string, data []byte) []byte {
	var pd []byte
	pd = protowire.AppendTag(pd, pluginName, protowire.BytesType)
	pd = protowire.AppendString(pd, "hparams")
	pd = field(pd, pluginContent, data)
	var v []byte
	v = protowire.AppendTag(v, valueTag, protowire.BytesType)
	v = protowire.AppendString(v, tag)
	return field(v, valueMetadata, field(nil, metaPluginData, pd))
}

// Final figures written as scalars after the last iteration, and named
// as the hparams view's metrics.
var hparamMetrics = []string{"final/test_accuracy", "final/test_worst_group_accuracy", "final/val_worst_group_accuracy"}

// hparamsEvents encodes the hparams plugin's experiment, session start
// (every setting that changes results, by flag, as numbers where they
// read as one) and session end (with the final figures as scalars when
// the run is done), so that TensorBoard's HParams view compares runs.
func hparamsEvents(cfg *runs.Config, sum *runs.Summary, start, end float64, step int64) (first, last []byte) {
	flags := config.Flags(*cfg)
	flags["method"], flags["dataset"], flags["seed"] = cfg.MethodName(), cfg.Dataset.Name, fmt.Sprint(cfg.Settings.Seed)
	var names []string
	for k := range flags {
		names = append(names, k)
	}
	slices.Sort(names)
	var exp, ss []byte
	for _, k := range names {
		exp = field(exp, experimentHParamInfos, field(nil, hparamInfoName, []byte(k)))
		var val []byte
		if x, err := strconv.ParseFloat(flags[k], 64); err == nil && !math.IsInf(x, 0) && !math.IsNaN(x) {
			val = double(val, protoValueNumber, x)
		} else {
			val = protowire.AppendTag(val, protoValueString, protowire.BytesType)
			val = protowire.AppendString(val, flags[k])
		}
		var entry []byte
		entry = protowire.AppendTag(entry, 1, protowire.BytesType)
		entry = protowire.AppendString(entry, k)
		entry = field(entry, 2, val)
		ss = field(ss, sessionStartHParams, entry)
	}
	for _, m := range hparamMetrics {
		var mn []byte
		mn = protowire.AppendTag(mn, metricNameTag, protowire.BytesType)
		mn = protowire.AppendString(mn, m)
		exp = field(exp, experimentMetricInfos, field(nil, metricInfoName, mn))
	}
	ss = double(ss, sessionStartTime, start)
	version := func(b []byte) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, hparamsVersion, protowire.VarintType), 0)
	}
	first = scalarEvent(start, 0, nil, nil,
		hparamsValue("_hparams_/experiment", field(version(nil), hparamsExperiment, exp)),
		hparamsValue("_hparams_/session_start_info", field(version(nil), hparamsSessionStart, ss)))
	status := uint64(statusRunning)
	var tags []string
	var vals []float64
	if sum != nil && sum.Done && sum.Result != nil {
		status = statusSuccess
		tags, vals = hparamMetrics, []float64{sum.Result.TestAcc, sum.Result.TestWorst, sum.Result.ValWorst}
	}
	var se []byte
	se = protowire.AppendTag(se, sessionEndStatus, protowire.VarintType)
	se = protowire.AppendVarint(se, status)
	se = double(se, sessionEndTime, end)
	last = scalarEvent(end, step, tags, vals, hparamsValue("_hparams_/session_end_info", field(version(nil), hparamsSessionEnd, se)))
	return first, last
}
