//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tabwright/tabwright/internal/procwait"
)

// alive reports whether pid still runs (a zombie counts as gone).
func alive(pid int) bool {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(st), ") Z ")
}

// readPID reads the pid a command wrote to path. Only after the writer
// ended: a command writes with mv, so the file is whole or absent.
func readPID(t *testing.T, path string) int {
	t.Helper()
	var pid int
	b, err := os.ReadFile(path)
	if _, serr := fmt.Sscan(string(b), &pid); err != nil || serr != nil || pid <= 0 {
		t.Fatalf("no pid in %s: %v %q", path, err, b)
	}
	return pid
}

func TestQSWorkspaceAndEnvironment(t *testing.T) {
	t.Setenv("QS_SECRET_TOKEN", "leak-me")
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	r := s.Run(context.Background(), `pwd; ls -A | wc -l; echo "HOME=$HOME TMPDIR=$TMPDIR"; env | grep -c QS_SECRET_TOKEN; echo x > kept.txt; echo err >&2`, Options{})
	lines := strings.Split(strings.TrimSpace(r.Output), "\n")
	if r.ExitCode != 0 || len(lines) != 5 {
		t.Fatalf("exit %d: %q", r.ExitCode, r.Output)
	}
	if lines[0] != s.Workspace || strings.TrimSpace(lines[1]) != "0" {
		t.Errorf("cwd %q, entries %q: the workspace must be the cwd and start empty", lines[0], lines[1])
	}
	if lines[2] != "HOME="+s.Home+" TMPDIR="+s.Tmp || strings.HasPrefix(s.Home, s.Workspace) {
		t.Errorf("home/tmp: %q (workspace %s)", lines[2], s.Workspace)
	}
	if lines[3] != "0" || lines[4] != "err" {
		t.Errorf("a host variable leaked, or stderr was not merged: %q", r.Output)
	}
	if r := s.Run(context.Background(), "cat kept.txt; exit 7", Options{}); r.ExitCode != 7 || r.Output != "x\n" {
		t.Errorf("files persist between commands, exit codes pass through: %d %q", r.ExitCode, r.Output)
	}
	if err := s.Close(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Base); !os.IsNotExist(err) {
		t.Errorf("Close left %s", s.Base)
	}
}

func TestQSTimeoutKillsTheProcessGroup(t *testing.T) {
	s, _ := New()
	defer s.Close(false)
	// The grandchild's pid is written before the foreground sleeps; a
	// timeout that came first (a loaded machine) ended the command before
	// it had a grandchild to check, so the next try allows twice as long.
	pidFile := filepath.Join(s.Workspace, "bg.pid")
	var r CommandResult
	for timeout := 500 * time.Millisecond; ; timeout *= 2 {
		r = s.Run(context.Background(), `rm -f ready; mkfifo ready; (sleep 300 & echo $! > bg.tmp && mv bg.tmp bg.pid; echo > ready; wait) & read x < ready; sleep 300`, Options{Timeout: timeout})
		if !r.TimedOut || r.ExitCode != 124 || !strings.Contains(r.Output, "timed out after "+timeout.String()) {
			t.Fatalf("%+v", r)
		}
		if _, err := os.Stat(pidFile); err == nil || timeout > time.Minute {
			break
		}
	}
	pid := readPID(t, pidFile)
	if !procwait.Within(pid, 10*time.Second) { // a guard against a hang, not a speed bound
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("grandchild %d outlived the timeout", pid)
	}
	// A cancelled context (the agent's max_seconds) stops the command too,
	// and says why.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	r = s.Run(ctx, "sleep 30", Options{Timeout: time.Minute})
	if !r.TimedOut || r.ExitCode != 124 || !strings.Contains(r.Output, "deadline passed") {
		t.Errorf("context: %+v", r)
	}
}

