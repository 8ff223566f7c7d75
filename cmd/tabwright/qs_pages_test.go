package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/trace"
)

// Each page exactly as read_docs returned it is kept in the results
// directory under its content hash (one file for one text, whichever URL it
// came from), named by the trace's docs_read event and linked from
// suite.md, each run's report.md and qs report's page.
func TestQSRunKeepsThePagesRead(t *testing.T) {
	t.Parallel()
	const article = "<html><body><article><h1>Docs</h1><p>Write done.txt with echo; this is the whole quickstart, and it is enough.</p></article></body></html>"
	const notes = "# Notes\n\nRun `echo done > done.txt`.\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/docs/notes.md":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, notes)
		default: // /docs/ and /docs/again: the same article
			fmt.Fprint(w, article)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	taskPath := filepath.Join(dir, "pages.yaml")
	os.WriteFile(taskPath, []byte(fmt.Sprintf("name: pages\ngoal: g\ndocs:\n  path: [%[1]s/docs/, %[1]s/docs/again, %[1]s/docs/notes.md]\nreplay: ['echo done > done.txt']\nsuccess:\n  script: test -f done.txt\n", srv.URL)), 0o644)
	out := filepath.Join(t.TempDir(), "res")
	var stdout, stderr bytes.Buffer
	if code := runQS(context.Background(), []string{"run", taskPath, "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("qs run: %d\n%s\n%s", code, stdout.String(), stderr.String())
	}

	// The pages folder: two texts for three reads, each named by its hash.
	entries, err := os.ReadDir(filepath.Join(out, "pages"))
	if err != nil || len(entries) != 2 {
		t.Fatalf("pages/: %v %v", entries, err)
	}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(out, "pages", e.Name()))
		if name := sha256Hex(b) + ".md"; e.Name() != name {
			t.Errorf("%s holds text whose hash names %s", e.Name(), name)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "pages", sha256Hex([]byte(notes))+".md")); string(b) != notes {
		t.Errorf("the Markdown page is not kept as read: %q", b)
	}

	// The trace names each read's file, and the file holds that read's text.
	// The task is named pages: its run files go to _pages, not among the pages.
	reads := docsReadEvents(t, filepath.Join(out, "_pages", "trace.jsonl"))
	if len(reads) != 3 {
		t.Fatalf("docs_read events: %v", reads)
	}
	for _, ev := range reads {
		file, _ := ev["page_file"].(string)
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(file)))
		if err != nil || file != "pages/"+ev["content_hash"].(string)+".md" || sha256Hex(b) != ev["content_hash"] {
			t.Errorf("docs_read of %v names %q: %v", ev["url"], file, err)
		}
	}
	if reads[0]["page_file"] != reads[1]["page_file"] || reads[0]["page_file"] == reads[2]["page_file"] {
		t.Errorf("the same text should be one file, other text another: %v", reads)
	}

	// Every report links each page read to a file that is there.
	var rep bytes.Buffer
	html := filepath.Join(t.TempDir(), "elsewhere", "report.html")
	if code := runQS(context.Background(), []string{"report", out, "--out", html}, &rep, &rep); code != 0 {
		t.Fatalf("qs report: %d %s", code, rep.String())
	}
	for path, pattern := range map[string]*regexp.Regexp{
		filepath.Join(out, "suite.md"):            regexp.MustCompile(`\[as read\]\(([^)]+)\)`),
		filepath.Join(out, "_pages", "report.md"): regexp.MustCompile(`\[as read\]\(([^)]+)\)`),
		html: regexp.MustCompile(`<a href="([^"]+)">as read</a>`),
	} {
		b, _ := os.ReadFile(path)
		links := pattern.FindAllStringSubmatch(string(b), -1)
		if len(links) != 3 {
			t.Errorf("%s: %d page links, want 3:\n%s", path, len(links), b)
		}
		for _, l := range links {
			href := l[1]
			if _, err := os.Stat(filepath.Join(filepath.Dir(path), filepath.FromSlash(href))); err != nil || !strings.Contains(href, "pages/") {
				t.Errorf("%s links %q: %v", path, href, err)
			}
		}
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// docsReadEvents are the docs_read events of a trace.jsonl.
func docsReadEvents(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if trace.TypeOf(ev) == "docs_read" {
			out = append(out, ev)
		}
	}
	return out
}
