//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The sandbox sees only what a toolchain needs, as an unprivileged user in
// a user namespace (issue 25, item 3).
func TestQSIsolatedSeesOnlyToolchain(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	checkout, err := os.Getwd() // this package's folder, inside the project's checkout
	if err != nil {
		t.Fatal(err)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewIsolated(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(false)
	probes := []struct{ name, cmd, want string }{
		{"/etc/shadow", `cat /etc/shadow >/dev/null 2>&1 && test -s /etc/shadow && echo readable || echo hidden`, "hidden"},
		{"the host's home", fmt.Sprintf(`ls -A %q 2>/dev/null | head -1 | grep -q . && echo readable || echo hidden`, home), "hidden"},
		{"the checkout", fmt.Sprintf(`test -e %q/sandbox.go && echo readable || echo hidden`, checkout), "hidden"},
		{"the checkout's root", fmt.Sprintf(`cat %q 2>/dev/null | grep -q ^module && echo readable || echo hidden`, filepath.Join(checkout, "..", "..", "go.mod")), "hidden"},
		{"/var/lib", `ls /var/lib 2>/dev/null | head -1 | grep -q . && echo readable || echo hidden`, "hidden"},
		{"a non-zero uid", `test "$(id -u)" != 0 && echo nonroot || echo root`, "nonroot"},
		// In the first user namespace the map is the identity over every id.
		{"a user namespace", `awk '{print ($1==0 && $2==0 && $3==4294967295) ? "host" : "userns"}' /proc/self/uid_map`, "userns"},
		{"a toolchain", `bash --version >/dev/null && sh -c 'echo ok'`, "ok"},
	}
	for _, p := range probes {
		r := s.Run(context.Background(), p.cmd, Options{Timeout: 30 * time.Second})
		if got := strings.TrimSpace(r.Output); got != p.want {
			t.Errorf("%s: got %q (exit %d), want %q", p.name, got, r.ExitCode, p.want)
		}
	}
}

// Writing past the workspace's bound stops with workspace_full, and the
// host's disk never holds what was written.
func TestQSIsolatedWorkspaceBound(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	const bound = 16 << 20
	s, err := NewIsolatedBounded(nil, bound)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(false)
	if !dropsPrivileges() {
		// Without root the harness cannot mount the bound, and says so.
		if s.WorkspaceBound() != 0 {
			t.Fatalf("bound %d without root", s.WorkspaceBound())
		}
		t.Log("not root: the workspace is an unbounded folder, as documented")
		return
	}
	if s.WorkspaceBound() != bound {
		t.Fatalf("bound %d, want %d", s.WorkspaceBound(), bound)
	}
	// $HOME and $TMPDIR share the bound, and so does the sandbox's /tmp.
	for _, where := range []string{"$HOME", "$TMPDIR", "/tmp"} {
		r := s.Run(context.Background(), fmt.Sprintf(`df -B1 --output=size %s | tail -1`, where), Options{Timeout: time.Minute})
		if got := strings.TrimSpace(r.Output); got != fmt.Sprint(bound) {
			t.Errorf("%s: size %q, want %d", where, got, bound)
		}
	}
	small := s.Run(context.Background(), `head -c 1048576 /dev/zero > small && echo ok`, Options{Timeout: time.Minute})
	if small.WorkspaceFull || strings.TrimSpace(small.Output) != "ok" {
		t.Fatalf("1 MiB in a 16 MiB workspace: full %v, %q", small.WorkspaceFull, small.Output)
	}
	r := s.Run(context.Background(), `dd if=/dev/zero of=big bs=1M count=64 status=none; echo "dd $?"`, Options{Timeout: time.Minute})
	if !r.WorkspaceFull || !strings.Contains(r.Output, "[workspace_full: ") || !strings.Contains(r.Output, "16 MiB") {
		t.Fatalf("64 MiB into a 16 MiB workspace: full %v, output %q", r.WorkspaceFull, r.Output)
	}
	// The next command (a check, say) still runs and is heard.
	if r := s.Run(context.Background(), `echo still here`, Options{Timeout: time.Minute}); !strings.HasPrefix(r.Output, "still here\n") {
		t.Errorf("after the fill: %q", r.Output)
	}
	st, err := os.Stat(filepath.Join(s.Workspace, "big"))
	if err != nil || st.Size() > bound {
		t.Fatalf("big: %v, %d bytes", err, st.Size())
	}
	// Where it went: a tmpfs, not the host's disk that holds the temp folder.
	var fs syscall.Statfs_t
	if err := syscall.Statfs(s.Workspace, &fs); err != nil || fs.Type != 0x01021994 {
		t.Fatalf("the workspace is not on a tmpfs: %v, type %#x", err, fs.Type)
	}
	var ws, host syscall.Stat_t
	if syscall.Stat(s.Workspace, &ws) != nil || syscall.Stat(os.TempDir(), &host) != nil || ws.Dev == host.Dev {
		t.Fatalf("the workspace shares the device of %s", os.TempDir())
	}
	base := s.Base
	if err := s.Close(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(base); !os.IsNotExist(err) {
		t.Errorf("the sandbox outlived Close: %v", err)
	}
	if b, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(b), base) {
		t.Errorf("the tmpfs is still mounted at %s", base)
	}
}

// A kept bounded sandbox is copied to the host's disk at its own path.
func TestQSIsolatedBoundedKeep(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	s, err := NewIsolatedBounded(nil, MinWorkspaceBytes)
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Run(context.Background(), `echo kept > file`, Options{Timeout: time.Minute}); r.ExitCode != 0 {
		t.Fatalf("%d %q", r.ExitCode, r.Output)
	}
	if err := s.Close(true); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(s.Base)
	if b, err := os.ReadFile(filepath.Join(s.Workspace, "file")); err != nil || string(b) != "kept\n" {
		t.Fatalf("kept workspace: %v %q", err, b)
	}
	if b, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(b), s.Base) {
		t.Errorf("the kept workspace is still a tmpfs")
	}
}

func TestQSParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"2G": 2 << 30, "512M": 512 << 20, "512MiB": 512 << 20, "2 GiB": 2 << 30, "0": 0, "8388608": 8 << 20, "4096K": 4 << 20} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1G", "1M", "2Q", "99999999999T"} {
		if _, err := ParseSize(bad); err == nil || !strings.Contains(err.Error(), "sandbox.bad_size") {
			t.Errorf("ParseSize(%q): %v", bad, err)
		}
	}
	if got := HumanBytes(DefaultWorkspaceBytes); got != "2 GiB" {
		t.Errorf("HumanBytes: %q", got)
	}
}

