package observe

import (
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The reader view keeps what doc sites mark up in their own ways and the
// readability pass would lose: a code block's language (on the pre, the
// code, or a wrapper, per site generator), admonitions and asides, and the
// article's own heading. prepareDoc runs on the rendered DOM before
// readability; finishArticle on the article readability chose.

// langAttr carries a code block's language through readability, which
// strips classes but keeps data attributes.
const langAttr = "data-tw-lang"

var langNameRe = regexp.MustCompile(`^[A-Za-z0-9_+#.-]{1,32}$`)

// noLanguage are class suffixes that name no language (Sphinx's default
// lexer, "no highlighting").
var noLanguage = map[string]bool{"default": true, "none": true, "source": true, "text-plain": true, "notranslate": true}

// admonitionKinds are the class tokens that name a callout's kind when it
// has no title of its own.
var admonitionKinds = []string{"note", "tip", "info", "hint", "important", "warning", "caution", "attention", "danger", "error", "seealso", "success", "example", "question", "abstract", "bug", "failure", "quote", "todo"}

// prepareDoc rewrites doc in place and returns the article's own heading
// (its first h1, preferring one inside article or main), or "".
func prepareDoc(doc *html.Node) string {
	var pres, callouts, anchors, numbered []*html.Node
	rdWalk(doc, func(n *html.Node) {
		switch {
		case isNavigation(n) || isLineNumbers(n):
			anchors = append(anchors, n)
		case n.DataAtom == atom.Table && rdHasClass(n, "highlighttable"):
			numbered = append(numbered, n)
		case n.DataAtom == atom.Pre:
			pres = append(pres, n)
		case isCallout(n):
			callouts = append(callouts, n)
		case n.DataAtom == atom.A && invisibleLink(n):
			anchors = append(anchors, n)
		}
	})
	for _, a := range anchors {
		if a.Parent != nil {
			a.Parent.RemoveChild(a)
		}
	}
	for _, t := range numbered {
		unwrapHighlightTable(t)
	}
	for _, p := range pres {
		if l := codeLanguage(p); l != "" {
			rdSetAttr(p, langAttr, l)
		}
	}
	// Innermost first, so a callout inside another is rewritten before its
	// parent moves it.
	for i := len(callouts) - 1; i >= 0; i-- {
		toBlockquote(callouts[i])
	}
	return articleHeading(doc)
}

// finishArticle resolves every link of the article against the page URL
// (a bare #fragment becomes the page plus the fragment, not the site root)
// and gives each code block its language as the class the Markdown
// converter reads.
func finishArticle(n *html.Node, page *url.URL) {
	rdWalk(n, func(e *html.Node) {
		switch e.DataAtom {
		case atom.A:
			if href, ok := rdAttr(e, "href"); ok && page != nil && page.Host != "" {
				if ref, err := url.Parse(strings.TrimSpace(href)); err == nil && !strings.HasPrefix(href, "javascript:") {
					rdSetAttr(e, "href", page.ResolveReference(ref).String())
				}
			}
		case atom.Pre:
			if l, ok := rdAttr(e, langAttr); ok {
				rdSetAttr(e, "class", "language-"+l)
			}
		}
	})
}

// codeLanguage finds a pre's language: on the pre or its code (language-X,
// lang-X, lang=, data-lang=), or on a wrapper up to three levels out
// (MkDocs Material and Docusaurus language-X, Sphinx highlight-X, GitHub
// highlight-source-X).
func codeLanguage(pre *html.Node) string {
	nodes := []*html.Node{pre}
	if c := rdFirst(pre, atom.Code); c != nil {
		nodes = append(nodes, c)
	}
	for _, n := range nodes {
		for _, a := range []string{"data-lang", "data-language", "lang"} {
			if v, ok := rdAttr(n, a); ok && langNameRe.MatchString(v) {
				return strings.ToLower(v)
			}
		}
		if l := classLanguage(n); l != "" {
			return l
		}
	}
	up := pre.Parent
	for i := 0; i < 3 && up != nil && up.Type == html.ElementNode; i++ {
		if up.DataAtom == atom.Article || up.DataAtom == atom.Main || up.DataAtom == atom.Body {
			break
		}
		if l := classLanguage(up); l != "" {
			return l
		}
		up = up.Parent
	}
	return ""
}

// classLanguage reads the language from n's class tokens.
func classLanguage(n *html.Node) string {
	cls, _ := rdAttr(n, "class")
	toks := strings.Fields(cls)
	for _, t := range toks {
		var l string
		switch {
		case strings.HasPrefix(t, "language-"):
			l = t[len("language-"):]
		case strings.HasPrefix(t, "lang-"):
			l = t[len("lang-"):]
		case strings.HasPrefix(t, "highlight-source-"):
			l = t[len("highlight-source-"):]
		case strings.HasPrefix(t, "highlight-text-"):
			l, _, _ = strings.Cut(t[len("highlight-text-"):], "-")
		case strings.HasPrefix(t, "highlight-"):
			l = t[len("highlight-"):]
		}
		if l != "" && !noLanguage[l] && langNameRe.MatchString(l) {
			return strings.ToLower(l)
		}
	}
	// pandoc: class="sourceCode python".
	if len(toks) == 2 && toks[0] == "sourceCode" && langNameRe.MatchString(toks[1]) {
		return strings.ToLower(toks[1])
	}
	return ""
}

var navLikeRe = regexp.MustCompile(`(?i)sidebar|toc|nav|menu|breadcrumb|footer|banner|cookie`)

// isCallout reports whether n is a note, aside or admonition that belongs
// to the text: an admonition by its class, or an aside or details element
// inside the article or main content that is not navigation.
func isCallout(n *html.Node) bool {
	if n.Type != html.ElementNode || n.DataAtom == atom.P || n.DataAtom == atom.Span {
		return false
	}
	cls, _ := rdAttr(n, "class")
	role, _ := rdAttr(n, "role")
	candidate := role == "note" || n.DataAtom == atom.Aside || n.DataAtom == atom.Details || calloutClass(cls)
	if !candidate {
		return false
	}
	id, _ := rdAttr(n, "id")
	if navLikeRe.MatchString(cls + " " + id) {
		return false
	}
	if role == "note" || calloutClass(cls) {
		return true
	}
	return insideContent(n)
}

// calloutClass reports a class list naming an admonition.
func calloutClass(cls string) bool {
	for _, c := range strings.Fields(cls) {
		switch strings.ToLower(c) {
		case "admonition", "markdown-alert", "theme-admonition", "callout", "alert":
			return true
		}
	}
	return false
}

func insideContent(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Article || p.DataAtom == atom.Main {
			return true
		}
		if role, _ := rdAttr(p, "role"); role == "main" {
			return true
		}
	}
	return false
}

