package observe

import (
	"strings"
	"testing"
)

func TestReaderQuotesEveryCodeLineAtEveryDepth(t *testing.T) {
	page := `<html><head><title>T</title></head><body><article><h1>Deep</h1>
<p>A paragraph long enough for the reader to take this as the article, with enough words in it to count.</p>
<blockquote><p>outer</p><blockquote><pre><code class="language-sh">one
two

three</code></pre></blockquote></blockquote>
<p>See <a href="#deep">this</a>, <a href="?q=1#x">that</a> and <a href="../up/">up</a>.</p></article></body></html>`
	r := readerOf(page, "https://d.example/a/b/page.html?v=2", "", 10000)
	for _, want := range []string{"> > ```sh\n> > one\n> > two\n> > \n> > three\n> > ```",
		"(https://d.example/a/b/page.html?v=2#deep)", "(https://d.example/a/b/page.html?q=1#x)", "(https://d.example/a/up/)"} {
		if !strings.Contains(r.Markdown, want) {
			t.Errorf("missing %q in\n%s", want, r.Markdown)
		}
	}
}

// FuzzReader: any HTML gives a reader view or none, never a panic, and the
// Markdown stays within its bound.
func FuzzReader(f *testing.F) {
	for _, s := range []string{"<article><h1>x</h1><p>y</p></article>",
		`<main><div class="admonition note"><div class="admonition note"><p class="admonition-title">a</p></div></div><pre lang="go"><code>x</code></pre></main>`,
		`<nav><aside><details><summary>s</summary><blockquote><pre>a
b</pre></blockquote></details></aside></nav><a href="#">¶</a>`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) {
		r := readerOf(page, "https://d.example/p", "", 500)
		if n := len([]rune(r.Markdown)); n > 501 {
			t.Fatalf("markdown of %d runes over its bound", n)
		}
	})
}
