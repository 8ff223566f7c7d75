package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The case: a typo'd success key is the unknown key it is, and the
// only problem reported (not "nothing to assert").
func TestTypoedSuccessKeyIsNamed(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "t.yaml", strings.Replace(base, "  script:", "  scrpit:", 1))
	_, err := Load(p, nil)
	if err == nil {
		t.Fatal("loaded")
	}
	want := p + ": success.scrpit: unknown key; did you mean 'script'? [rule schema.additionalProperties]"
	if err.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", err, want)
	}
}

func TestConfigUnknownKeySuggests(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tabwright.yaml"), []byte("taks: {}\nrun: {wokers: 2}\n"), 0o644)
	_, err := FindConfig(dir)
	if err == nil || !strings.Contains(err.Error(), "taks (did you mean 'tasks'?)") {
		t.Errorf("got %v", err)
	}
}

func TestNearest(t *testing.T) {
	names := []string{"script", "file", "serve", "wait_http", "expect_output"}
	for key, want := range map[string]string{"scrpit": "script", "srcipt": "script", "fiel": "file", "wait-http": "wait_http", "expect": "", "banana": "", "Script": "script"} {
		if got := nearest(key, names); got != want {
			t.Errorf("nearest(%q) = %q, want %q", key, got, want)
		}
	}
}
