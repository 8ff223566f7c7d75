package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestQSScaffold(t *testing.T) {
	for host, want := range map[string]string{
		"fastapi.tiangolo.com": "fastapi-quickstart",
		"docs.streamlit.io":    "streamlit-quickstart",
		"www.python-httpx.org": "python-httpx-quickstart",
		"docs.pola.rs":         "pola-quickstart",
		"api.example.co.uk":    "example-quickstart", // the reference gave co-quickstart
		"docs.foo.co.uk":       "foo-quickstart",
		"vite.dev":             "vite-quickstart",
		"localhost":            "localhost-quickstart",
		"127.0.0.1":            "docs-quickstart",
		"::1":                  "docs-quickstart",
	} {
		if got := ScaffoldName(host); got != want {
			t.Errorf("%s: %s, want %s", host, got, want)
		}
	}
	if got := strings.Join(ScaffoldAllow("docs.foo.co.uk"), ","); got != "docs.foo.co.uk,foo.co.uk" {
		t.Errorf("allow: %s", got)
	}
	name, text, err := Scaffold("https://fastapi.tiangolo.com/tutorial/first-steps/", "")
	if err != nil || name != "fastapi-quickstart" || !strings.HasPrefix(text, SchemaHint+"\n") {
		t.Fatalf("%s %v\n%s", name, err, text)
	}
	p := filepath.Join(t.TempDir(), "t.yaml")
	os.WriteFile(p, []byte(text), 0o644)
	tk, err := Load(p, nil)
	if err != nil {
		t.Fatalf("the scaffold must validate as written: %v\n%s", err, text)
	}
	if tk.Mode() != "replay+agent" || len(tk.Lints()) != 0 || strings.Join(tk.DocsAllow, ",") != "fastapi.tiangolo.com,tiangolo.com" {
		t.Errorf("mode %s, lints %v, allow %v", tk.Mode(), tk.Lints(), tk.DocsAllow)
	}
	if !strings.Contains(tk.SuccessScript, `qs_fail "TODO`) {
		t.Errorf("an unedited scaffold must fail its check")
	}
	if _, text, _ := Scaffold("https://x.example.com/", "yes"); !strings.Contains(text, `name: "yes"`) {
		t.Errorf("a name YAML reads as a boolean is quoted:\n%s", text)
	}
	if _, _, err := Scaffold("example.com/docs", ""); err == nil || !strings.Contains(err.Error(), "must be an absolute http(s) URL") {
		t.Errorf("%v", err)
	}
}
