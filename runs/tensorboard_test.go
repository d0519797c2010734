package runs

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
)

// tbRun makes a run with three recorded iterations and exports it.
func tbRun(t *testing.T) string {
	t.Helper()
	r, err := Create(t.TempDir(), Config{Method: "maple"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var lines []string
	for i := 1; i <= 3; i++ {
		s := core.Snapshot{Iter: i, Total: 3, OuterRisk: 0.5 / float64(i), ValAcc: 0.75, GroupNames: []string{"y=0,a=0", "y=1,a=1"},
			GroupFrac: []float64{0.25, 0.75}, ValGroups: []float64{0.5, -1}, Elapsed: float64(i)}
		b, _ := json.Marshal(s)
		lines = append(lines, string(b))
	}
	os.WriteFile(r.Path(MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	path, err := ExportTensorBoard(r.Dir, t.TempDir(), nil)
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
	if len(events) != 4 || !strings.Contains(string(events[0]), "brain.Event:2") {
		t.Fatalf("%d events; the first %q", len(events), events[0])
	}
	// Event 2 (iteration 2): step 2, outer risk 0.25, no val accuracy
	// of the group without validation samples.
	step, scalars := decodeEvent(t, events[2])
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
					}
				}
				out[tag] = float64(x)
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
pool = descriptor_pool.DescriptorPool(); pool.Add(fd)
desc = pool.FindMessageTypeByName("tensorflow.Event")
Event = message_factory.GetMessageClass(desc) if hasattr(message_factory, "GetMessageClass") else message_factory.MessageFactory(pool).GetPrototype(desc)
b = open(sys.argv[1], "rb").read(); i = 0; out = []
while i < len(b):
    n = struct.unpack("<Q", b[i:i+8])[0]; ev = Event(); ev.ParseFromString(b[i+12:i+12+n]); i += 16 + n
    out.append(ev)
assert out[0].file_version == "brain.Event:2", out[0]
last = {x.tag: x.simple_value for x in out[3].summary.value}
print(len(out), out[3].step, round(last["search/outer_risk"], 4), round(last["weight_fraction/y=0,a=0"], 4), round(out[3].wall_time - out[0].wall_time, 3))
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, tbRun(t)).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "4 3 0.1667 0.25 3.0" {
		t.Errorf("python: %v\n%s", err, out)
	}
}
