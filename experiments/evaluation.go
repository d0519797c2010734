package experiments

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
)

// trainingFlag reports whether a setting says how the final model (the
// weighted ERM a search's weights train, or a baseline) is trained: the
// evaluation group's eval-* flags and l2, but not eval-same-init, which
// says where it starts (a baseline has no search model to start from).
func trainingFlag(s config.Setting) bool {
	return s.Group == config.GroupEval && (strings.HasPrefix(s.Flag, "eval-") || s.Flag == "l2") && s.Flag != "eval-same-init"
}

// Evaluation is the final-training recipe a summary or runs row resolves
// to: its dataset, method, objective, models and settings given to
// `maple run` as flags, resolved as a run resolves them (a baseline's
// published recipe, maple's reference preset), then the values of the
// flags that say how the final model is trained, "flag value" joined by
// "; ". ok is false when the row does not resolve (a method or flag this
// build does not know).
func Evaluation(r map[string]string) (recipe string, ok bool) {
	cfg := runs.DefaultConfig(r["dataset"])
	cfg.Dataset = loaders.DefaultSpec(r["dataset"])
	fl := pflag.NewFlagSet("row", pflag.ContinueOnError)
	config.Register(fl, &cfg, func(config.Setting) bool { return true })
	set := map[string]bool{}
	give := func(flag, value string) bool {
		set[flag] = true
		return fl.Set(flag, value) == nil
	}
	method, objective := r["method"], r["objective"]
	if name, o, ok := strings.Cut(method, "/"); ok {
		if _, search := baselines.SearcherOf(name); search { // a search's label: maple/rex
			method, objective = name, o
		}
	}
	search := r["search_model"]
	if search == "" {
		search = r["model"]
	}
	ok = give("dataset", r["dataset"]) && give("method", method) && give("model", search) && give("eval-model", r["model"])
	if objective != "" {
		ok = ok && give("objective", objective)
	}
	if r["train_size"] != "" && r["train_size"] != "0" {
		ok = ok && give("train-size", r["train_size"])
	}
	for _, part := range settingParts(r["settings"]) {
		flag, value, _ := strings.Cut(part, " ")
		if flag == "precision" {
			// The search's products only: the final training is float32,
			// and resolving bf16 would depend on this machine's CPU.
			continue
		}
		ok = ok && give(flag, value)
	}
	if !ok {
		return "", false
	}
	cfg, err := config.ResolveSet(cfg, set)
	if err != nil {
		return "", false
	}
	flags := config.Flags(cfg)
	var parts []string
	for _, s := range config.Table {
		if trainingFlag(s) {
			parts = append(parts, s.Flag+" "+flags[s.Flag])
		}
	}
	return strings.Join(parts, "; "), true
}

// The final trainings FinalTraining names.
const (
	TrainingCode   = "MAPLE code's" // SGD lr 1, 200 steps, a check at every step
	TrainingShared = "shared"       // SGD lr 0.1, 500 steps, a check every 10: the baselines' default
	// TrainingChosen is a maple search's default: both of the above, the
	// one validation ranks first kept (--eval-also-shared).
	TrainingChosen = "chosen on validation"
	TrainingOwn    = "own recipe" // a baseline's published recipe
)

// FinalTraining names the recipe a summary or runs row's final model is
// trained by, as a table's column: TrainingCode, TrainingShared,
// TrainingChosen (what a maple search evaluates with by default: the
// MAPLE code's and the shared training, validation choosing per run),
// TrainingOwn (a baseline at its published recipe), "other" (flags that
// give none of them), "?" (a row this build does not resolve).
func FinalTraining(r map[string]string) string {
	rec, ok := Evaluation(r)
	if !ok {
		return "?"
	}
	as := func(method, objective, settings string) string {
		x, _ := Evaluation(map[string]string{"dataset": r["dataset"], "method": method, "objective": objective, "model": r["model"], "search_model": r["model"],
			"train_size": r["train_size"], "settings": settings})
		return x
	}
	switch {
	case rec == as("maple/irmv1", "", ""):
		return TrainingChosen
	case rec == as("maple/irmv1", "", "eval-also-shared false"):
		return TrainingCode
	case rec == as("erm", "", ""):
		return TrainingShared
	case baselines.HasRecipe(r["method"]) && rec == as(r["method"], r["objective"], ""):
		return TrainingOwn
	}
	return "other"
}

// searched tells whether a results row is a search's: its method, or the
// label a configuration gives it (maple-code), starts with the name of a
// method that searches (baselines.Searchers: maple).
func searched(row map[string]string) bool {
	for _, s := range baselines.Searchers() {
		if strings.HasPrefix(row["method"], s) {
			return true
		}
	}
	return false
}
