//go:build linux

package sandbox

// What a machine needs for a container to start, learned from the
// engine's refusals and kept per engine.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// startFix is what this machine needs for a container to start.
type startFix struct {
	Runtime        string `json:"runtime,omitempty"` // an OCI runtime to use instead of the engine's default
	Nofile         uint64 `json:"nofile,omitempty"`  // resource limits the container gets
	Nproc          uint64 `json:"nproc,omitempty"`
	LimitsRequired bool   `json:"limits_required,omitempty"`
	NoPidsLimit    bool   `json:"no_pids_limit,omitempty"` // the engine cannot bound the container's processes here
}

// pidsLimit bounds the processes (threads included) of one container, so
// that a fork bomb stays inside: room for a parallel build.
const pidsLimit = defaultProcesses

// The fixes learned per engine (name and version). They are kept in the
// user's cache folder, since learning them costs a refused start each: a
// kept fix that stops working is learned again from it.
type fixes struct {
	mu     sync.Mutex
	m      map[string]startFix
	loaded bool
}

var startFixes = &fixes{m: map[string]startFix{}}

// fixesFile is where the learned fixes are kept, or "" without a cache folder.
func fixesFile() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "tabwright", "container-start.json")
}

func (f *fixes) get(rt *Runtime) startFix {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.loaded {
		f.loaded = true
		if b, err := os.ReadFile(fixesFile()); err == nil {
			json.Unmarshal(b, &f.m)
		}
	}
	return f.m[rt.Name+" "+rt.Version]
}

func (f *fixes) set(rt *Runtime, fix startFix) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[rt.Name+" "+rt.Version] = fix
	if path := fixesFile(); path != "" {
		b, _ := json.Marshal(f.m)
		os.MkdirAll(filepath.Dir(path), 0o755)
		tmp := fmt.Sprintf("%s.%d", path, os.Getpid())
		if os.WriteFile(tmp, b, 0o644) == nil {
			os.Rename(tmp, path)
		}
	}
}

func (f startFix) flags() []string {
	var a []string
	if f.Runtime != "" {
		a = append(a, "--runtime", f.Runtime)
	}
	if !f.NoPidsLimit {
		a = append(a, "--pids-limit", strconv.Itoa(pidsLimit))
	}
	if f.LimitsRequired {
		a = append(a, "--ulimit", fmt.Sprintf("nofile=%d:%d", f.Nofile, f.Nofile), "--ulimit", fmt.Sprintf("nproc=%d:%d", f.Nproc, f.Nproc))
	}
	return a
}

var (
	cgroupsRefused = regexp.MustCompile(`(?i)cgroups? in hybrid mode not supported|cgroup.*not supported`)
	limitRefused   = regexp.MustCompile(`(?i)rlimit.*(not permitted|permission denied)`)
	nofileRefused  = regexp.MustCompile(`(?i)RLIMIT_NOFILE|rlimit type 7\b`)
	nprocRefused   = regexp.MustCompile(`(?i)RLIMIT_NPROC|rlimit type 6\b`)
	pidsRefused    = regexp.MustCompile(`(?i)pids.*(not supported|not permitted|no such file|cgroup)|pids-limit`)
)

// minLimit is the least a lowered limit may be: below it a toolchain
// cannot work, and the refusal is reported instead.
const minLimit = 256

// learn reads the engine's refusal and returns the fix to try next, or
// false when it is not one this package knows how to work around.
//
//   - An OCI runtime that cannot work with this machine's cgroups (crun on
//     a hybrid hierarchy) is replaced with runc, when runc is installed.
//   - A process bound the engine cannot set here is dropped.
//   - Resource limits the engine sets above what this machine lets it raise
//     (a container or VM without CAP_SYS_RESOURCE) are set to the
//     harness's own; the one still refused is halved until it is accepted.
func (f startFix) learn(refused string, rt *Runtime) (startFix, bool) {
	switch {
	case cgroupsRefused.MatchString(refused) && f.Runtime == "" && rt.Name == "podman":
		if _, err := exec.LookPath("runc"); err != nil {
			return f, false
		}
		f.Runtime = "runc"
		return f, true
	case pidsRefused.MatchString(refused) && !f.NoPidsLimit:
		f.NoPidsLimit = true
		return f, true
	case limitRefused.MatchString(refused) && !f.LimitsRequired:
		f.LimitsRequired = true
		f.Nofile, f.Nproc = ownLimit(syscall.RLIMIT_NOFILE), ownLimit(rlimitNproc)
		return f, true
	case limitRefused.MatchString(refused) && nprocRefused.MatchString(refused) && f.Nproc/2 >= minLimit:
		f.Nproc /= 2
		return f, true
	case limitRefused.MatchString(refused) && nofileRefused.MatchString(refused) && f.Nofile/2 >= minLimit:
		f.Nofile /= 2
		return f, true
	}
	return f, false
}

// rlimitNproc is RLIMIT_NPROC on Linux (the syscall package does not name it).
const rlimitNproc = 6

// ownLimit is the harness's own hard limit for resource r.
func ownLimit(r int) uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(r, &l); err != nil || l.Max > 1<<20 {
		return 1 << 20
	}
	return l.Max
}

// StartFlags are the flags this process learned it must give the engine to
// start a container (doctor reports them), or "".
func StartFlags(rt *Runtime) string {
	return strings.Join(startFixes.get(rt).flags(), " ")
}