// toBlockquote replaces a callout with a blockquote whose first line is its
// title in bold ("Note", "Warning", or its own title).
func toBlockquote(n *html.Node) {
	if n.Parent == nil {
		return
	}
	title := calloutTitle(n)
	bq := &html.Node{Type: html.ElementNode, Data: "blockquote", DataAtom: atom.Blockquote}
	if title != "" {
		p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
		strong := &html.Node{Type: html.ElementNode, Data: "strong", DataAtom: atom.Strong}
		strong.AppendChild(&html.Node{Type: html.TextNode, Data: title})
		p.AppendChild(strong)
		bq.AppendChild(p)
	}
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		n.RemoveChild(c)
		bq.AppendChild(c)
		c = next
	}
	n.Parent.InsertBefore(bq, n)
	n.Parent.RemoveChild(n)
}

var titleClassRe = regexp.MustCompile(`(?i)title|heading`)

// calloutTitle removes and returns a callout's own title element (a
// summary, or a child whose class says title or heading), else the kind its
// class names.
func calloutTitle(n *html.Node) string {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		cls, _ := rdAttr(c, "class")
		if c.DataAtom == atom.Summary || titleClassRe.MatchString(cls) {
			t := rdSpace(rdText(c))
			n.RemoveChild(c)
			return rdCapital(t)
		}
	}
	cls, _ := rdAttr(n, "class")
	for _, tok := range strings.Fields(strings.ToLower(cls)) {
		tok = strings.TrimPrefix(strings.TrimPrefix(tok, "theme-admonition-"), "markdown-alert-")
		for _, k := range admonitionKinds {
			if tok == k {
				return rdCapital(k)
			}
		}
	}
	return ""
}

