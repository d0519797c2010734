// Package prose measures how dense a Markdown page's prose is: the words
// in each sentence, their median and 90th percentile, the share of
// sentences over 40 words and the longest. It counts what the
// prose-stats tool counts, by the same rules: code blocks, tables,
// headings, HTML comments and link targets are left out; each list item
// is its own text; a sentence ends at . ! ? : or ; followed by a space
// and a capital, a parenthesis or an asterisk; inline code is one word;
// a "sentence" of fewer than three words is not counted. Its test holds
// maple's README and docs/ to the limits a reader finds easy (cobra's
// README: median 10, p90 18, none over 40).
package prose