func TestQSKillGroupAndClose(t *testing.T) {
	s, _ := New()
	// Without KillGroup a background server outlives its command, until Close.
	r := s.Run(context.Background(), `sleep 300 >/dev/null 2>&1 & echo $! > a.tmp && mv a.tmp a.pid`, Options{})
	if r.ExitCode != 0 {
		t.Fatal(r.Output)
	}
	a := readPID(t, filepath.Join(s.Workspace, "a.pid"))
	if !alive(a) {
		t.Fatal("the background process should still run before Close")
	}
	// With KillGroup (checks) it dies when the command ends.
	s.Run(context.Background(), `sleep 300 >/dev/null 2>&1 & echo $! > b.tmp && mv b.tmp b.pid`, Options{KillGroup: true})
	b := readPID(t, filepath.Join(s.Workspace, "b.pid"))
	waitGone(t, b, "KillGroup")
	keep := s.Workspace
	s.Close(true)
	waitGone(t, a, "Close")
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("Close(keep) removed the workspace: %v", err)
	}
	os.RemoveAll(s.Base)
}

// A finished command's process group number stays the sandbox's until
// Close: were it free, the kernel could give it to a new process, and
// Close would kill that stranger's group (once, under load, it killed
// another sandbox's daemon).
func TestQSFinishedGroupStaysOursUntilClose(t *testing.T) {
	s, _ := New()
	if r := s.Run(context.Background(), "true", Options{}); r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	pgid := s.groups[0].pgid
	if err := syscall.Kill(-pgid, 0); err != nil {
		t.Errorf("the group of a finished command is free before Close: %v", err)
	}
	s.Close(false)
	if err := syscall.Kill(-pgid, 0); err != syscall.ESRCH {
		t.Errorf("the group outlived Close: %v", err)
	}
}

func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	if !procwait.Within(pid, 10*time.Second) { // a guard against a hang, not a speed bound
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("%s: process %d still runs", what, pid)
	}
}

func TestQSAdopt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	if _, err := Adopt(dir); err == nil || !strings.Contains(err.Error(), "no such workspace: "+dir) {
		t.Errorf("missing dir: %v", err)
	}
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "f"), []byte("hi"), 0o644)
	s, err := Adopt(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Run(context.Background(), "cat f", Options{}); r.Output != "hi" {
		t.Errorf("%q", r.Output)
	}
	s.Close(false)
	if _, err := os.Stat(filepath.Join(dir, "f")); err != nil {
		t.Errorf("an adopted workspace is never deleted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "support", "tmp")); err != nil {
		t.Errorf("support dirs beside the workspace: %v", err)
	}
}

func TestQSTruncateHeadAndTail(t *testing.T) {
	in := strings.Repeat("A", 600) + "MIDDLE" + strings.Repeat("B", 600)
	out, cut := Truncate(in, 200)
	if !cut || !strings.HasPrefix(out, strings.Repeat("A", 100)+TruncMarker) || !strings.HasSuffix(out, TruncMarker+strings.Repeat("B", 100)) || strings.Contains(out, "MIDDLE") {
		t.Errorf("%v %q", cut, out)
	}
	if out, cut := Truncate("short", 200); cut || out != "short" {
		t.Errorf("short: %v %q", cut, out)
	}
	if out, cut := Truncate(in, 0); cut || out != in {
		t.Errorf("0 means no cap")
	}
	// Characters, not bytes: a cut never splits a rune.
	out, _ = Truncate(strings.Repeat("é", 50), 9)
	if !strings.HasPrefix(out, "éééé\n") || !strings.HasSuffix(out, "\néééé"+"é") {
		t.Errorf("runes: %q", out)
	}
	// Through Run: the command's output is capped the same way, and the
	// original size is reported.
	s, _ := New()
	defer s.Close(false)
	r := s.Run(context.Background(), `head -c 5000 /dev/zero | tr '\0' a; echo MIDDLE; head -c 5000 /dev/zero | tr '\0' z`, Options{MaxChars: 100})
	if !r.Truncated || r.OriginalChars != 10007 || strings.Contains(r.Output, "MIDDLE") || !strings.HasPrefix(r.Output, "aaaa") || !strings.HasSuffix(r.Output, "zzzz") {
		t.Errorf("%+v", r)
	}
}