// isNavigation reports site navigation (nav, role=navigation,
// breadcrumbs), which is never the article's text: readability keeps a
// breadcrumb trail or a next-page link that sits inside the article.
func isNavigation(n *html.Node) bool {
	if n.DataAtom == atom.Nav {
		return true
	}
	role, _ := rdAttr(n, "role")
	cls, _ := rdAttr(n, "class")
	return role == "navigation" || strings.Contains(strings.ToLower(cls), "breadcrumb")
}

// isLineNumbers reports a code block's line-number gutter (Pygments'
// linenos, Prism's line-numbers-rows), which would read as code.
func isLineNumbers(n *html.Node) bool {
	return rdHasClass(n, "linenos") || rdHasClass(n, "linenodiv") || rdHasClass(n, "line-numbers-rows")
}

// unwrapHighlightTable replaces Pygments' numbered-lines table (gutter
// cell, code cell) with the code cell's content.
func unwrapHighlightTable(t *html.Node) {
	var code *html.Node
	rdWalk(t, func(n *html.Node) {
		if code == nil && n.DataAtom == atom.Td && rdHasClass(n, "code") {
			code = n
		}
	})
	if code == nil || t.Parent == nil {
		return
	}
	for c := code.FirstChild; c != nil; {
		next := c.NextSibling
		code.RemoveChild(c)
		t.Parent.InsertBefore(c, t)
		c = next
	}
	t.Parent.RemoveChild(t)
}

func rdHasClass(n *html.Node, class string) bool {
	cls, _ := rdAttr(n, "class")
	for _, c := range strings.Fields(cls) {
		if c == class {
			return true
		}
	}
	return false
}

// invisibleLink reports an anchor with no text and no image: a heading's
// permalink icon (¶, #, an SVG), which would read as "[¶](…)".
func invisibleLink(a *html.Node) bool {
	if rdFirst(a, atom.Img) != nil {
		return false
	}
	t := strings.Trim(rdSpace(rdText(a)), "\u200b\ufeff")
	if t == "" {
		return true
	}
	if t == "¶" || t == "#" || t == "§" || t == "🔗" {
		cls, _ := rdAttr(a, "class")
		href, _ := rdAttr(a, "href")
		return strings.HasPrefix(href, "#") || strings.Contains(cls, "headerlink") || strings.Contains(cls, "anchor")
	}
	return false
}

// articleHeading is the text of the first h1 inside article or main
// content, else of the document's first h1.
func articleHeading(doc *html.Node) string {
	var first, inContent *html.Node
	rdWalk(doc, func(n *html.Node) {
		if n.DataAtom != atom.H1 {
			return
		}
		if first == nil {
			first = n
		}
		if inContent == nil && insideContent(n) {
			inContent = n
		}
	})
	if inContent != nil {
		first = inContent
	}
	if first == nil {
		return ""
	}
	return clip(rdSpace(rdText(first)), 200)
}

// withHeading makes the article's own heading its top-level heading:
// readability demotes an h1 to h2, or drops it when it resembles the page
// title, which is then no substitute (it carries the site's name).
func withHeading(md, heading string) string {
	if heading == "" || strings.HasPrefix(md, "# ") {
		return md
	}
	lines := strings.Split(md, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		if strings.TrimSpace(strings.TrimLeft(line, "#")) == heading {
			lines[i] = "# " + heading
			return strings.Join(lines, "\n")
		}
		break // the first heading is another one: the article's was dropped
	}
	return "# " + heading + "\n\n" + md
}

func rdWalk(n *html.Node, f func(*html.Node)) {
	if n.Type == html.ElementNode {
		switch n.DataAtom {
		case atom.Script, atom.Style, atom.Template, atom.Noscript:
			return
		}
		f(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		rdWalk(c, f)
	}
}

func rdFirst(n *html.Node, a atom.Atom) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == a {
			return c
		}
		if d := rdFirst(c, a); d != nil {
			return d
		}
	}
	return nil
}

func rdText(n *html.Node) string {
	var b strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.DataAtom == atom.Script || n.DataAtom == atom.Style {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
	}
	f(n)
	return b.String()
}

func rdAttr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func rdSetAttr(n *html.Node, key, val string) {
	for i, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			n.Attr[i].Val = val
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: val})
}

func rdSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func rdCapital(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}
