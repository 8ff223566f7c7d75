//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// Sandbox is one attempt's directories: Workspace (the commands' working
// directory, empty at first) and, beside it, Home and Tmp.
type Sandbox struct {
	Base, Workspace, Home, Tmp string
	adopted                    bool
	bound                      int64  // the tmpfs's size at Base, or 0 (bounds.go)
	limits                     Limits // the sandbox backend's process and memory bounds (limits.go)

	mu     sync.Mutex
	groups []heldGroup // process groups still to kill at Close
	seq    int

	iso   *isolation  // nil: the local backend
	local *localProxy // the local backend's advisory proxy, or nil
}

// BackendName is the backend that runs this sandbox's commands.
func (s *Sandbox) BackendName() string {
	if s.iso != nil && s.iso.ctr != nil {
		return Container
	}
	if s.iso != nil {
		return Isolated
	}
	return Local
}

// Enforced reports whether the network policy and the filesystem limits
// bind the commands (the sandbox and container backends) or are advisory
// (local).
func (s *Sandbox) Enforced() bool { return s.iso != nil }

// sandboxDirSet is the folder the user named for sandboxes, or "".
func sandboxDirSet() string {
	for _, v := range []string{SandboxDirEnv, "QUICKSTARTED_SANDBOX_DIR"} {
		if d := os.Getenv(v); d != "" {
			if abs, err := filepath.Abs(d); err == nil {
				return abs
			}
			return d
		}
	}
	return ""
}

// sandboxRoot is the folder sandboxes (and the keeper's copy, and the
// probe's folder) are made in: the one the user named, else the system's
// temporary folder when the sandbox's user can reach it, else /tmp. A root
// harness whose $TMPDIR lies under its 0700 home would otherwise make
// sandboxes bubblewrap, running as SandboxUID, cannot enter.
func sandboxRoot() (string, error) {
	if d := sandboxDirSet(); d != "" {
		if err := rootReachable(d); err != nil {
			return "", err
		}
		return d, nil
	}
	tmp := os.TempDir()
	if rootReachable(tmp) == nil {
		return tmp, nil
	}
	if rootReachable("/tmp") == nil {
		return "/tmp", nil
	}
	return "", rootReachable(tmp)
}

// rootReachable says when the sandbox's user cannot pass through dir or a
// folder above it, with the one-line fix.
func rootReachable(dir string) error {
	if !dropsPrivileges() {
		return nil
	}
	return reachable(filepath.Join(dir, "sandbox"), fmt.Sprintf("or make sandboxes elsewhere: export %s=/var/tmp/tabwright-sandboxes", SandboxDirEnv))
}

// makeBase makes a fresh sandbox's base folder in sandboxRoot.
func makeBase() (string, error) {
	root, err := sandboxRoot()
	if err != nil {
		return "", err
	}
	if root != os.TempDir() && root != "/tmp" {
		if err := os.MkdirAll(root, 0o755); err != nil {
			return "", fmt.Errorf("sandbox.sandbox_dir: cannot make the folder sandboxes are made in (%s or QUICKSTARTED_SANDBOX_DIR): %v; give a folder you can write", SandboxDirEnv, err)
		}
	}
	base, err := os.MkdirTemp(root, "tabwright-qs-")
	if err != nil {
		return "", fmt.Errorf("sandbox.sandbox_dir: cannot make a sandbox in %s: %v; free space there, or set %s to another folder", root, err, SandboxDirEnv)
	}
	return base, nil
}

// New makes a fresh sandbox in sandboxRoot.
func New() (*Sandbox, error) {
	base, err := makeBase()
	if err != nil {
		return nil, err
	}
	s := layout(base)
	for _, d := range []string{s.Workspace, s.Home, s.Tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			os.RemoveAll(base)
			return nil, err
		}
	}
	if err := makePrivateDirs(s.supportDir()); err != nil {
		os.RemoveAll(base)
		return nil, err
	}
	return s, nil
}

// supportDir holds $HOME, $TMPDIR and the private folders, beside the
// workspace.
func (s *Sandbox) supportDir() string { return filepath.Dir(s.Home) }

// privateMounts are the folders an isolated sandbox sees at /tmp, /run and
// /var/tmp (/run: daemons' sockets, docker's or dbus's, stay outside).
// They live in the support folder, so they share the workspace's one bound
// (a tmpfs of their own each would multiply it) and go with the sandbox.
func privateMounts(support string) [][2]string {
	return [][2]string{
		{filepath.Join(support, "private", "tmp"), "/tmp"},
		{filepath.Join(support, "private", "run"), "/run"},
		{filepath.Join(support, "private", "var-tmp"), "/var/tmp"},
	}
}

// resetPrivateDirs empties the private folders, for a fresh sandbox after a
// lost one: its /tmp starts empty, as a tmpfs of its own did.
func resetPrivateDirs(support string) error {
	for _, m := range privateMounts(support) {
		if err := os.RemoveAll(m[0]); err != nil {
			return err
		}
	}
	return makePrivateDirs(support)
}

