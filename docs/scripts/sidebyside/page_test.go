package main

import (
	"bytes"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/SIDE-BY-SIDE.md's generated tables from the archived CSV")

// Markers of SIDE-BY-SIDE.md's generated tables.
const (
	iterStart = "<!-- sidebyside-iterations:start (generated from results/archive/sidebyside-irmv1.csv by go test ./docs/scripts/sidebyside -update; do not edit) -->"
	iterEnd   = "<!-- sidebyside-iterations:end -->"
	seedStart = "<!-- sidebyside-seeds:start (generated from results/archive/sidebyside-irmv1.csv by go test ./docs/scripts/sidebyside -update; do not edit) -->"
	seedEnd   = "<!-- sidebyside-seeds:end -->"
)

// TestPageTables renders SIDE-BY-SIDE.md's two tables (per seed and
// iteration, then per seed) from the archived CSV's first 12 outer
// iterations and fails when the page's differ: its figures are the
// CSV's. -update rewrites them.
func TestPageTables(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "results", "archive", "sidebyside-irmv1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []row
	for _, rec := range recs[1:] {
		r, err := parseRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		if r.Iter <= 12 {
			rows = append(rows, r)
		}
	}
	var it, seeds bytes.Buffer
	markdown(&it, rows)
	table, _, _ := strings.Cut(it.String(), "\n\n") // the per-seed lines after it are the command's
	seedTable(&seeds, rows)
	path := filepath.Join("..", "..", "SIDE-BY-SIDE.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, blk := range []struct{ start, end, body string }{{iterStart, iterEnd, strings.TrimSuffix(table, "\n") + "\n"}, {seedStart, seedEnd, seeds.String()}} {
		i, j := strings.Index(text, blk.start), strings.Index(text, blk.end)
		if i < 0 || j < i {
			t.Fatalf("SIDE-BY-SIDE.md has no %s ... %s", blk.start, blk.end)
		}
		text = text[:i+len(blk.start)] + "\n" + blk.body + text[j:]
	}
	if text == string(b) {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	lines, want := strings.Split(string(b), "\n"), strings.Split(text, "\n")
	for i := range min(len(lines), len(want)) {
		if lines[i] != want[i] {
			t.Errorf("SIDE-BY-SIDE.md:%d differs from what the archived CSV gives (go test ./docs/scripts/sidebyside -update rewrites it):\nhave %s\nwant %s", i+1, lines[i], want[i])
			break
		}
	}
}
