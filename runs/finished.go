package runs

// Finished is a run that ended with its result: its directory, run.json
// and summary.json.
type Finished struct {
	ID, Dir string
	Config  *Config
	Summary *Summary // Done, with a Result
}

// ListFinished returns the runs of runsDir that finished with a result
// and whose config keep accepts (every one when keep is nil), in id
// order (oldest first). Runs whose run.json or summary.json cannot be
// read are left out (maple ls and the tables' warnings name them).
func (s Store) ListFinished(keep func(*Config) bool) ([]Finished, error) {
	infos, err := s.List()
	if err != nil {
		return nil, err
	}
	var out []Finished
	for _, in := range infos {
		dir := s.RunDir(in.ID)
		cfg, err := ReadConfig(dir)
		if err != nil || keep != nil && !keep(cfg) {
			continue
		}
		sum, err := ReadSummary(dir)
		if err != nil || sum == nil || !sum.Done || sum.Result == nil {
			continue
		}
		out = append(out, Finished{ID: in.ID, Dir: dir, Config: cfg, Summary: sum})
	}
	return out, nil
}
