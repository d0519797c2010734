package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/setting"
	"github.com/maple-ood/maple/train"
)

// Group is the heading a setting's flag is listed under in --help.
type Group string

// The --help headings; flags of no group are listed under "Run".
const (
	GroupSearch Group = "Search"
	GroupEval   Group = "Evaluation and baselines"
	GroupData   Group = "Data"
)

// Groups lists the headings in the order --help shows them.
var Groups = []Group{GroupSearch, GroupEval, GroupData}

// Setting is one row of the settings table: a setting of a run, its flag,
// the Config field it sets, and where it shows. cmd's flags and their
// --help groups, Flags (what tables and comparisons name), the browser's
// new-run form and the recipes' "flags given" bookkeeping all read this
// table, so a new setting is one row.
type Setting struct {
	Flag  string
	Group Group
	Help  string
	// HelpFrom, when not nil, writes the help instead of Help, from a
	// registry (loaders, core, baselines, models) when the help is read:
	// after every package's init has registered what it adds (gmodel's
	// family, a dataset or method registered from outside).
	HelpFrom func() string
	// Field returns the Config field the setting lives in: *string, *int,
	// *float64, *bool or *uint64.
	Field func(c *Config) any
	// Default, when not nil, is the flag's default where it differs from
	// the field's value in DefaultConfig (a sentinel the resolution
	// replaces, such as "f32" for precision or "" for eval-model).
	Default any
	// NoFlag: a recorded setting without a flag (its default only).
	NoFlag bool
	// Axis: a sweep's grid sets it (--datasets, --methods); only `maple
	// run` has the flag.
	Axis bool
	// Sweep, when not "", is the flag by which `maple sweep` takes
	// several values of the setting, a cell each (--datasets); SweepSep
	// separates them (a comma when "": --models' values hold commas).
	Sweep, SweepSep string
	// SweepHelp, when not "", names the values in the sweep flag's help
	// ("training sizes"); "" names them by the flag (--datasets:
	// "datasets").
	SweepHelp string
	// MapleOnly: only a maple search reads it (its final training); a
	// baseline's run does not (Applies).
	MapleOnly bool
	// Result: the setting can change a run's results, so Flags (and the
	// tables and comparisons built on it) name it.
	Result bool
	// Key, when not nil, is the setting's value in Flags instead of the
	// field's (a baseline's search settings are blank there).
	Key func(c Config) string
	// Form: the browser's new-run form edits it.
	Form bool
	// Values, when not nil, lists the values the setting takes, from its
	// registry or its package's list, read when asked (completion offers
	// them).
	Values func() []string
	// Resume, when not "", is the help of `maple resume`'s flag of the
	// setting: a run continued may change it (Resumed says how).
	Resume string
}

// HelpText is the setting's help: HelpFrom's when it has one, else Help,
// followed by a maple search's own default where it differs from the
// flag's (core.MapleEvaluation's final training).
func (s Setting) HelpText() string {
	if s.HelpFrom != nil {
		return s.HelpFrom()
	}
	if v, ok := s.mapleDefault(); ok {
		return s.Help + "; a maple search defaults to " + v
	}
	return s.Help
}

// mapleOnly is the condition under which a maple search takes its own
// default of the setting at field, where it has one (SameInit: only
// where the two models match).
func mapleOnly(c *Config, field any) string {
	switch field {
	case any(&c.Eval.SameInit):
		return " where the evaluation model is the search model"
	}
	return ""
}

// alsoSharedHelp is --eval-also-shared's help: the shared evaluation's
// training (train.DefaultEval) and its maple default, which depends on
// the flags of the final training (core.TrainingFields). init sets it as
// the row's HelpFrom: it reads the table.
func alsoSharedHelp() string {
	d := train.DefaultEval()
	var flags []string
	for _, f := range core.TrainingFields {
		flags = append(flags, flagName(f))
	}
	return fmt.Sprintf("also train the final weighted ERM by the shared evaluation (SGD lr %g, momentum %g, weight decay %g, %d steps, checked every %d, from a fresh model) and keep, of the two trainings, the one validation ranks first (a tie keeps the one the other --eval-* flags describe); a maple search defaults to true unless a flag of the final training (%s) is given",
		d.LR, d.Momentum, d.WeightDecay, d.Steps, d.EvalEvery, strings.Join(flags, ", "))
}

