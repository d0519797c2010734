// Package report turns finished runs into results: tables of mean ±
// sample sd over seeds (text, Markdown, CSV) and figures (PNG and SVG
// through gonum/plot). It reads run directories through package runs
// and writes nothing into them. See docs/ARCHITECTURE.md.
package report
