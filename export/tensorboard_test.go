package export

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// tbRun makes a run with three recorded iterations and exports it.
func tbRun(t *testing.T) string {
	t.Helper()
	r, err := runs.Open(t.TempDir()).Create(runs.DefaultConfig("synthetic"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var lines []string
	for i := 1; i <= 3; i++ {
		s := core.Snapshot{Iter: i, Total: 3, OuterRisk: 0.5 / float64(i), ValAcc: 0.75, GroupNames: []string{"y=0,a=0", "y=1,a=1"},
			GroupFrac: []float64{0.25, 0.75}, ValGroups: []float64{0.5, -1}, Elapsed: float64(i),
			HistEdges: []float64{0, 1, 2}, Hist: [][]int{{3, 0}, {1, 4}},
			WeightHist: core.NewHistogram([]float64{0.5, 1, 1.5, float64(i)}, 0, 3, 3), KeepHist: core.NewHistogram([]float64{0.1, 0.9}, 0, 1, 2)}
		b, _ := json.Marshal(s)
		lines = append(lines, string(b))
	}
	os.WriteFile(r.Path(runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	path, err := TensorBoard(r.Dir, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTensorBoardRecords reads the event file back: TFRecord frames with
// valid masked CRC-32Cs, a file-version event, then one event per outer
// iteration holding its scalars (issue 25, build item 6).
func TestTensorBoardRecords(t *testing.T) {
	if got := crc32.Checksum([]byte("123456789"), castagnoli); got != 0xe3069283 {
		t.Fatalf("CRC-32C check value %#x, want 0xe3069283", got)
	}
	b, err := os.ReadFile(tbRun(t))
	if err != nil {
		t.Fatal(err)
	}
	var events [][]byte
	for len(b) > 0 {
		if len(b) < 12 {
			t.Fatalf("%d trailing bytes", len(b))
		}
		n := binary.LittleEndian.Uint64(b)
		if binary.LittleEndian.Uint32(b[8:]) != maskedCRC(b[:8]) {
			t.Fatal("bad length CRC")
		}
		data := b[12 : 12+n]
		if binary.LittleEndian.Uint32(b[12+n:]) != maskedCRC(data) {
			t.Fatal("bad data CRC")
		}
		events, b = append(events, data), b[16+n:]
	}
	// The file version, the hparams session's start, 3 iterations, its end.
	if len(events) != 6 || !strings.Contains(string(events[0]), "brain.Event:2") || !strings.Contains(string(events[1]), "_hparams_/session_start_info") ||
		!strings.Contains(string(events[5]), "_hparams_/session_end_info") {
		t.Fatalf("%d events; the first %q", len(events), events[0])
	}
	// Event 3 (iteration 2): step 2, outer risk 0.25, no val accuracy
	// of the group without validation samples.
	step, scalars := decodeEvent(t, events[3])
	if step != 2 || scalars["search/outer_risk"] != 0.25 || scalars["weight_fraction/y=1,a=1"] != 0.75 || scalars["val/accuracy"] != 0.75 {
		t.Errorf("step %d scalars %v", step, scalars)
	}
	if _, ok := scalars["val_group_accuracy/y=1,a=1"]; ok {
		t.Error("a group without validation samples got an accuracy")
	}
}

func decodeEvent(t *testing.T, b []byte) (int64, map[string]float64) {
	t.Helper()
	var step int64
	out := map[string]float64{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		b = b[n:]
		switch {
		case num == eventStep && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			step, b = int64(v), b[n:]
		case num == eventSummary && typ == protowire.BytesType:
			sum, n := protowire.ConsumeBytes(b)
			b = b[n:]
			for len(sum) > 0 {
				_, _, n := protowire.ConsumeTag(sum)
				val, m := protowire.ConsumeBytes(sum[n:])
				sum = sum[n+m:]
				var tag string
				var x float32
				for len(val) > 0 {
					f, ty, k := protowire.ConsumeTag(val)
					val = val[k:]
					if f == valueTag {
						s, k := protowire.ConsumeString(val)
						tag, val = s, val[k:]
					} else if f == valueSimpleValue && ty == protowire.Fixed32Type {
						v, k := protowire.ConsumeFixed32(val)
						x, val = math.Float32frombits(v), val[k:]
					} else { // a histogram, plugin metadata: not a scalar
						k := protowire.ConsumeFieldValue(f, ty, val)
						val, x = val[k:], float32(math.NaN())
					}
				}
				if !math.IsNaN(float64(x)) {
					out[tag] = float64(x)
				}
			}
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			b = b[n:]
		}
	}
	return step, out
}

// TestTensorBoardWithPythonProtobuf decodes the file with Google's Python
// protocol buffers, from a description of tensorflow.Event built at run
// time with the field numbers of event.proto and summary.proto: an
// implementation that is not maple's (skipped where python3-protobuf is
// not installed).
func TestTensorBoardWithPythonProtobuf(t *testing.T) {
	if exec.Command("/usr/bin/python3", "-c", "import google.protobuf").Run() != nil {
		t.Skip("python3-protobuf is not installed")
	}
	script := `
import struct, sys
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
fd = descriptor_pb2.FileDescriptorProto(name="ev.proto", package="tensorflow")
F = descriptor_pb2.FieldDescriptorProto
v = fd.message_type.add(name="Value")
v.field.add(name="tag", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
v.field.add(name="simple_value", number=2, type=F.TYPE_FLOAT, label=F.LABEL_OPTIONAL)
s = fd.message_type.add(name="Summary")
s.field.add(name="value", number=1, type=F.TYPE_MESSAGE, type_name=".tensorflow.Value", label=F.LABEL_REPEATED)
e = fd.message_type.add(name="Event")
e.field.add(name="wall_time", number=1, type=F.TYPE_DOUBLE, label=F.LABEL_OPTIONAL)
e.field.add(name="step", number=2, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
e.field.add(name="file_version", number=3, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
e.field.add(name="summary", number=5, type=F.TYPE_MESSAGE, type_name=".tensorflow.Summary", label=F.LABEL_OPTIONAL)
h = fd.message_type.add(name="HistogramProto")
for i, n in enumerate(["min", "max", "num", "sum", "sum_squares"]):
    h.field.add(name=n, number=i+1, type=F.TYPE_DOUBLE, label=F.LABEL_OPTIONAL)
h.field.add(name="bucket_limit", number=6, type=F.TYPE_DOUBLE, label=F.LABEL_REPEATED)
h.field.add(name="bucket", number=7, type=F.TYPE_DOUBLE, label=F.LABEL_REPEATED)
v.field.add(name="histo", number=5, type=F.TYPE_MESSAGE, type_name=".tensorflow.HistogramProto", label=F.LABEL_OPTIONAL)
pd = fd.message_type.add(name="PluginData")
pd.field.add(name="plugin_name", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
pd.field.add(name="content", number=2, type=F.TYPE_BYTES, label=F.LABEL_OPTIONAL)
md = fd.message_type.add(name="SummaryMetadata")
md.field.add(name="plugin_data", number=1, type=F.TYPE_MESSAGE, type_name=".tensorflow.PluginData", label=F.LABEL_OPTIONAL)
v.field.add(name="metadata", number=9, type=F.TYPE_MESSAGE, type_name=".tensorflow.SummaryMetadata", label=F.LABEL_OPTIONAL)
pool = descriptor_pool.DescriptorPool(); pool.Add(fd)
# tensorboard/plugins/hparams: api.proto and plugin_data.proto, the fields written
hf = descriptor_pb2.FileDescriptorProto(name="hp.proto", package="tensorboard.hparams")
pv = hf.message_type.add(name="Value")  # google.protobuf.Value's number and string kinds
pv.field.add(name="number_value", number=2, type=F.TYPE_DOUBLE, label=F.LABEL_OPTIONAL)
pv.field.add(name="string_value", number=3, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
hi = hf.message_type.add(name="HParamInfo"); hi.field.add(name="name", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
mn = hf.message_type.add(name="MetricName"); mn.field.add(name="group", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
mn.field.add(name="tag", number=2, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
mi = hf.message_type.add(name="MetricInfo"); mi.field.add(name="name", number=1, type=F.TYPE_MESSAGE, type_name=".tensorboard.hparams.MetricName", label=F.LABEL_OPTIONAL)
ex = hf.message_type.add(name="Experiment")
ex.field.add(name="hparam_infos", number=4, type=F.TYPE_MESSAGE, type_name=".tensorboard.hparams.HParamInfo", label=F.LABEL_REPEATED)
ex.field.add(name="metric_infos", number=5, type=F.TYPE_MESSAGE, type_name=".tensorboard.hparams.MetricInfo", label=F.LABEL_REPEATED)
ssi = hf.message_type.add(name="SessionStartInfo")
ent = ssi.nested_type.add(name="HparamsEntry"); ent.options.map_entry = True
ent.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
ent.field.add(name="value", number=2, type=F.TYPE_MESSAGE, type_name=".tensorboard.hparams.Value", label=F.LABEL_OPTIONAL)
ssi.field.add(name="hparams", number=1, type=F.TYPE_MESSAGE, type_name=".tensorboard.hparams.SessionStartInfo.HparamsEntry", label=F.LABEL_REPEATED)
ssi.field.add(name="start_time_secs", number=5, type=F.TYPE_DOUBLE, label=F.LABEL_OPTIONAL)
sei = hf.message_type.add(name="SessionEndInfo")
sei.field.add(name="status", number=1, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
sei.field.add(name="end_time_secs", number=2, type=F.TYPE_DOUBLE, label=F.LABEL_OPTIONAL)
hd = hf.message_type.add(name="HParamsPluginData")
hd.field.add(name="version", number=1, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
hd.field.add(name="experiment", number=2, type=F.TYPE_MESSAGE, type_name=".tensorboard.hparams.Experiment", label=F.LABEL_OPTIONAL)
hd.field.add(name="session_start_info", number=3, type=F.TYPE_MESSAGE, type_name=".tensorboard.hparams.SessionStartInfo", label=F.LABEL_OPTIONAL)
hd.field.add(name="session_end_info", number=4, type=F.TYPE_MESSAGE, type_name=".tensorboard.hparams.SessionEndInfo", label=F.LABEL_OPTIONAL)
pool.Add(hf)
desc = pool.FindMessageTypeByName("tensorflow.Event")
Event = message_factory.GetMessageClass(desc) if hasattr(message_factory, "GetMessageClass") else message_factory.MessageFactory(pool).GetPrototype(desc)
b = open(sys.argv[1], "rb").read(); i = 0; out = []
while i < len(b):
    n = struct.unpack("<Q", b[i:i+8])[0]; ev = Event(); ev.ParseFromString(b[i+12:i+12+n]); i += 16 + n
    out.append(ev)
assert out[0].file_version == "brain.Event:2", out[0]
last = {x.tag: x.simple_value for x in out[4].summary.value}
hist = {x.tag: x.histo for x in out[4].summary.value if x.HasField("histo")}
w, u, u1 = hist["hist/w"], hist["hist/u"], hist["hist/u/y=1,a=1"]
assert list(w.bucket_limit) == [1, 2, 3] and list(w.bucket) == [1, 2, 1] and w.num == 4 and w.max == 3 and w.sum == 6, w
assert list(u.bucket) == [4, 4] and u.min == 0 and u.max == 2 and list(u1.bucket) == [1, 4], (u, u1)
assert list(hist["hist/s"].bucket) == [1, 1]
HP = pool.FindMessageTypeByName("tensorboard.hparams.HParamsPluginData")
HPData = message_factory.GetMessageClass(HP) if hasattr(message_factory, "GetMessageClass") else message_factory.MessageFactory(pool).GetPrototype(HP)
start = [x for x in out[1].summary.value]
assert [x.tag for x in start] == ["_hparams_/experiment", "_hparams_/session_start_info"], start
assert all(x.metadata.plugin_data.plugin_name == "hparams" for x in start)
exp = HPData(); exp.ParseFromString(start[0].metadata.plugin_data.content)
names = [h.name for h in exp.experiment.hparam_infos]
assert "inner-lr" in names and "method" in names, names
assert [m.name.tag for m in exp.experiment.metric_infos] == ["final/test_accuracy", "final/test_worst_group_accuracy", "final/val_worst_group_accuracy"]
ss = HPData(); ss.ParseFromString(start[1].metadata.plugin_data.content)
hp = ss.session_start_info.hparams
assert hp["inner-lr"].number_value == 0.1 and hp["method"].string_value == "maple/irmv1", hp
end = HPData(); end.ParseFromString(out[5].summary.value[0].metadata.plugin_data.content)
print(len(out), out[4].step, round(last["search/outer_risk"], 4), round(last["weight_fraction/y=0,a=0"], 4), round(out[4].wall_time - out[0].wall_time, 3), end.session_end_info.status)
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, tbRun(t)).CombinedOutput()
	// 6 events, the last iteration's at step 3; the session ended
	// "running" (3): the run has no summary.
	if err != nil || strings.TrimSpace(string(out)) != "6 3 0.1667 0.25 3.0 3" {
		t.Errorf("python: %v\n%s", err, out)
	}
}

// TestHParamsEnd: a finished run's session ends "success" with its final
// figures as the hparams view's metrics; an unfinished one "running",
// without them.
func TestHParamsEnd(t *testing.T) {
	cfg := runs.DefaultConfig("synthetic")
	done := &runs.Summary{Done: true, Result: &train.Result{TestAcc: 0.75, TestWorst: 0.5, ValWorst: 0.625}}
	for _, tc := range []struct {
		name   string
		sum    *runs.Summary
		status string
		want   map[string]float64
	}{
		{"done", done, "\x08\x01", map[string]float64{"final/test_accuracy": 0.75, "final/test_worst_group_accuracy": 0.5, "final/val_worst_group_accuracy": 0.625}},
		{"not done", nil, "\x08\x03", map[string]float64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, last := hparamsEvents(&cfg, tc.sum, 1, 2, 7)
			step, scalars := decodeEvent(t, last)
			if step != 7 || len(scalars) != len(tc.want) {
				t.Fatalf("step %d scalars %v, want step 7 and %v", step, scalars, tc.want)
			}
			for k, v := range tc.want {
				if scalars[k] != v {
					t.Errorf("%s = %v, want %v", k, scalars[k], v)
				}
			}
			if !strings.Contains(string(last), "_hparams_/session_end_info") || !strings.Contains(string(last), tc.status) {
				t.Errorf("no session end with status %q", tc.status)
			}
		})
	}
}
