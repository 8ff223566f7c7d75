package task

import (
	"os"
	"path/filepath"
	"testing"
)

// seeds are task documents to start fuzzing from: the bundled task shapes,
// every case of TestRules, and a few odd ones.
func seeds() [][]byte {
	var out [][]byte
	files, _ := filepath.Glob(filepath.Join(corpus, "*.yaml"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			out = append(out, b)
		}
	}
	for _, c := range ruleCases {
		out = append(out, []byte(c.body))
	}
	for _, s := range []string{
		base,
		`{"name":"j","goal":"g","docs":{"path":["https://a/x"]},"success":{"wait_http":{"path":"/","json":{"a":null}}}}`,
		"name: &a [*a]\n",
		"success: {expect_output: {contains: [1, yes, ~]}}\n",
	} {
		out = append(out, []byte(s))
	}
	return out
}

// FuzzLoadTask: any bytes load to a task or to an *Error; never a panic.
func FuzzLoadTask(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "c.sh"), []byte("true\n"), 0o644)
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := Parse(filepath.Join(dir, "t.yaml"), data, nil)
		if err == nil && (tk == nil || len(tk.Route) == 0 || tk.Name == "") {
			t.Fatalf("loaded without a route or name: %+v", tk)
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("not a task error: %T %v", err, err)
			}
		}
	})
}
