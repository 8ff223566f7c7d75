package observe

import (
	"bytes"
	"net/url"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
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
	conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
	domain := ""
	if u.Scheme != "" && u.Host != "" {
		domain = u.Scheme + "://" + u.Host
	}
	md, err := conv.ConvertNode(art.Node, converter.WithDomain(domain))
	if err != nil {
		return r
	}
	r.Found = r.Length > 0
	r.Markdown = strings.TrimSpace(string(md))
	if utf8.RuneCountInString(r.Markdown) > max {
		r.Markdown = clip(r.Markdown, max)
		r.Truncated = true
	}
	return r
}
