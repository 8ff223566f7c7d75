//go:build linux

package sandbox

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A command that starts processes without end meets the sandbox's process
// bound, the result says so, and the bound is this sandbox's alone: another
// sandbox running as the same host user still forks (issue 44, item 1).
func TestQSIsolatedProcessBound(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	const bound = 64
	limited := Limits{Processes: bound, MemoryBytes: DefaultLimits.MemoryBytes}
	a, err := NewIsolatedLimited(nil, MinWorkspaceBytes, limited)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(false)
	b, err := NewIsolatedLimited(nil, MinWorkspaceBytes, limited)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(false)
	// dash gives up at the first fork that fails; the sleepers it started
	// stay, as a server would.
	r := a.Run(context.Background(), `sh -c 'i=0; while [ $i -lt 300 ]; do sleep 600 & i=$((i+1)); done; echo all started'`, Options{Timeout: time.Minute})
	if strings.Contains(r.Output, "all started") {
		t.Fatalf("300 processes started under a bound of %d: %q", bound, r.Output)
	}
	if r.Bound != ProcessBound || !strings.Contains(r.Output, "["+ProcessBound+": ") {
		t.Fatalf("bound %q, output %q; want %s and its note", r.Bound, r.Output, ProcessBound)
	}
	// Counted without a fork: a glob is a shell builtin's work.
	r = a.Run(context.Background(), `set -- /proc/[0-9]*; echo $#`, Options{Timeout: time.Minute})
	n, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(r.Output, "\n", 2)[0]))
	if err != nil || n > bound {
		t.Fatalf("the sandbox holds %d processes under a bound of %d: %q", n, bound, r.Output)
	}
	t.Logf("%d processes in the sandbox after its bound of %d was met", n, bound)
	// What met the bound was killed: the next command (a check) can fork.
	if r := a.Run(context.Background(), `sh -c 'sleep 0 & wait; echo forked'`, Options{Timeout: time.Minute}); !strings.HasPrefix(r.Output, "forked\n") {
		t.Fatalf("after the bound was met: %q", r.Output)
	}
	r = b.Run(context.Background(), `sh -c 'sleep 0 & wait; echo forked'`, Options{Timeout: time.Minute})
	if !strings.HasPrefix(r.Output, "forked\n") || r.Bound != "" {
		t.Fatalf("another sandbox as the same host user cannot fork while the first is at its bound: %q", r.Output)
	}
}

// Under rlimits each process's memory is bounded: a shell that builds a
// 96 MB string under a 32 MiB bound fails, and a small one does not.
func TestQSIsolatedMemoryBoundPerProcess(t *testing.T) {
	requireBwrap(t)
	t.Parallel()
	s, err := NewIsolatedLimited(nil, MinWorkspaceBytes, Limits{Processes: DefaultLimits.Processes, MemoryBytes: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(false)
	build := func(bytes string) CommandResult {
		return s.Run(context.Background(), `x=$(head -c `+bytes+` /dev/zero | tr '\0' a); echo "${#x}"`, Options{Timeout: time.Minute})
	}
	if r := build("1000000"); !strings.HasPrefix(r.Output, "1000000\n") {
		t.Fatalf("1 MB under a 32 MiB bound: %q", r.Output)
	}
	if r := build("96000000"); r.ExitCode == 0 || strings.Contains(r.Output, "96000000") {
		t.Fatalf("96 MB under a 32 MiB bound: exit %d, %q", r.ExitCode, r.Output)
	}
}
