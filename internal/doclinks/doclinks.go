package doclinks

import (
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode"
)

// Broken is one link that does not resolve.
type Broken struct {
	Page   string // the page that holds the link, slash-separated, relative to the tree's root
	Line   int    // its 1-based line
	Target string // the link's target as written
	Reason string // what is missing
}

func (b Broken) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", b.Page, b.Line, b.Target, b.Reason)
}

var (
	// the target of an inline link or image: ](target) or ](target "title")
	linkRE   = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	anchorRE = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	codeRE   = regexp.MustCompile("`+[^`]*`+")
	headRE   = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	// a link inside a heading: its text stays in the slug
	inlineLinkRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// Slug is GitHub's anchor for a heading's text: lower case, every
// character but letters, digits, '-', '_' and spaces dropped, each space
// a '-'. Markdown emphasis with '*' and inline code marks are dropped
// with the rest (emphasis with '_' keeps its underscores here, where
// GitHub drops them; maple's headings use none); a link's text stays,
// its target goes.
func Slug(heading string) string {
	heading = inlineLinkRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// page is what a Markdown file offers and asks: its anchors, and its
// links with their lines.
type page struct {
	anchors map[string]bool
	links   []link
}

type link struct {
	line   int
	target string
}

// parse reads a page: headings give anchors (a repeated one gains -1,
// -2, ... as GitHub numbers them), code is skipped.
func parse(text string) page {
	p := page{anchors: map[string]bool{}}
	seen := map[string]int{}
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		for _, m := range anchorRE.FindAllStringSubmatch(line, -1) {
			p.anchors[m[1]] = true
		}
		if m := headRE.FindStringSubmatch(line); m != nil {
			s := Slug(m[2])
			if n := seen[s]; n > 0 {
				p.anchors[fmt.Sprintf("%s-%d", s, n)] = true
			} else {
				p.anchors[s] = true
			}
			seen[s]++
		}
		for _, m := range linkRE.FindAllStringSubmatch(codeRE.ReplaceAllString(line, ""), -1) {
			p.links = append(p.links, link{line: i + 1, target: m[1]})
		}
	}
	return p
}

// Check reads every .md file of fsys (except under directories named
// testdata or starting with '.') and returns the links that do not
// resolve, in page and line order.
func Check(fsys fs.FS) ([]Broken, error) {
	pages := map[string]page{}
	var names []string
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".md") {
			return nil
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		pages[name] = parse(string(b))
		names = append(names, name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var broken []Broken
	for _, name := range names {
		for _, l := range pages[name].links {
			if reason := resolve(fsys, pages, name, l.target); reason != "" {
				broken = append(broken, Broken{Page: name, Line: l.line, Target: l.target, Reason: reason})
			}
		}
	}
	return broken, nil
}

// resolve says what is missing for target, written in page from, or ""
// when it resolves.
func resolve(fsys fs.FS, pages map[string]page, from, target string) string {
	if schemeRE.MatchString(target) || strings.HasPrefix(target, "//") {
		return ""
	}
	file, anchor, _ := strings.Cut(target, "#")
	if f, err := url.PathUnescape(file); err == nil {
		file = f
	}
	to := from
	if file != "" {
		if strings.HasPrefix(file, "/") {
			return "an absolute path: a link between pages is relative to the page"
		}
		to = path.Clean(path.Join(path.Dir(from), file))
		if strings.HasPrefix(to, "../") || to == ".." {
			return "outside the tree"
		}
		if _, err := fs.Stat(fsys, strings.TrimSuffix(to, "/")); err != nil {
			return "no such file"
		}
	}
	if anchor == "" {
		return ""
	}
	p, ok := pages[to]
	if !ok {
		return "" // an anchor into a file that is not a page (a line of code, say) is not checked
	}
	if !p.anchors[anchor] {
		return fmt.Sprintf("%s has no heading or anchor #%s", to, anchor)
	}
	return ""
}