// makePrivateDirs makes the private folders, writable by whoever runs in
// the sandbox (sticky, as /tmp is).
func makePrivateDirs(support string) error {
	for _, m := range privateMounts(support) {
		if err := os.MkdirAll(m[0], 0o755); err != nil {
			return err
		}
		if err := os.Chmod(m[0], 0o1777); err != nil {
			return err
		}
	}
	return nil
}

// layout names a sandbox's directories under base.
func layout(base string) *Sandbox {
	return &Sandbox{Base: base, Workspace: filepath.Join(base, "workspace"),
		Home: filepath.Join(base, "support", "home"), Tmp: filepath.Join(base, "support", "tmp")}
}

// outputDir holds the commands' output files: the support folder, which
// the commands cannot reach (only $HOME and $TMPDIR inside it are bound);
// on a bounded sandbox, a tmpfs of its own inside it (bounds.go).
func (s *Sandbox) outputDir() string {
	if s.bound > 0 {
		return filepath.Join(filepath.Dir(s.Home), "output")
	}
	return filepath.Dir(s.Home)
}

// Adopt uses an existing workspace (qs check --sandbox DIR); its support
// directories are made beside it, and nothing is deleted at Close.
func Adopt(dir string) (*Sandbox, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("no such workspace: %s", dir)
	}
	s := &Sandbox{Base: filepath.Dir(abs), Workspace: abs, adopted: true,
		Home: filepath.Join(filepath.Dir(abs), "support", "home"), Tmp: filepath.Join(filepath.Dir(abs), "support", "tmp")}
	for _, d := range []string{s.Home, s.Tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := makePrivateDirs(s.supportDir()); err != nil {
		return nil, err
	}
	return s, nil
}

// Env is the commands' environment, built from scratch: nothing of the
// harness's own environment leaks in but PATH and the locale.
func (s *Sandbox) Env(extra ...string) []string {
	if s.iso != nil && s.iso.ctr != nil {
		return s.iso.ctr.commandEnv(s, extra)
	}
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/bin:/bin"
	}
	lang := os.Getenv("LANG")
	if lang == "" {
		lang = "C.UTF-8"
	}
	lcAll := os.Getenv("LC_ALL")
	if lcAll == "" {
		lcAll = lang
	}
	env := []string{"PATH=" + path, "HOME=" + s.Home, "TMPDIR=" + s.Tmp, "LANG=" + lang, "LC_ALL=" + lcAll, "TERM=dumb", "NO_COLOR=1"}
	return append(env, extra...)
}

// Run runs command with bash -c in the workspace, in a process group of its
// own; what it leaves running in the background lives until the command
// times out, or KillGroup is set, or Close, on both backends. On the sandbox
// backend Close also ends what left the group (setsid, double forks), and
// commands run one at a time.
func (s *Sandbox) Run(ctx context.Context, command string, opt Options) CommandResult {
	start := time.Now()
	s.mu.Lock()
	s.seq++
	// Beside $HOME and $TMPDIR, not in them: the commands cannot reach it.
	outPath := filepath.Join(s.outputDir(), fmt.Sprintf(".qs-out-%d", s.seq))
	s.mu.Unlock()
	out, err := os.Create(outPath)
	if err != nil {
		return CommandResult{ExitCode: 127, Output: "cannot record output: " + err.Error(), Duration: time.Since(start)}
	}
	defer os.Remove(outPath)
	defer out.Close()
	res := CommandResult{}
	var notes []string // added to the text, not the file, which may be out of room
	if s.iso != nil {
		r := s.iso.runIsolated(ctx, s, []string{"bash", "-c", command}, s.Env(opt.Env...), out, opt)
		res.ExitCode, res.TimedOut = r.code, r.stopped
		if r.note != "" {
			notes = append(notes, r.note)
		}
		if bound := s.processBound(); atProcessBound(r.tasks, bound) {
			res.Bound = ProcessBound
			notes = append(notes, processBoundNote(r.tasks, bound))
		}
		if res.WorkspaceFull = s.full(); res.WorkspaceFull {
			notes = append(notes, s.fullNote())
		}
	} else if r, ok := s.runLocal(ctx, command, out, opt); !ok {
		r.Duration = time.Since(start)
		return r
	} else {
		res = r
	}
	res.Duration = time.Since(start)
	text := readCapped(out, opt.MaxChars)
	for _, n := range notes {
		text += "\n[" + n + "]\n"
	}
	if res.TimedOut {
		why := fmt.Sprintf("\n[command timed out after %s; %s]", opt.Timeout, killedWhat)
		if ctx.Err() != nil && (opt.Timeout == 0 || res.Duration < opt.Timeout) {
			why = "\n[command stopped: the run's deadline passed or it was interrupted; " + killedWhat + "]"
		}
		text += why
	}
	res.OriginalChars = utf8.RuneCountInString(text)
	res.Output, res.Truncated = Truncate(text, opt.MaxChars)
	return res
}

