// Package sandbox runs an attempt's commands: a fresh workspace per attempt,
// each command in its own shell and process group, with a timeout that kills
// the whole group and an output cap that keeps the head and the tail.
//
// Two backends. "local" runs commands as the harness's user and enforces
// nothing about the network: results say so. "sandbox" (Linux, bubblewrap)
// runs every command in its own namespaces, user namespace included: no
// network but the harness's egress proxy, only the host's toolchain folders
// (read-only) besides the workspace and its support directories, a private
// /tmp, no capabilities and no new privileges, never root (bounds.go), the
// workspace bounded in size where the harness can mount it, and a PID
// namespace that ends every process in it when the sandbox closes. See
// isolated.go. A third, "container", runs them in docker or podman.
//
// The backends run on Linux hosts; on macOS and Windows every constructor
// refuses with qs.sandbox_unavailable and the way to run qs there
// (other_os.go).
package sandbox

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The names, bounds and types every backend shares, on every OS; the
// backends themselves are Linux's (the other files), and other_os.go
// says how to run qs elsewhere.

// Backend names (and Container, container.go).
const (
	Local    = "local"
	Isolated = "sandbox"
	// Backend is the local backend's name (kept for callers of the first
	// version).
	Backend = Local
)

// SandboxDirEnv names the folder sandboxes are made in, instead of the
// system's temporary directory (a /tmp that is small, or mounted noexec);
// quickstarted's QUICKSTARTED_SANDBOX_DIR is read when it is not set.
const SandboxDirEnv = "TABWRIGHT_SANDBOX_DIR"

// CommandResult is one command's outcome.
type CommandResult struct {
	ExitCode      int
	Output        string // stdout and stderr merged, capped
	OriginalChars int
	Truncated     bool
	TimedOut      bool
	// WorkspaceFull: the command left the bounded workspace full (the
	// output ends with a workspace_full note); the attempt stops.
	WorkspaceFull bool
	// Bound: a bound the command met that stops the attempt (ProcessBound;
	// the output ends with a note saying so), or "".
	Bound    string
	Duration time.Duration
}

// Options bound one command.
type Options struct {
	Timeout   time.Duration // kills the command's processes; exit 124
	MaxChars  int           // 0: no cap
	Env       []string      // added to Env()
	KillGroup bool          // kill the process group as soon as the command exits (checks)
}

// TruncMarker sits between the head and the tail of cut text.
const TruncMarker = "\n[... output truncated by tabwright ...]\n"

// Truncate keeps the first and last max/2 characters of s, joined by
// TruncMarker, when s is longer than max characters.
func Truncate(s string, max int) (string, bool) {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s, false
	}
	r := []rune(s)
	h := max / 2
	return string(r[:h]) + TruncMarker + string(r[len(r)-(max-h):]), true
}

// SandboxUID is the user (and group) commands run as when the harness is
// root: "nobody" on Debian, Ubuntu and Fedora, which owns no files.
const SandboxUID = 65534

// DefaultWorkspaceBytes bounds an attempt's workspace (and, each, its /tmp,
// /run and /var/tmp) when nothing else is asked: room for a typical
// quickstart's dependencies, far from a CI runner's memory.
const DefaultWorkspaceBytes int64 = 2 << 30

// MinWorkspaceBytes is the smallest bound accepted: less cannot hold a
// toolchain's caches.
const MinWorkspaceBytes int64 = 4 << 20

// WorkspaceFull is the stop reason of an attempt whose workspace filled up.
const WorkspaceFull = "workspace_full"

// OutputBytes bounds the folder that holds the commands' output files on a
// bounded sandbox: a tmpfs of its own, so that a full workspace still lets
// a command (and the check) say what happened, and a command that prints
// without end stops at this size instead of filling the host's disk. The
// harness reads only the head and the tail of an output anyway.
const OutputBytes int64 = 64 << 20

// ParseSize reads a byte count: a number, optionally with K, M, G or T
// (powers of 1024, an optional trailing B or iB), or 0 for no bound.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.ReplaceAll(s, " ", ""))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			mult = 1 << (10 * (i + 1))
			t = t[:n-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("sandbox.bad_size: %q is not a size; write a number of bytes with K, M or G (2G, 512M), or 0 for no bound", s)
	}
	n *= mult
	if n != 0 && n < MinWorkspaceBytes {
		return 0, fmt.Errorf("sandbox.bad_size: %q is less than the smallest workspace, %s; give more, or 0 for no bound", s, HumanBytes(MinWorkspaceBytes))
	}
	return n, nil
}

// HumanBytes writes n in the largest unit that keeps it whole-ish (2 GiB).
func HumanBytes(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// ContainerWorkspace is where the workspace appears in a container, and the
// commands' working directory there, as under quickstarted's docker
// backend: a task written for it may name /workspace. The workspace is
// bound at its host path too, so a path the harness hands the commands
// ($QS_SESSION_LOG) holds inside as well.
const ContainerWorkspace = "/workspace"

// Container is the container backend's name.
const Container = "container"

// DefaultImage is the image of a task that names none, as quickstarted's.
const DefaultImage = "python:3.12-slim"

// Runtime is a container engine's command line: docker or podman.
type Runtime struct {
	Name     string // docker or podman
	Path     string
	Version  string
	Rootless bool // the engine runs as the harness's user: its root is that user
}

// RuntimeEnv names the runtime to use when both are installed (docker,
// podman, or a path).
const RuntimeEnv = "TABWRIGHT_CONTAINER_RUNTIME"

// UsernsBlock is one setting that keeps an unprivileged process from making
// a user namespace.
type UsernsBlock struct {
	Setting string // what was read, e.g. "kernel.apparmor_restrict_unprivileged_userns = 1"
	Fix     string // the commands that lift it
}

// AppArmorProfileName is the profile UsernsBlock's AppArmor fix installs.
const AppArmorProfileName = "tabwright-bwrap"

// Limits bound one sandbox's processes (threads included) and memory.
type Limits struct {
	Processes   int   // 0: none
	MemoryBytes int64 // per process; 0: none
}

// defaultProcesses bounds an attempt's processes in either backend (the
// container's --pids-limit).
const defaultProcesses = 4096

// DefaultLimits are the bounds of a sandbox nobody sized: defaultProcesses,
// and memory far above a toolchain's needs.
var DefaultLimits = Limits{Processes: defaultProcesses, MemoryBytes: 4 << 30}

// ProcessBound is the stop reason of an attempt whose processes reached
// their bound.
const ProcessBound = "process_bound"
