package runs

// A Store is a runs directory: its runs, its sweeps' records and locks,
// its archive and the journals of the operations under way on it. A
// command is handed one (cmd's Factory.Store) and reaches every run
// through it; a run's own files are then read with the functions that
// take the run's directory (ReadConfig, Stat, ...).
type Store struct{ dir string }

// Open returns the store of the runs directory dir (which may not exist
// yet: Create makes it).
func Open(dir string) Store { return Store{dir: dir} }

// Dir is the runs directory.
func (s Store) Dir() string { return s.dir }
