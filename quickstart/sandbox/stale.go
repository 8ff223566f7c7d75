//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// A harness killed outright (SIGKILL: a CI job's timeout, the OOM killer)
// cannot unmount what it mounted: a bounded workspace's tmpfs keeps its
// memory until it is unmounted, and the folders bound on themselves for
// Docker stay bound. So a sandbox that mounts anything writes an owner file
// in its base folder first (the process's pid, start time and pid
// namespace; the commands never see the base), and the first such sandbox
// of a later process unmounts and removes the sandboxes whose owner no
// longer runs. A base without an owner file (being made, or adopted) is
// never touched.

// ownerFile is the owner's record in a sandbox's base folder.
const ownerFile = ".owner"

var sweepOnce sync.Once

// sweepStale clears, once per process, the sandboxes of dead harnesses.
func sweepStale() {
	sweepOnce.Do(func() {
		if root, err := sandboxRoot(); err == nil {
			sweepStaleIn(root, "/proc/self/mountinfo")
		}
	})
}

// sweepStaleIn unmounts and removes each tmp/tabwright-qs-* base that holds
// a mount (as mountinfo lists them) and whose owner is dead.
func sweepStaleIn(tmp, mountinfo string) {
	// The mount table names real paths: a root reached through a link
	// would match none of them.
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	prefix := filepath.Join(tmp, "tabwright-qs-")
	mounts := map[string][]string{} // base -> its mount points
	for _, m := range mountPoints(mountinfo) {
		if !strings.HasPrefix(m, prefix) {
			continue
		}
		rest := strings.TrimPrefix(m, tmp+"/")
		base := filepath.Join(tmp, strings.SplitN(rest, "/", 2)[0])
		mounts[base] = append(mounts[base], m)
	}
	for base, points := range mounts {
		if ownerAlive(base) {
			continue
		}
		// The deepest first: a bounded base holds the output folder's tmpfs.
		slices.SortFunc(points, func(a, b string) int { return len(b) - len(a) })
		for _, p := range points {
			syscall.Unmount(p, syscall.MNT_DETACH)
		}
		os.RemoveAll(base)
	}
}

// mountPoints reads the mount points of a mountinfo file (its fifth field,
// with the kernel's octal escapes undone).
func mountPoints(mountinfo string) []string {
	f, err := os.Open(mountinfo)
	if err != nil {
		return nil
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 4 {
			points = append(points, unescapeMount(fields[4]))
		}
	}
	return points
}

// unescapeMount undoes mountinfo's \NNN escapes (space, tab, newline, \).
func unescapeMount(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ownMounts readies a sandbox on the host's disk for mounts of its own:
// the stale sandboxes swept, this process recorded as its owner. An
// adopted workspace's base is the user's folder: nothing is written there,
// and a killed harness leaves its binds (unmounted at the next reboot).
func (s *Sandbox) ownMounts() error {
	sweepStale()
	if s.adopted {
		return nil
	}
	return writeOwner(s.Base)
}

// disown removes the owner record of a kept sandbox: it outlives its
// harness on purpose, and a later check may mount in it (qs check
// --sandbox), which the sweep must never take for a dead run's.
func (s *Sandbox) disown() { os.Remove(filepath.Join(s.Base, ownerFile)) }

// writeOwner records this process as base's owner.
func writeOwner(base string) error {
	start, ns := processIdentity(os.Getpid())
	if start == "" {
		return fmt.Errorf("sandbox.owner: cannot read this process's start time from /proc")
	}
	return os.WriteFile(filepath.Join(base, ownerFile), []byte(fmt.Sprintf("%d %s %s\n", os.Getpid(), start, ns)), 0o600)
}

// ownerAlive reports whether base's owner may still run: true unless the
// owner file names a process of this pid namespace that is gone (or whose
// pid another process now has).
func ownerAlive(base string) bool {
	b, err := os.ReadFile(filepath.Join(base, ownerFile))
	if err != nil {
		return true // no record: not ours to judge
	}
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return true
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		return true
	}
	if _, ns := processIdentity(os.Getpid()); ns != f[2] {
		return true // another pid namespace's harness: its pids are not ours
	}
	start, _ := processIdentity(pid)
	return start == f[1]
}

// processIdentity is a process's start time (field 22 of /proc/PID/stat,
// in clock ticks since boot) and pid namespace; "" when it does not run.
func processIdentity(pid int) (start, pidNS string) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", ""
	}
	// The command name (field 2) may hold spaces and parentheses; the
	// fields after its closing parenthesis start at field 3.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", ""
	}
	pidNS, _ = os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
	return f[19], pidNS
}
