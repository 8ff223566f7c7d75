package docs

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The doc-site shapes read_docs must read faithfully, as fixture pages of
// our own in each generator's markup: what each page must yield.
var docSites = []struct {
	file, path, heading string
	langs               []string // every fence's language, in order
	quoted              []string // lines of a code block inside a blockquote
	fragment            string   // an in-page link: the page URL plus this
	callouts            []string // quoted callout titles and body lines
}{
	{"mkdocs-material.html", "/mkdocs/getting-started/", "Getting started with Widgetry",
		[]string{"bash", "yaml", "console"}, []string{"> $ widgetry build widget.yaml --out build/", "> $ widgetry serve build/"},
		"#installation", []string{"> **Python 2 is not supported**", "> Widgetry needs Python 3.10", "> **Serving on another port**"}},
	{"docusaurus.html", "/docs/intro", "Install Fastlane Router",
		[]string{"bash", "js", "bash"}, []string{"> PORT=8080 node server.mjs", "> curl localhost:8080"},
		"#create-a-project", []string{"> **Note**", "> The package name on npm is `fastlane-router`"}},
	{"sphinx.html", "/en/latest/quickstart.html", "Quickstart",
		[]string{"console", "python", "python"}, []string{"> for row in parsel_kit.stream(\"big.csv\"):", ">     print(row)"},
		"#install", []string{"> **Note**", "> On Windows use `py -m pip`", "> **Where the sample comes from**"}},
	{"github-readme.html", "/acme/tinyq", "tinyq",
		[]string{"shell", "go", "shell"}, []string{"> go run ./cmd/tinyq watch jobs.db", "> tail -f jobs.log"},
		"#install", []string{"> **Important**", "> tinyq needs Go 1.22 or newer"}},
}

var fenceRe = regexp.MustCompile("(?m)^(?:> )?```(.*)$")

func TestReadDocsFidelityOnDocSites(t *testing.T) {
	pages := map[string][]byte{}
	for _, s := range docSites {
		b, err := os.ReadFile("../../testdata/docsites/" + s.file)
		if err != nil {
			t.Fatal(err)
		}
		pages[s.path] = b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
	}))
	defer srv.Close()
	reader := &Reader{Browser: browser}
	for _, s := range docSites {
		t.Run(s.file, func(t *testing.T) {
			r := reader.Get(context.Background(), srv.URL+s.path, allow)
			if r.Err != "" || r.Blocked != "" {
				t.Fatalf("read failed: %+v", r)
			}
			md := r.Text
			if first, _, _ := strings.Cut(md, "\n"); first != "# "+s.heading {
				t.Errorf("first line %q, want the article's own heading %q\n%s", first, "# "+s.heading, md)
			}
			var opened []string
			for i, m := range fenceRe.FindAllStringSubmatch(md, -1) {
				if i%2 == 0 {
					opened = append(opened, m[1])
				} else if m[1] != "" {
					t.Errorf("fence %d closes with %q", i, m[0])
				}
			}
			if strings.Join(opened, ",") != strings.Join(s.langs, ",") {
				t.Errorf("fence languages %q, want %q\n%s", opened, s.langs, md)
			}
			for _, want := range append(append([]string{}, s.quoted...), s.callouts...) {
				if !containsLine(md, want) {
					t.Errorf("no line starting %q in\n%s", want, md)
				}
			}
			if link := "(" + srv.URL + s.path + s.fragment + ")"; !strings.Contains(md, link) {
				t.Errorf("in-page link not %s in\n%s", link, md)
			}
			if strings.Contains(md, "¶") || strings.Contains(md, "("+srv.URL+s.fragment+")") {
				t.Errorf("permalink marks or a fragment on the site root in\n%s", md)
			}
		})
	}
}

func containsLine(md, prefix string) bool {
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}