// One bound covers everything an attempt can write: the workspace, $HOME,
// /tmp, /run and /var/tmp together, not each (issue 44, item 2: a 16 MiB
// bound once let an attempt hold 60 MiB).
func TestQSIsolatedOneBoundForAllWritableSpace(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	if !dropsPrivileges() {
		t.Fatal("this test needs root, which mounts the bound (CI runs as root)")
	}
	const bound = 16 << 20
	s, err := NewIsolatedBounded(nil, bound)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(false)
	// 6 MiB into each of five places: 30 MiB asked, at most 16 MiB held.
	fill := `for d in "$PWD" "$HOME" /tmp /run /var/tmp; do dd if=/dev/zero of="$d/fill" bs=1M count=6 status=none 2>/dev/null; done
cat "$PWD/fill" "$HOME/fill" /tmp/fill /run/fill /var/tmp/fill 2>/dev/null | wc -c`
	r := s.Run(context.Background(), fill, Options{Timeout: time.Minute})
	held, err := strconv.ParseInt(strings.TrimSpace(strings.SplitN(r.Output, "\n", 2)[0]), 10, 64)
	if err != nil {
		t.Fatalf("no byte count: %q", r.Output)
	}
	if held > bound {
		t.Fatalf("the attempt holds %s under a %s bound", HumanBytes(held), HumanBytes(bound))
	}
	if !r.WorkspaceFull {
		t.Errorf("30 MiB asked under a 16 MiB bound, yet not workspace_full: %q", r.Output)
	}
}
