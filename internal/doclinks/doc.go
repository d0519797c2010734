// Package doclinks finds the broken links of a tree of Markdown pages: a
// relative link whose file does not exist, or whose #anchor names no
// heading (GitHub's slug of it) nor an explicit <a id> or <a name> of
// the page it points at. Links inside fenced code blocks and inline code
// are not links; absolute URLs (a scheme such as https: or mailto:) are
// not followed. Its test runs it over maple's own pages.
package doclinks
