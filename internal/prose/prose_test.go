package prose

import (
	"slices"
	"strings"
	"testing"
)

// words returns a sentence of n words ending in a full stop.
func words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = "word"
	}
	w[0] = "Some"
	return strings.Join(w, " ") + "."
}

func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []int // words in each sentence, in order
	}{
		{"two sentences", "One two three. Four five six seven.", []int{3, 4}},
		{"split only after a stop and before a capital, a parenthesis or emphasis", "It is 0.5 here. so it goes on. (Then a new one. *Bold one here* now. Ends.) Here it is", []int{8, 4, 4, 4}},
		{"colon and semicolon split", "First part here: Second part here; Third part here", []int{3, 3, 3}},
		{"question and exclamation split", "Is it one? Yes it is! Good for you", []int{3, 3, 3}},
		{"fewer than three words left out", "Yes. No. This one counts.", []int{3}},
		{"fenced code left out", "Before the fence here.\n\n```\nThis is code and not prose at all.\n```\n\nAfter the fence here.", []int{4, 4}},
		{"a fence leaves a blank line that ends a paragraph", "Starts a paragraph\n```\ncode\n```\nand ends it.", []int{3, 3}},
		{"comment left out", "A figure 70.0<!--= cm/maple --> is here.", []int{5}},
		{"multi-line comment left out", "Keep this sentence.\n<!-- a\nlong comment. With Words\n-->\nAnd this one.", []int{3, 3}},
		{"table and heading lines left out", "# A heading with words\n\n| a | b c d e |\n|---|---|\nText after it.", []int{3}},
		{"heading or table line ends a paragraph", "one two three\n# Heading words here\nfour five six", []int{3, 3}},
		{"lines of a paragraph join", "one two\nthree four\n\nfive six seven", []int{4, 3}},
		{"each list item is its own text", "- one two three\n- four five six\n  seven eight\n1. nine ten eleven", []int{3, 5, 3}},
		{"a list marker needs a space", "-one two three\n+four five", []int{5}},
		{"link text kept, target left out", "See [the paper page](docs/PAPER.md#a-b-c) now.", []int{5}},
		{"inline code is one word", "Run `maple run --outer-iters 10` now please.", []int{4}},
		{"inline code then a stop splits", "Run `x`. Then stop now.", []int{3}},
		{"indented lines are stripped", "   one two three   \n\t four five six", []int{6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			for _, s := range Sentences(tc.text) {
				got = append(got, len(s))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Sentences(%q) word counts = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

func TestMeasure(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		want Stats
	}{
		{"empty", "", Stats{}},
		{"one sentence", words(5), Stats{Sentences: 1, Median: 5, P90: 5, Longest: 5, LongestStart: "Some word word word word."}},
		{"even count takes the mean of the middle two", words(3) + " " + words(4) + " " + words(10) + " " + words(20),
			Stats{Sentences: 4, Median: 7, P90: 10, Longest: 20, LongestStart: strings.TrimSuffix(words(12), ".")}},
		{"p90 is the element at int(0.9*(n-1))", strings.Repeat(words(3)+" ", 9) + words(50),
			Stats{Sentences: 10, Median: 3, P90: 3, Over40: 0.1, Longest: 50, LongestStart: strings.TrimSuffix(words(12), ".")}},
		{"exactly 40 words is not over", words(40) + " " + words(41),
			Stats{Sentences: 2, Median: 40.5, P90: 40, Over40: 0.5, Longest: 41, LongestStart: strings.TrimSuffix(words(12), ".")}},
		{"the first of equal longest", "Alpha one two. Beta one two.",
			Stats{Sentences: 2, Median: 3, P90: 3, Longest: 3, LongestStart: "Alpha one two."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Measure(tc.text); got != tc.want {
				t.Errorf("Measure = %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestDense(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Stats
		want string // "" when the page passes
	}{
		{"at every limit passes", Stats{Sentences: 100, Median: 16, P90: 30, Over40: 0.03}, ""},
		{"median over", Stats{Sentences: 10, Median: 16.5, P90: 20}, "median 16.5 words (at most 16)"},
		{"p90 over", Stats{Sentences: 10, Median: 10, P90: 31}, "p90 31 words (at most 30)"},
		{"share over 40 too high", Stats{Sentences: 10, Median: 10, P90: 20, Over40: 0.1}, "10% of sentences over 40 words (at most 3%)"},
		{"every reason, in order", Stats{Sentences: 10, Median: 20, P90: 45, Over40: 0.2},
			"median 20 words (at most 16); p90 45 words (at most 30); 20% of sentences over 40 words (at most 3%)"},
		{"no sentences passes", Stats{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(DefaultLimits.Dense(tc.s), "; "); got != tc.want {
				t.Errorf("Dense(%+v) = %q, want %q", tc.s, got, tc.want)
			}
		})
	}
}

func TestStatsString(t *testing.T) {
	s := Stats{Sentences: 118, Median: 14, P90: 40, Over40: 0.1016, Longest: 98, LongestStart: "Test accuracy (%), mean"}
	want := `118 sentences, median 14 words, p90 40, 10% over 40; longest 98: "Test accuracy (%), mean ..."`
	if got := s.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
