// Package config is a run's settings as people give them: the settings
// table (Table: every setting's flag, Config field, help, group,
// default, whether it changes results and whether the new-run form edits
// it, the values completion offers, resume's help when a resume may change
// it), from which commands make their flags (Register, RegisterResume),
// Flags names a run's settings for tables and comparisons, maple show
// lists those a run reads (Applies, Value), and a command's given
// settings are written back as arguments (Args: a detached resume's
// child's) or applied to a run resumed (Resumed); the resolution of the flags given into a
// config (Resolve: derived defaults, the recipes, paths made absolute)
// and its checks (Check), whose errors name flags where core and train
// name fields (FlagError); the method settings a run's methods read
// (CheckMethodFlags, DropUnread); and Prepare, every check made before a
// run exists (the flags, the data, the models against the data's shape,
// memory: Memory estimates what a run needs).
//
// Config is run.json, with DefaultConfig and the hashes that key runs
// (Hash, SearchHash): package record's, kept here under its old name;
// the run on disk, run.json among its files, is package runs.
package config
