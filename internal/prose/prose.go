package prose

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

var (
	fence   = regexp.MustCompile("(?s)```.*?```")
	comment = regexp.MustCompile(`(?s)<!--.*?-->`)
	item    = regexp.MustCompile(`^([-*+]|\p{Nd}+\.)[\s\p{Z}]`)
	marker  = regexp.MustCompile(`^([-*+]|\p{Nd}+\.)[\s\p{Z}]+`)
	link    = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	code    = regexp.MustCompile("`[^`]*`")
)

// Sentences returns the prose sentences of a Markdown text, each as its
// words (split at white space). Left out: fenced code (from one ``` to
// the next, wherever they are), HTML comments, lines that start with | or
// # (tables and headings; they also end a paragraph), and sentences of
// fewer than three words. A blank line or a list item's marker (-, *, +
// or "1." and a space) starts a new text; the lines of one text are
// joined. A link counts as its text; inline code counts as one word.
func Sentences(text string) [][]string {
	text = fence.ReplaceAllString(text, "")
	text = comment.ReplaceAllString(text, "")
	var blocks, cur []string
	flush := func() {
		if len(cur) > 0 {
			blocks = append(blocks, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		s := strings.TrimSpace(line)
		if strings.HasPrefix(s, "|") || strings.HasPrefix(s, "#") {
			s = ""
		}
		startsItem := item.MatchString(s)
		if s == "" || startsItem {
			flush()
			if startsItem {
				cur = append(cur, marker.ReplaceAllString(s, ""))
			}
			continue
		}
		cur = append(cur, s)
	}
	flush()
	var out [][]string
	for _, b := range blocks {
		b = link.ReplaceAllString(b, "$1")
		b = code.ReplaceAllString(b, "CODE")
		for _, s := range split(b) {
			if w := strings.Fields(s); len(w) >= 3 {
				out = append(out, w)
			}
		}
	}
	return out
}

// split cuts a text at each run of white space that follows . ! ? : or ;
// and comes before an ASCII capital, "(" or "*".
func split(b string) []string {
	var out []string
	r := []rune(b)
	start := 0
	for i := 1; i < len(r); i++ {
		if !unicode.IsSpace(r[i]) || !strings.ContainsRune(".!?:;", r[i-1]) {
			continue
		}
		j := i
		for j < len(r) && unicode.IsSpace(r[j]) {
			j++
		}
		if j < len(r) && (r[j] >= 'A' && r[j] <= 'Z' || r[j] == '(' || r[j] == '*') {
			out = append(out, string(r[start:i]))
			start = j
		}
		i = j - 1
	}
	return append(out, string(r[start:]))
}

// Stats are the figures of a page's prose.
type Stats struct {
	Sentences int     // sentences counted
	Median    float64 // median words a sentence (the mean of the middle two for an even count)
	P90       int     // 90th percentile: the sorted lengths' element at int(0.9*(n-1))
	Over40    float64 // share of sentences over 40 words, 0 to 1
	Longest   int     // words in the longest sentence
	// LongestStart is the longest sentence's first 12 words (the first
	// of equal longest).
	LongestStart string
}

// Measure returns the figures of a Markdown text's prose; zero Stats
// when it has no sentence.
func Measure(text string) Stats {
	ss := Sentences(text)
	if len(ss) == 0 {
		return Stats{}
	}
	n := make([]int, len(ss))
	over, longest := 0, 0
	for i, s := range ss {
		n[i] = len(s)
		if len(s) > 40 {
			over++
		}
		if len(s) > len(ss[longest]) {
			longest = i
		}
	}
	slices.Sort(n)
	med := float64(n[len(n)/2])
	if len(n)%2 == 0 {
		med = float64(n[len(n)/2-1]+n[len(n)/2]) / 2
	}
	first := ss[longest]
	if len(first) > 12 {
		first = first[:12]
	}
	return Stats{
		Sentences:    len(n),
		Median:       med,
		P90:          n[int(0.9*float64(len(n)-1))],
		Over40:       float64(over) / float64(len(n)),
		Longest:      len(ss[longest]),
		LongestStart: strings.Join(first, " "),
	}
}

// String gives the figures as prose-stats prints them.
func (s Stats) String() string {
	return fmt.Sprintf("%d sentences, median %g words, p90 %d, %.0f%% over 40; longest %d: %q",
		s.Sentences, s.Median, s.P90, 100*s.Over40, s.Longest, s.LongestStart+" ...")
}

// Limits are the most a page may have.
type Limits struct {
	Median float64 // median words a sentence; default 16
	P90    int     // 90th percentile of words a sentence; default 30
	Over40 float64 // share of sentences over 40 words; default 0.03
}

// DefaultLimits are prose-stats' limits.
var DefaultLimits = Limits{Median: 16, P90: 30, Over40: 0.03}

// Dense returns each limit s exceeds, in words a reader can act on; none
// when the page passes.
func (l Limits) Dense(s Stats) []string {
	var why []string
	if s.Median > l.Median {
		why = append(why, fmt.Sprintf("median %g words (at most %g)", s.Median, l.Median))
	}
	if s.P90 > l.P90 {
		why = append(why, fmt.Sprintf("p90 %d words (at most %d)", s.P90, l.P90))
	}
	if s.Over40 > l.Over40 {
		why = append(why, fmt.Sprintf("%.0f%% of sentences over 40 words (at most %.0f%%)", 100*s.Over40, 100*l.Over40))
	}
	return why
}
