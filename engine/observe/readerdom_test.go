package observe

import (
	"os"
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

// Line-number gutters are not code: Pygments' table layout (MkDocs
// linenums) and its inline spans (Sphinx) leave only the code.
func TestReaderDropsLineNumbers(t *testing.T) {
	page := `<html><body><article><h1>N</h1><p>A paragraph long enough for the reader to take this as the article, with enough words in it to count.</p>
<div class="language-python highlight"><table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre><span></span><span class="normal">1</span>
<span class="normal">2</span></pre></div></td><td class="code"><div><pre><span></span><code>import a
a.b()
</code></pre></div></td></tr></table></div>
<div class="highlight-sh notranslate"><div class="highlight"><pre><span></span><span class="linenos">1</span>make
<span class="linenos">2</span>make install
</pre></div></div></article></body></html>`
	r := readerOf(page, "https://d.example/p", "", 10000)
	for _, want := range []string{"```python\nimport a\na.b()\n```", "```sh\nmake\nmake install\n```"} {
		if !strings.Contains(r.Markdown, want) {
			t.Errorf("missing %q in\n%s", want, r.Markdown)
		}
	}
}

// BenchmarkReaderDocSites: the reader view (readability, the doc-site
// rewrites, Markdown) of each doc-site fixture page.
func BenchmarkReaderDocSites(b *testing.B) {
	for _, f := range []string{"mkdocs-material", "docusaurus", "sphinx", "github-readme"} {
		page, err := os.ReadFile("../../testdata/docsites/" + f + ".html")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(f, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				readerOf(string(page), "https://docs.example/p/", "", 60000)
			}
		})
	}
}
