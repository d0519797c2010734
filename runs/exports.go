package runs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
)

// WriteExports writes weights.npy and keep_prob.npy (float64, one value
// per training sample in training-set order) and weights.csv (index,
// sample id, weight, keep probability, kept, label, env, group) into dir.
func WriteExports(dir string, out *core.Output, train *loaders.Dataset, formats ...string) error {
	if len(formats) == 0 {
		formats = []string{"npy", "csv"}
	}
	for _, f := range formats {
		switch f {
		case "npy":
			for _, x := range []struct {
				name string
				v    []float64
			}{{WeightsNPY, out.W}, {KeepNPY, out.S}} {
				var b bytes.Buffer
				if err := loaders.WriteNPY(&b, x.v); err != nil {
					return err
				}
				if err := writeFileAtomic(dir+"/"+x.name, b.Bytes()); err != nil {
					return err
				}
			}
		case "csv":
			err := writeAtomic(dir+"/"+WeightsCSV, func(f *os.File) error {
				w := bufio.NewWriter(f)
				w.WriteString("index,sample_id,weight,keep_prob,kept,label,env,group\n")
				for i := range out.W {
					kept := 0
					if out.Keep[i] {
						kept = 1
					}
					fmt.Fprintf(w, "%d,%d,%s,%s,%d,%d,%d,%d\n", i, train.ID[i],
						strconv.FormatFloat(out.W[i], 'g', -1, 64), strconv.FormatFloat(out.S[i], 'g', -1, 64),
						kept, train.Y[i], train.Env[i], train.Group[i])
				}
				return w.Flush()
			})
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("runs: export format %q: want csv or npy", f)
		}
	}
	return nil
}
