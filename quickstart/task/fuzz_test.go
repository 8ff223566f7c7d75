package task

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadTask: any bytes load to a task or to an *Error; never a panic.
func FuzzLoadTask(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(corpus, "*.yaml"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(base))
	f.Add([]byte(`{"name":"j","goal":"g","docs":{"path":["https://a/x"]},"success":{"wait_http":{"path":"/","json":{"a":null}}}}`))
	f.Add([]byte("name: &a [*a]\n"))
	f.Add([]byte("success: {expect_output: {contains: [1, yes, ~]}}\n"))
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
