//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Process and memory bounds of one sandbox (issue 44). Without them a fork
// bomb in a task takes every PID of the host until the attempt ends.
//
// Every command of the sandbox backend starts through this binary's limit
// hook (limitArg), which sets RLIMIT_NPROC and RLIMIT_DATA, soft and hard,
// then runs the command; nothing in the sandbox may raise a hard limit.
//
// RLIMIT_NPROC counts per user, but since Linux 5.14 per user *and user
// namespace*, and every namespace level is checked against its own limit.
// bubblewrap makes a user namespace per sandbox, and every process in it
// runs as the same uid there, so the count the hook's limit is checked
// against is this sandbox's processes and threads only: other attempts
// running as the same host uid (65534 under root) neither count toward it
// nor are starved by it. The keeper itself starts no command through the
// hook, so it can still serve the harness when the commands are at their
// bound. At the host level the check is against the limit bubblewrap had
// (the harness's), as before.
//
// RLIMIT_DATA bounds each process's writable memory, not their sum: under
// rlimits an attempt's memory is bounded only by processes × that. No
// cgroup is used yet (the machines this was built on delegate no cgroup v2
// controller to the harness); docs/qs.md says what each backend bounds.

// limitArg is the hidden first argument that makes this binary set the
// limits and run the command in its place.
const limitArg = "__tabwright_qs_limit"

// limitedArgv wraps argv in the limit hook, self being this binary's path
// inside the sandbox.
func limitedArgv(self string, l Limits, argv []string) []string {
	if l.Processes <= 0 && l.MemoryBytes <= 0 {
		return argv
	}
	head := []string{self, limitArg, strconv.Itoa(l.Processes), strconv.FormatInt(l.MemoryBytes, 10), "--"}
	return append(head, argv...)
}

// limitMain sets the limits and executes the command; it returns only when
// it could not.
func limitMain(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "tabwright sandbox: "+format+"\n", a...)
		return 126
	}
	if len(args) < 4 || args[2] != "--" {
		return fail("usage: %s PROCESSES MEMORY_BYTES -- COMMAND...", limitArg)
	}
	procs, err1 := strconv.ParseUint(args[0], 10, 63)
	mem, err2 := strconv.ParseUint(args[1], 10, 63)
	if err1 != nil || err2 != nil {
		return fail("bad limits %q %q", args[0], args[1])
	}
	if err := setHardLimit(rlimitNproc, procs); err != nil {
		return fail("cannot bound processes to %d: %v", procs, err)
	}
	if err := setHardLimit(syscall.RLIMIT_DATA, mem); err != nil {
		return fail("cannot bound memory to %d bytes: %v", mem, err)
	}
	argv := args[3:]
	path, err := lookPathIn(argv[0], os.Environ())
	if err != nil {
		return fail("%v", err)
	}
	err = syscall.Exec(path, argv, os.Environ())
	return fail("cannot run %s: %v", filepath.Base(path), err)
}

// setHardLimit sets resource's soft and hard limit to n (0 leaves it).
func setHardLimit(resource int, n uint64) error {
	if n == 0 {
		return nil
	}
	return syscall.Setrlimit(resource, &syscall.Rlimit{Cur: n, Max: n})
}

// countTasks is how many processes and threads the sandbox holds: what its
// RLIMIT_NPROC counts. It reads /proc, the sandbox's own PID namespace's.
func countTasks() int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if tasks, err := os.ReadDir("/proc/" + e.Name() + "/task"); err == nil {
			n += len(tasks)
		}
	}
	return n
}

// atProcessBound reports whether tasks is at bound: within 2% of it, since
// some of the processes that met the bound may have ended before the count.
func atProcessBound(tasks, bound int) bool {
	return bound > 0 && tasks*50 >= bound*49
}

// processBoundNote is what a command's output ends with when the sandbox's
// processes met their bound.
func processBoundNote(tasks, bound int) string {
	return fmt.Sprintf("%s: the sandbox holds %d processes and threads, at its bound of %d; new ones fail (fork: Resource temporarily unavailable); the command's process group was killed and the attempt stops here", ProcessBound, tasks, bound)
}

// processBound is the processes the sandbox's commands may hold: the
// container engine's --pids-limit, or the sandbox backend's own.
func (s *Sandbox) processBound() int {
	if s.iso != nil && s.iso.ctr != nil {
		if startFixes.get(s.iso.ctr.rt).NoPidsLimit {
			return 0
		}
		return pidsLimit
	}
	return s.limits.Processes
}
