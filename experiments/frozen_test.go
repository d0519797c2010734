package experiments

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

var updateFrozen = flag.Bool("update-frozen", false, "rewrite testdata/frozen.txt, the digests of the pages' pending sections, from the pages as they stand")

// frozenFile holds a digest of each pending section of quotedPages: a
// line "PAGE<TAB>SECTION<TAB>SHA-256 of its text".
const frozenFile = "testdata/frozen.txt"

// pendingText returns the lines of text that the pending section p
// covers (guarded's blanking of p alone), joined.
func pendingText(text, p string) string {
	lines := strings.Split(text, "\n")
	blank := strings.Split(guarded(text, []string{p}), "\n")
	var b strings.Builder
	for i, l := range lines {
		if blank[i] != l {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

func frozenDigests(t *testing.T) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, pg := range quotedPages {
		b, err := os.ReadFile(filepath.Join("..", pg.page))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pg.pending {
			text := pendingText(string(b), p)
			if strings.TrimSpace(text) == "" {
				t.Errorf("%s: pending section %q holds no text", pg.page, p)
			}
			sum := sha256.Sum256([]byte(text))
			got[pg.page+"\t"+p] = hex.EncodeToString(sum[:])
		}
	}
	return got
}

// TestFrozenSections holds the pages' pending sections to the text they
// were recorded with. Their figures rest on measurements that no
// committed file holds (the authors' dump, earlier builds' benchmark
// output, runs not kept), so that no reference can check them. A figure
// there that changes fails here, as a checked figure changes fail
// TestQuotedFiguresReferenced: edit such a section only with its evidence
// committed (then give its figures references and drop it from pending),
// or rewrite the digests on purpose with -update-frozen.
func TestFrozenSections(t *testing.T) {
	got := frozenDigests(t)
	if *updateFrozen {
		keys := make([]string, 0, len(got))
		for k := range got {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("# The digests of the pending sections of the hand-written pages (TestFrozenSections).\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "%s\t%s\n", k, got[k])
		}
		if err := os.WriteFile(frozenFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(frozenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || l == "" {
			continue
		}
		i := strings.LastIndex(l, "\t")
		want[l[:i]] = l[i+1:]
	}
	for k, sum := range got {
		page, sect, _ := strings.Cut(k, "\t")
		switch w, ok := want[k]; {
		case !ok:
			t.Errorf("%s: pending section %q has no recorded digest: its figures would go unchecked; give them references, or record it with -update-frozen", page, sect)
		case w != sum:
			t.Errorf("%s: pending section %q changed. Its figures rest on measurements no committed file holds, so its text stays as recorded: commit the evidence and give the figures references, or rewrite the digest on purpose (go test ./experiments -run TestFrozenSections -update-frozen)", page, sect)
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			page, sect, _ := strings.Cut(k, "\t")
			t.Errorf("%s: %q is recorded as frozen but is no pending section now: drop its line (-update-frozen)", page, sect)
		}
	}
}

// TestFrozenSectionsMutated changes the first digit of each pending
// section in its page, in memory, and expects that section's digest to
// change: the digest covers the section's figures.
func TestFrozenSectionsMutated(t *testing.T) {
	for _, pg := range quotedPages {
		b, err := os.ReadFile(filepath.Join("..", pg.page))
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		lines := strings.Split(page, "\n")
		for _, p := range pg.pending {
			blank := strings.Split(guarded(page, []string{p}), "\n")
			mutated := false
			for i, l := range lines {
				j := strings.IndexAny(l, "0123456789")
				if blank[i] == l || j < 0 {
					continue
				}
				edited := slices.Clone(lines)
				edited[i] = l[:j] + string(rune('0'+(l[j]-'0'+1)%10)) + l[j+1:]
				if pendingText(strings.Join(edited, "\n"), p) == pendingText(page, p) {
					t.Errorf("%s:%d: a changed digit in section %q leaves its text", pg.page, i+1, p)
				}
				mutated = true
				break
			}
			if !mutated && p != "" {
				t.Logf("%s: section %q has no digit", pg.page, p)
			}
		}
	}
}
