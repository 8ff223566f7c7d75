package observe

import (
	"bytes"
	"net/url"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/marker"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
)

// maxReaderHTML bounds the rendered HTML the reader parses; a larger
// document is read from its first maxReaderHTML bytes.
const maxReaderHTML = 8 << 20

// readerOf extracts the main content of the rendered HTML of a page (what
// scripts built, not what the server sent) with the readability port, and
// converts it to Markdown with absolute link targets, cut at max characters.
func readerOf(raw, pageURL, lang string, max int) *Reader {
	r := &Reader{Lang: lang}
	if len(raw) > maxReaderHTML {
		raw = raw[:maxReaderHTML]
	}
	u, err := url.Parse(pageURL)
	if err != nil {
		u = &url.URL{}
	}
	doc, err := html.Parse(strings.NewReader(raw))
	if err != nil {
		return r
	}
	heading := prepareDoc(doc)
	parser := readability.NewParser()
	parser.DisableJSONLD = false
	art, err := parser.ParseAndMutate(doc, u)
	if err != nil {
		return r
	}
	r.Title = clip(art.Title(), 200)
	r.Byline = clip(art.Byline(), 200)
	r.SiteName = clip(art.SiteName(), 100)
	r.Excerpt = clip(strings.Join(strings.Fields(art.Excerpt()), " "), 300)
	if l := art.Language(); l != "" {
		r.Lang = l
	}
	if art.Node == nil {
		return r
	}
	var text bytes.Buffer
	if art.RenderText(&text) == nil {
		r.Length = utf8.RuneCount(bytes.TrimSpace(text.Bytes()))
	}
	finishArticle(art.Node, u)
	md, err := markdownOf(art.Node, u)
	if err != nil {
		return r
	}
	r.Found = r.Length > 0
	r.Markdown = withHeading(strings.TrimSpace(md), heading)
	if utf8.RuneCountInString(r.Markdown) > max {
		r.Markdown = clip(r.Markdown, max)
		r.Truncated = true
	}
	return r
}

// markdownOf converts the article. Links are already absolute
// (finishArticle); the domain only covers what that missed.
func markdownOf(n *html.Node, u *url.URL) (string, error) {
	conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
	conv.Register.RendererFor("blockquote", converter.TagTypeBlock, renderBlockquote, converter.PriorityEarly)
	domain := ""
	if u.Scheme != "" && u.Host != "" {
		domain = u.Scheme + "://" + u.Host
	}
	md, err := conv.ConvertNode(n, converter.WithDomain(domain))
	return string(md), err
}

// renderBlockquote quotes every line, code block lines included: the
// converter holds a code block's newlines as a marker until the end, so the
// marker carries the quote prefix too.
func renderBlockquote(ctx converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
	var buf bytes.Buffer
	ctx.RenderChildNodes(ctx, &buf, n)
	content := strings.TrimSpace(buf.String())
	if content == "" {
		return converter.RenderSuccess
	}
	for strings.Contains(content, "\n\n\n") {
		content = strings.ReplaceAll(content, "\n\n\n", "\n\n")
	}
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	nl := string(marker.BytesMarkerCodeBlockNewline)
	content = strings.ReplaceAll(strings.Join(lines, "\n"), nl, nl+"> ")
	w.WriteString("\n\n" + content + "\n\n")
	return converter.RenderSuccess
}