// killedWhat is what a stop killed, on both backends.
const killedWhat = "its process group was killed"

// runLocal runs command as the harness's user; ok is false when it could not
// start (the result then says why).
func (s *Sandbox) runLocal(ctx context.Context, command string, out *os.File, opt Options) (CommandResult, bool) {
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = s.Workspace
	cmd.Env = s.Env(opt.Env...)
	if s.local != nil {
		cmd.Env = dedupEnv(append(cmd.Env, proxyEnv(s.local.p, s.local.addr)...))
	}
	cmd.Stdin = nil
	cmd.Stdout = out // a file, not a pipe: Wait returns when bash does, even if children hold it
	cmd.Stderr = out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return CommandResult{ExitCode: 127, Output: fmt.Sprintf("cannot start %s: %v", cmd.Path, err)}, false
	}
	pgid := cmd.Process.Pid
	// Joined before Wait: the unreaped leader keeps the group joinable.
	g := holdGroup(pgid)
	s.mu.Lock()
	s.groups = append(s.groups, g)
	s.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timer <-chan time.Time
	if opt.Timeout > 0 {
		t := time.NewTimer(opt.Timeout)
		defer t.Stop()
		timer = t.C
	}
	res := CommandResult{}
	var werr error
	select {
	case werr = <-done:
	case <-timer:
		res.TimedOut = true
	case <-ctx.Done():
		res.TimedOut = true
	}
	if res.TimedOut || opt.KillGroup {
		s.killHeld(g)
	}
	if res.TimedOut {
		<-done
		res.ExitCode = 124
	} else if werr != nil {
		if ee, ok := werr.(*exec.ExitError); ok {
			res.ExitCode = ee.ExitCode()
			if res.ExitCode < 0 {
				res.ExitCode = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
			}
		} else {
			res.ExitCode = 127
		}
	}
	return res, true
}

// readCapped reads the output file; past a generous multiple of the cap it
// reads the head and the tail only, so a command that printed gigabytes does
// not cost the harness gigabytes.
func readCapped(f *os.File, max int) string {
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	size := st.Size()
	limit := int64(max)*8 + 1<<16
	if max <= 0 || size <= limit {
		b, _ := os.ReadFile(f.Name())
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	half := limit / 2
	head := make([]byte, half)
	tail := make([]byte, half)
	f.ReadAt(head, 0)
	f.ReadAt(tail, size-half)
	return strings.ToValidUTF8(string(head), "\uFFFD") + fmt.Sprintf("\n[... %d bytes not read ...]\n", size-2*half) + strings.ToValidUTF8(string(tail), "\uFFFD")
}

func killGroup(pgid int) {
	syscall.Kill(-pgid, syscall.SIGKILL)
}

// heldGroup is a command's process group with a holder in it: an idle
// process that lives until the group is killed. Once a group has no member
// the kernel may give its number to a new process, and killing it then
// would kill a stranger's group (another sandbox's daemon, say); the
// holder keeps the number ours until we kill it with the rest.
type heldGroup struct {
	pgid   int
	holder *exec.Cmd // nil when it could not start: the group is then not held
}

// holdGroup starts the holder in pgid's group: cat, reading a pipe whose
// write end only the harness has, so it idles until killed.
func holdGroup(pgid int) heldGroup {
	h := exec.Command("cat")
	h.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	if _, err := h.StdinPipe(); err != nil || h.Start() != nil {
		return heldGroup{pgid: pgid}
	}
	return heldGroup{pgid: pgid, holder: h}
}

// kill ends the group, holder included, and reaps the holder.
func (g heldGroup) kill() {
	killGroup(g.pgid) // unheld (no holder could start), as it always was
	if g.holder != nil {
		g.holder.Wait()
	}
}

// killHeld kills g now (a timeout, a check) and forgets it.
func (s *Sandbox) killHeld(g heldGroup) {
	g.kill()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, h := range s.groups {
		if h.pgid == g.pgid {
			s.groups = append(s.groups[:i], s.groups[i+1:]...)
			break
		}
	}
}

// Close kills every process group a command left, then removes the sandbox
// unless keep is set or it was adopted.
func (s *Sandbox) Close(keep bool) error {
	s.mu.Lock()
	groups := s.groups
	s.groups = nil
	s.mu.Unlock()
	for _, g := range groups {
		g.kill()
	}
	if s.iso != nil {
		s.iso.close()
	}
	if s.local != nil {
		s.local.p.Close()
	}
	if s.bound > 0 {
		err := s.closeBounded(keep)
		if keep {
			s.disown()
		}
		return err
	}
	if keep || s.adopted {
		if !s.adopted {
			s.disown()
		}
		return nil
	}
	return os.RemoveAll(s.Base)
}
