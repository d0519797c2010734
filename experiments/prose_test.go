package experiments

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/internal/prose"
)

// TestGeneratedProse: the sentences Page and Headline write themselves
// (the experiment files' about and the anchors' why left out) are short:
// none over 30 words, and the page within prose's limits. Together with
// internal/prose's TestPages on the committed page, this keeps prose
// that only other data would show (a new experiment, a run in progress)
// readable.
func TestGeneratedProse(t *testing.T) {
	docs := filepath.Join("..", "docs")
	all, err := ReadAll(docs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range all {
		f := *all[i].File
		f.About = ""
		f.Choices = append([]Choice(nil), f.Choices...)
		for i := range f.Choices {
			f.Choices[i].About = ""
		}
		f.Anchors = append([]Anchor(nil), f.Anchors...)
		for i := range f.Anchors {
			f.Anchors[i].Why = ""
		}
		all[i].File = &f
	}
	for _, tc := range []struct{ name, text string }{
		{"RESULTS.md", Page(docs, all)},
		{"the README's headline", Headline(all)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range prose.Sentences(tc.text) {
				if len(s) > 30 {
					t.Errorf("a sentence of %d words: %s", len(s), strings.Join(s, " "))
				}
			}
			st := prose.Measure(tc.text)
			if why := prose.DefaultLimits.Dense(st); len(why) > 0 {
				t.Errorf("too dense: %s (%s)", strings.Join(why, "; "), st)
			}
		})
	}
}