func init() {
	for i := range Table {
		if Table[i].Flag == "eval-also-shared" {
			Table[i].HelpFrom = alsoSharedHelp
		}
	}
}

// mapleDefault returns the setting's value in a maple search's default
// evaluation (core.MapleEvaluation on the cmnist defaults) when it is an
// evaluation setting whose value there differs from DefaultConfig's.
func (s Setting) mapleDefault() (string, bool) {
	if s.Group != GroupEval || s.Field == nil || s.NoFlag {
		return "", false
	}
	def := DefaultConfig("cmnist")
	maple := def
	maple.Eval = core.MapleEvaluation(maple.Eval, maple.Settings.Model, nil)
	a, b := fmt.Sprint(reflect.ValueOf(s.Field(&def)).Elem()), fmt.Sprint(reflect.ValueOf(s.Field(&maple)).Elem())
	return b + mapleOnly(&maple, s.Field(&maple)), a != b
}

// Table lists every setting, in the order the new-run form shows
// those it edits (weight-lr and keep0, with the search's other rates,
// after the form's first rows).
var Table = []Setting{
	{Flag: "dataset", Values: func() []string { return loaders.Names() }, Group: GroupData, HelpFrom: func() string { return "dataset: " + strings.Join(loaders.Names(), ", ") }, Axis: true, Result: true, Form: true, Sweep: "datasets",
		Field: func(c *Config) any { return &c.Dataset.Name }, Default: "synthetic"},
	{Flag: "data-dir", Group: GroupData, Help: "data directory (default $MAPLE_DATA_DIR, else the user cache dir + /maple)", Form: true, Resume: "the data directory, when it moved since the run started",
		Field: func(c *Config) any { return &c.Dataset.DataDir }, Default: ""},
	{Flag: "train-size", Group: GroupData, Help: "keep a seeded subset of this many training samples (0 = all; synthetic generates within one sample of it)", Result: true, Form: true, Sweep: "train-sizes", SweepHelp: "training sizes",
		Field: func(c *Config) any { return &c.Dataset.TrainSize }, Default: 0},
	{Flag: "method", Values: func() []string { return baselines.Methods() }, Group: GroupEval, HelpFrom: func() string {
		return strings.Join(baselines.Searchers(), ", ") + " or a baseline: " + methodList(baselines.Trainers())
	}, Axis: true, Result: true, Form: true, Sweep: "methods",
		Field: func(c *Config) any { return &c.Method }, Default: core.MethodMaple},
	{Flag: "objective", Values: func() []string { return core.Objectives() }, Group: GroupSearch, HelpFrom: func() string { return "outer objective: " + strings.Join(core.Objectives(), ", ") }, Result: true, Form: true,
		Field: func(c *Config) any { return &c.Settings.Objective }},
	{Flag: "model", Values: models.Examples, Group: GroupSearch, HelpFrom: func() string {
		return "search model: " + strings.Join(models.Syntax(), ", ") + "; linear unless given on " + strings.Join(linearDatasets(), ", ") +
			" (on embeddings the baselines then train by their embeddings recipes, docs/EMBEDDINGS.md)"
	}, Result: true, Form: true, Sweep: "models", SweepSep: ";", SweepHelp: "models, search and evaluation",
		Field: func(c *Config) any { return &c.Settings.Model }},
	{Flag: "eval-model", Values: models.Examples, Group: GroupEval, Help: "model of the final weighted ERM (default: the search model)", Result: true, Form: true,
		Field: func(c *Config) any { return &c.Eval.Model }, Default: ""},
	{Flag: "seed", Group: GroupSearch, Help: "seed of the data, the search and the evaluation", Form: true, Sweep: "seeds",
		Field: func(c *Config) any { return &c.Settings.Seed }},
	{Flag: "outer-iters", Group: GroupSearch, Help: "outer iterations", Result: true, Form: true,
		Field: func(c *Config) any { return &c.Settings.OuterIters }},
	{Flag: "inner-steps", Group: GroupSearch, Help: "inner SGD steps per outer iteration", Result: true, Form: true,
		Field: func(c *Config) any { return &c.Settings.InnerSteps }},
	{Flag: "keep", Group: GroupSearch, Help: "final keep fraction K/n (1 = no sparsity)", Result: true, Form: true,
		Field: func(c *Config) any { return &c.Settings.Keep }},
	{Flag: "eval-steps", Group: GroupEval, Help: "SGD steps of the final weighted ERM and the baselines", Result: true, Form: true,
		Field: func(c *Config) any { return &c.Eval.Steps }},

	// Data.
	{Flag: "corr", Group: GroupData, HelpFrom: dataHelp("per-env spurious parameters, train0,train1,test; ", "Corr", ""), Result: true,
		Field: func(c *Config) any { return &c.Dataset.Corr }, Default: ""},
	{Flag: "cmnist-envs", Values: func() []string { return loaders.EnvSplits }, Group: GroupData, HelpFrom: dataHelp("", "Envs", ""), Result: true,
		Field: func(c *Config) any { return &c.Dataset.Envs }, Default: "", Key: func(c Config) string { return c.Dataset.EnvSplit() }},
	{Flag: "label-noise", Group: GroupData, HelpFrom: dataHelp("label flip probability (", "LabelNoise", "; else 0)"), Result: true,
		Field: func(c *Config) any { return &c.Dataset.LabelNoise }, Default: -1.0},
	{Flag: "downsample", Group: GroupData, HelpFrom: dataHelp("", "Downsample", ""), Result: true,
		Field: func(c *Config) any { return &c.Dataset.Downsample }, Default: 0},
	{Flag: "offline", Group: GroupData, Help: "never download a missing file",
		Field: func(c *Config) any { return &c.Dataset.Offline }, Default: false},
	{Flag: "dir", Group: GroupData, HelpFrom: dataHelp("", "Dir", ""),
		Field: func(c *Config) any { return &c.Dataset.Dir }, Default: ""},
	{Flag: "image-size", Group: GroupData, HelpFrom: dataHelp("", "ImageSize", ""), Result: true,
		Field: func(c *Config) any { return &c.Dataset.ImageSize }, Default: 64},
	{Flag: "features", Group: GroupData, HelpFrom: dataHelp("", "Features", ""), Result: true,
		Field: func(c *Config) any { return &c.Dataset.Features }, Default: ""},
	{Flag: "csv", Group: GroupData, HelpFrom: dataHelp("", "CSV", ""), Result: true,
		Field: func(c *Config) any { return &c.Dataset.CSV }, Default: ""},
	{Flag: "label-col", Group: GroupData, HelpFrom: columnHelp("label column"), Field: func(c *Config) any { return &c.Dataset.Columns.Label }},
	{Flag: "env-col", Group: GroupData, HelpFrom: columnHelp("environment column (optional in the file)"), Field: func(c *Config) any { return &c.Dataset.Columns.Env }},
	{Flag: "group-col", Group: GroupData, HelpFrom: columnHelp("group column (optional in the file)"), Field: func(c *Config) any { return &c.Dataset.Columns.Group }},
	{Flag: "split-col", Group: GroupData, HelpFrom: columnHelp("split column (train/val/test or 0/1/2)"), Field: func(c *Config) any { return &c.Dataset.Columns.Split }},
	{Flag: "attr-col", Group: GroupData, HelpFrom: columnHelp("spurious attribute column (optional in the file)"), Field: func(c *Config) any { return &c.Dataset.Columns.Attr }},
	{Flag: "id-col", Group: GroupData, HelpFrom: columnHelp("sample id column (optional; default the row number)"), Field: func(c *Config) any { return &c.Dataset.Columns.ID }},
	{Flag: "feature-cols", Group: GroupData, HelpFrom: columnHelp("comma-separated feature columns (default: every column that is not an annotation, nor pandas' unnamed index)"),
		Field: func(c *Config) any { return &c.Dataset.Columns.FeatureCols }, Default: ""},
	{Flag: "val-fraction", Group: GroupData, HelpFrom: dataHelp("", "ValFraction", ""), Result: true,
		Field: func(c *Config) any { return &c.Dataset.ValFraction }},
	{Flag: "dim", Group: GroupData, HelpFrom: dataHelp("", "Dim", ""), Result: true,
		Field: func(c *Config) any { return &c.Dataset.Dim }, Default: 0},

	// Search.
	{Flag: "beta", Group: GroupSearch, Help: "weight of the mean loss added to the outer objective", Result: true,
		Field: func(c *Config) any { return &c.Settings.Beta }},
	{Flag: "cvar-alpha", Group: GroupSearch, Help: "tail fraction of the cvar objective", Result: true,
		Field: func(c *Config) any { return &c.Settings.CVaRAlpha }},
	{Flag: "outer-on", Values: func() []string { return core.OuterOns }, Group: GroupSearch, HelpFrom: func() string { return "split the outer objective is evaluated on: " + orList(core.OuterOns) }, Result: true,
		Field: func(c *Config) any { return &c.Settings.OuterOn }},
	{Flag: "precision", Values: func() []string { return core.Precisions }, Group: GroupSearch, Help: "precision of the inner training's matrix products: f32, or bf16 (float32 accumulation; onednn build on a CPU with avx512_bf16)", Result: true,
		Field: func(c *Config) any { return &c.Settings.Precision }, Default: "f32", Key: func(c Config) string { return precision(c.Settings) }},
	{Flag: "inner-batch", Group: GroupSearch, Help: "inner minibatch size (0 = full batch over the kept samples); each step's loss normalised by its minibatch's weight sum", Result: true,
		Field: func(c *Config) any { return &c.Settings.InnerBatch }},
	{Flag: "inner-lr", Group: GroupSearch, Help: "inner SGD learning rate, in " + setting.Rate.Span(), Result: true, Resume: "new inner SGD learning rate, in " + setting.Rate.Span() + " (default: the one in force)",
		Field: func(c *Config) any { return &c.Settings.InnerLR }},
	{Flag: "momentum", Group: GroupSearch, Help: "inner SGD momentum", Result: true,
		Field: func(c *Config) any { return &c.Settings.Momentum }},
	{Flag: "weight-decay", Group: GroupSearch, Help: "inner SGD weight decay", Result: true,
		Field: func(c *Config) any { return &c.Settings.WeightDecay }},
	{Flag: "inner-init", Values: func() []string { return core.InnerInits }, Group: GroupSearch, HelpFrom: func() string { return "inner initialisation: " + orList(core.InnerInits) }, Result: true,
		Field: func(c *Config) any { return &c.Settings.InnerInit }},
	{Flag: "weight-lr", Group: GroupSearch, Help: "Adam learning rate of the sample weights, in " + setting.RateOrZero.Span() + "; the default 0 freezes them at 1", Result: true, Form: true, Resume: "new Adam learning rate of the sample weights, in " + setting.RateOrZero.Span() + " (default: the one in force; 0 freezes them)",
		Field: func(c *Config) any { return &c.Settings.WeightLR }},
	{Flag: "keep-lr", Group: GroupSearch, Help: "Adam learning rate of the keep probabilities, in " + setting.Rate.Span(), Result: true, Resume: "new Adam learning rate of the keep probabilities, in " + setting.Rate.Span() + " (default: the one in force)",
		Field: func(c *Config) any { return &c.Settings.KeepLR }},
	{Flag: "clip-norm", Group: GroupSearch, NoFlag: true, Result: true, Field: func(c *Config) any { return &c.Settings.ClipNorm }},
	{Flag: "keep0", Group: GroupSearch, Help: "initial keep fraction K0/n, annealed to --keep (given --keep alone, it follows --keep: that subset from the start)", Result: true, Form: true,
		Field: func(c *Config) any { return &c.Settings.Keep0 }},
	{Flag: "anneal-start", Group: GroupSearch, NoFlag: true, Result: true, Field: func(c *Config) any { return &c.Settings.AnnealStart }},
	{Flag: "anneal-end", Group: GroupSearch, NoFlag: true, Result: true, Field: func(c *Config) any { return &c.Settings.AnnealEnd }},
	{Flag: "recipe", Values: func() []string { return core.Recipes }, Group: GroupSearch, Help: "a preset: maple-reference (the MAPLE code's ColoredMNIST recipe: keep scores only, keep 0.3, keep lr 1.5, outer on train, 30 x 100, the code's hypergradient, mask and IRMv1 scale (--detach-sum, --mask-eps 1e-20, --outer-scale 0.5), every iterate evaluated from the search's initial model by SGD lr 1.0 momentum 0.9 for 200 steps, checked at every step; flags given override it)", Result: true,
		Field: func(c *Config) any { return &c.Settings.Recipe }, Default: ""},
	{Flag: "detach-sum", Group: GroupSearch, Help: "hold the inner loss's weight sum constant in the hypergradient, as the MAPLE code does (an approximation; --detach-sum=false for the exact hypergradient)", Result: true,
		Field: func(c *Config) any { return &c.Settings.DetachSum }},
	{Flag: "mask-eps", Group: GroupSearch, Help: "draw keep masks with this eps inside the logarithms of the keep logit, as the MAPLE code does; 0 clamps the keep probability to [1e-6, 1-1e-6]", Result: true,
		Field: func(c *Config) any { return &c.Settings.MaskEps }},
	{Flag: "outer-scale", Group: GroupSearch, Help: "multiply the outer risk and its gradient by this (0 = 1); Adam's steps change only through its eps (default: the objective's own, 0.5 for irmv1 as the MAPLE code's mean over two environments, 1 for the others)", Result: true,
		Field: func(c *Config) any { return &c.Settings.OuterScale }, Default: 0.0},
	{Flag: "init-params", Group: GroupSearch, Help: "a .npy of the search model's initial parameters (flat float32; per layer the in x out weights row by row, then the biases) instead of the seeded initialisation", Result: true,
		Field: func(c *Config) any { return &c.Settings.InitParams }, Default: ""},
	{Flag: "eval-each-iter", Group: GroupSearch, Help: "train the evaluation model on every iterate's weights and record its figures (costly)", Result: true,
		Field: func(c *Config) any { return &c.Settings.EvalEachIter }, Default: false},
	{Flag: "select-iterate", Values: func() []string { return core.SelectIterates }, Group: GroupSearch, Help: "weights of the final ERM: final, or val (the iterate best on validation)", Result: true,
		Field: func(c *Config) any { return &c.Settings.SelectIterate }},

	// Evaluation and baselines.
	{Flag: "eval-same-init", Group: GroupEval, Help: "start the evaluation model from the search model's initial parameters, as the MAPLE code does (the two models must match)", Result: true,
		Field: func(c *Config) any { return &c.Eval.SameInit }, Default: false},
	{Flag: "eval-also-shared", Group: GroupEval, Result: true, MapleOnly: true, // HelpFrom: alsoSharedHelp (init)
		Field: func(c *Config) any { return &c.Eval.AlsoShared }, Default: false},
	{Flag: "eval-momentum", Group: GroupEval, Help: "SGD momentum of the final weighted ERM and the baselines", Result: true,
		Field: func(c *Config) any { return &c.Eval.Momentum }},
	{Flag: "eval-weight-decay", Group: GroupEval, Help: "SGD weight decay of the final weighted ERM and the baselines", Result: true,
		Field: func(c *Config) any { return &c.Eval.WeightDecay }},
	{Flag: "eval-lr", Group: GroupEval, Help: "learning rate of the final weighted ERM and the baselines, in " + setting.Rate.Span(), Result: true,
		Field: func(c *Config) any { return &c.Eval.LR }},
	{Flag: "eval-every", Group: GroupEval, Help: "validation check every N steps of the final weighted ERM", Result: true,
		Field: func(c *Config) any { return &c.Eval.EvalEvery }},
	{Flag: "eval-min-step", Group: GroupEval, Help: "first step whose checkpoint may be selected (0 = a tenth of --eval-steps)", Result: true,
		Field: func(c *Config) any { return &c.Eval.MinStep }},
	{Flag: "penalty", Group: GroupEval, HelpFrom: methodHelp("EvalSettings.Penalty", ""), Result: true,
		Field: func(c *Config) any { return &c.Eval.Penalty }},
	{Flag: "penalty-anneal", Group: GroupEval, HelpFrom: methodHelp("EvalSettings.PenaltyAnneal", ""), Result: true,
		Field: func(c *Config) any { return &c.Eval.PenaltyAnneal }},
	{Flag: "dro-step", Group: GroupEval, NoFlag: true, Result: true, Field: func(c *Config) any { return &c.Eval.DROStep }},
	{Flag: "eval-cvar-alpha", Group: GroupEval, NoFlag: true, Result: true, Field: func(c *Config) any { return &c.Eval.CVaRAlpha }},
	{Flag: "jtt-steps", Group: GroupEval, HelpFrom: methodHelp("EvalSettings.JTTSteps", ""), Result: true,
		Field: func(c *Config) any { return &c.Eval.JTTSteps }},
	{Flag: "jtt-up", Group: GroupEval, HelpFrom: methodHelp("EvalSettings.JTTUp", ""), Result: true,
		Field: func(c *Config) any { return &c.Eval.JTTUp }},
	{Flag: "ref-train-acc", Group: GroupEval, NoFlag: true, Result: true, Field: func(c *Config) any { return &c.Eval.RefTrainAcc }},
	{Flag: "lff-q", Group: GroupEval, HelpFrom: methodHelp("EvalSettings.LfFQ", ""), Result: true,
		Field: func(c *Config) any { return &c.Eval.LfFQ }},
	{Flag: "lff-ema", Group: GroupEval, HelpFrom: methodHelp("EvalSettings.LfFEMA", ""), Result: true,
		Field: func(c *Config) any { return &c.Eval.LfFEMA }},
	{Flag: "mask-keep", Group: GroupEval, HelpFrom: methodHelp("EvalSettings.MaskKeep", "; 0 = the recipe's"), Result: true,
		Field: func(c *Config) any { return &c.Eval.MaskKeep }},
	{Flag: "mask-lr", Group: GroupEval, HelpFrom: func() string {
		return "learning rate in " + setting.RateOrZero.Span() + " (0 = the recipe's); " + baselines.FieldHelp("EvalSettings.MaskLR")
	}, Result: true,
		Field: func(c *Config) any { return &c.Eval.MaskLR }},
	{Flag: "eval-optimizer", Values: func() []string { return train.Optimizers }, Group: GroupEval, HelpFrom: func() string {
		return "optimizer of the final weighted ERM and the baselines: " + orList(train.Optimizers)
	}, Result: true,
		Field: func(c *Config) any { return &c.Eval.Optimizer }},
	{Flag: "l2", Group: GroupEval, Help: "coefficient of the L2 term sum theta² added to the evaluation and baseline loss", Result: true,
		Field: func(c *Config) any { return &c.Eval.L2 }},

	// Run.
	{Flag: "checkpoint-every", Help: "outer iterations between checkpoints", Field: func(c *Config) any { return &c.CheckpointEvery }},
}

