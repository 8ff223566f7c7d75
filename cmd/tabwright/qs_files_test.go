package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A task whose check file links to a host file, or to the harness's own
// environment, is refused by qs validate and by qs run with the rule and
// the field at fault, and nothing of the linked file is printed.
func TestQSRefusesCheckFileOutsideFolder(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "host.txt")
	os.WriteFile(secret, []byte("echo HOST-SECRET-4410\n"), 0o644)
	for _, target := range []string{secret, "/proc/self/environ"} {
		dir := t.TempDir()
		os.Symlink(target, filepath.Join(dir, "check.sh"))
		tf := filepath.Join(dir, "linked.yaml")
		os.WriteFile(tf, []byte("name: linked\ngoal: g\ndocs: {entrypoint: 'http://127.0.0.1:9/docs/'}\nreplay: ['true']\nsuccess:\n  file: check.sh\n"), 0o644)
		for _, args := range [][]string{{"validate", tf}, {"run", tf, "--backend", "local", "--allow-unenforced", "--out", t.TempDir()}, {"check", tf, "--show"}} {
			var out, errb bytes.Buffer
			code := runQS(context.Background(), args, &out, &errb)
			all := out.String() + errb.String()
			want := "INVALID  " + tf + ": success.file: \"check.sh\" resolves to "
			if code == 0 || !strings.Contains(all, want) || !strings.Contains(all, "[rule success.file.outside]") {
				t.Errorf("%s -> %s: exit %d\n%s", args[0], target, code, all)
			}
			if strings.Contains(all, "HOST-SECRET") || strings.Contains(all, "PATH=") {
				t.Errorf("%s -> %s printed the linked file:\n%s", args[0], target, all)
			}
		}
	}
}
