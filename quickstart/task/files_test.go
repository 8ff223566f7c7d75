package task

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const fileTask = "name: t\ngoal: g\ndocs: {entrypoint: 'https://docs.example.com/'}\nreplay: ['true']\nsuccess:\n  file: FILE\n"

// writeTask writes a task whose success.file is ref into a fresh folder and
// returns the task file's path.
func writeTask(t *testing.T, dir, ref string) string {
	t.Helper()
	p := filepath.Join(dir, "task.yaml")
	if err := os.WriteFile(p, []byte(strings.Replace(fileTask, "FILE", ref, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func problemsOf(t *testing.T, err error) []Problem {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want a *task.Error, got %v", err)
	}
	return e.Problems
}

// A success.file that links out of the task's folder is refused before its
// content is read: nothing of the host file reaches the error, the check or
// anything written from it.
func TestSuccessFileOutsideFolder(t *testing.T) {
	t.Parallel()
	host := filepath.Join(t.TempDir(), "host-secret.txt")
	os.WriteFile(host, []byte("echo HOST-SECRET-7731\n"), 0o644)
	for name, target := range map[string]string{"host file": host, "proc environ": "/proc/self/environ", "parent": "../../outside.sh"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			dir := filepath.Join(base, "task")
			os.MkdirAll(filepath.Join(dir, "checks"), 0o755)
			os.WriteFile(filepath.Join(base, "outside.sh"), []byte("echo HOST-SECRET-7731\n"), 0o644)
			if err := os.Symlink(target, filepath.Join(dir, "checks", "check.sh")); err != nil {
				t.Fatal(err)
			}
			_, err := Load(writeTask(t, dir, "checks/check.sh"), nil)
			if err == nil {
				t.Fatal("a check file linked out of the folder loaded")
			}
			ps := problemsOf(t, err)
			if len(ps) != 1 || ps[0].Field != "success.file" || ps[0].Rule != "success.file.outside" || !strings.Contains(ps[0].Message, "outside the task's folder") {
				t.Errorf("problems %+v", ps)
			}
			if strings.Contains(err.Error(), "HOST-SECRET") || strings.Contains(err.Error(), "PATH=") {
				t.Errorf("the error carries the linked file's content: %v", err)
			}
		})
	}
}

// A plain ../ path leaves the folder as surely as a link does.
func TestSuccessFileParentPath(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "task")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(base, "outside.sh"), []byte("echo HOST-SECRET-7731\n"), 0o644)
	_, err := Load(writeTask(t, dir, "../outside.sh"), nil)
	if err == nil || problemsOf(t, err)[0].Rule != "success.file.outside" {
		t.Errorf("../outside.sh: %v", err)
	}
}

// Links that stay in the folder, relative or absolute, still work; so does
// a plain file in a subfolder.
func TestSuccessFileInsideFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "checks"), 0o755)
	os.WriteFile(filepath.Join(dir, "checks", "real.sh"), []byte("test -f done.txt\n"), 0o644)
	os.Symlink("real.sh", filepath.Join(dir, "checks", "rel.sh"))
	os.Symlink(filepath.Join(dir, "checks", "real.sh"), filepath.Join(dir, "abs.sh"))
	for _, ref := range []string{"checks/real.sh", "checks/rel.sh", "abs.sh"} {
		tk, err := Load(writeTask(t, dir, ref), nil)
		if err != nil {
			t.Errorf("%s: %v", ref, err)
			continue
		}
		if tk.CheckFileText != "test -f done.txt\n" {
			t.Errorf("%s: check text %q", ref, tk.CheckFileText)
		}
	}
}

func TestSuccessFileNotRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "checks"), 0o755)
	_, err := Load(writeTask(t, dir, "checks"), nil)
	if err == nil {
		t.Fatal("a folder loaded as the check")
	}
	if ps := problemsOf(t, err); len(ps) != 1 || ps[0].Rule != "file.not_regular" || ps[0].Field != "success.file" {
		t.Errorf("problems %+v", ps)
	}
}

// A task file over MaxFileBytes is refused with file.too_large, and loading
// it does not read it: memory stays bounded whatever the size.
func TestTaskFileTooLarge(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Replace(fileTask, "FILE", "c.sh", 1) + "# ")
	if err := f.Truncate(100 << 20); err != nil { // sparse: 100 MB on paper
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Load(big, nil)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a 100 MB task file loaded")
	}
	if ps := problemsOf(t, err); len(ps) != 1 || ps[0].Rule != "file.too_large" || !strings.Contains(ps[0].Message, "at most 1048576 bytes") {
		t.Errorf("problems %+v", ps)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("loading a refused file allocated %d bytes", grew)
	}

	// A success.file over the bound is refused the same way; one at the
	// bound loads.
	os.WriteFile(filepath.Join(dir, "c.sh"), []byte(strings.Repeat("#", MaxFileBytes)+"\ntrue\n"), 0o644)
	if _, err := Load(writeTask(t, dir, "c.sh"), nil); err == nil || problemsOf(t, err)[0].Rule != "file.too_large" {
		t.Errorf("big check file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "c.sh"), []byte("true\n"+strings.Repeat("#", MaxFileBytes-5)), 0o644)
	if _, err := Load(writeTask(t, dir, "c.sh"), nil); err != nil {
		t.Errorf("a check file of exactly the bound: %v", err)
	}
	if _, err := Parse("x.yaml", make([]byte, MaxFileBytes+1), nil); err == nil || problemsOf(t, err)[0].Rule != "file.too_large" {
		t.Errorf("Parse over the bound: %v", err)
	}
}