// methodList writes method names comma-separated, a variant written
// with the method before it ("sparseirm[-rex]"), so that --method's help
// stays within three lines.
func methodList(names []string) string {
	var out []string
	for i := 0; i < len(names); i++ {
		if i+1 < len(names) && strings.HasPrefix(names[i+1], names[i]+"-") {
			out = append(out, names[i]+"["+strings.TrimPrefix(names[i+1], names[i])+"]")
			i++
			continue
		}
		out = append(out, names[i])
	}
	return strings.Join(out, ", ")
}

// orList writes values as "a, b or c".
func orList(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// dataHelp writes a dataset option's help from the datasets' registry
// (loaders.OptionHelp), between before and after.
func dataHelp(before, option, after string) func() string {
	return func() string { return before + loaders.OptionHelp(option) + after }
}

// columnHelp writes the help of a column of a features table, naming
// the datasets that read the columns (loaders.Reading).
func columnHelp(text string) func() string {
	return func() string { return strings.Join(loaders.Reading("Columns"), ", ") + ": " + text }
}

// methodHelp writes the help of a setting only some methods read from
// the methods' registry (baselines.FieldHelp), followed by after.
func methodHelp(field, after string) func() string {
	return func() string { return baselines.FieldHelp(field) + after }
}

// Lookup returns the row of flag.
func Lookup(flag string) (Setting, bool) {
	for _, s := range Table {
		if s.Flag == flag {
			return s, true
		}
	}
	return Setting{}, false
}

// Get returns the setting's value in c as a flag would be written.
func (s Setting) Get(c *Config) string {
	switch p := s.Field(c).(type) {
	case *string:
		return *p
	case *int:
		return strconv.Itoa(*p)
	case *uint64:
		return strconv.FormatUint(*p, 10)
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *bool:
		return strconv.FormatBool(*p)
	}
	panic(fmt.Sprintf("setting %s: field of type %T", s.Flag, s.Field(c)))
}

// Set parses v, written as the flag takes it, into the setting's field of c.
func (s Setting) Set(c *Config, v string) error {
	switch p := s.Field(c).(type) {
	case *string:
		*p = v
	case *int:
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", v)
		}
		*p = n
	case *uint64:
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a whole number of 0 or more", v)
		}
		*p = n
	case *float64:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", v)
		}
		*p = x
	case *bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		*p = b
	default:
		panic(fmt.Sprintf("setting %s: field of type %T", s.Flag, p))
	}
	return nil
}

// Flags returns every setting of c that can change its results, keyed by
// its command-line flag (the seed and the data's location left out), as
// tables and comparisons name them. A baseline runs no search: its
// search settings are blank.
func Flags(c Config) map[string]string {
	if !c.Searches() {
		c.Settings = core.Settings{}
	}
	out := map[string]string{}
	for _, s := range Table {
		switch {
		case !s.Result:
		case s.Key != nil:
			out[s.Flag] = s.Key(c)
		default:
			out[s.Flag] = s.Get(&c)
		}
	}
	return out
}

// precision is the precision a search's settings record, as Flags names
// it: "f32" for a search that records none (the default).
func precision(s core.Settings) string {
	if s.Precision == "" && s.Model != "" {
		return "f32"
	}
	return s.Precision
}

// linearDatasets lists the datasets whose default model is linear
// (loaders.DefaultModel), for --model's help.
func linearDatasets() []string {
	var out []string
	for _, name := range loaders.Names() {
		if loaders.DefaultModel(name) == "linear" {
			out = append(out, name)
		}
	}
	return out
}
