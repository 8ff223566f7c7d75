//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tabwright/tabwright/quickstart/egress"
)

// The sandbox backend. Each Sandbox starts one bubblewrap sandbox, once:
//
//	bwrap <namespaces and mounts> --as-pid-1 -- SELF __tabwright_qs_keeper net|nonet
//
// bwrap gives it a network namespace with only a loopback interface, so
// nothing dialled inside leaves it. SELF (this binary, bound read-only) is
// the sandbox's PID 1, the keeper (keeper.go). It talks to the harness over
// a socket pair inherited as fd 3, and does four small things:
//
//   - at start it listens on an ephemeral loopback port inside and hands
//     that listening socket to the harness (SCM_RIGHTS), which serves the
//     egress proxy on it: a socket belongs to the namespace it was made in,
//     so the harness accepts the sandbox's connections without any relay
//     inside, and no path to the proxy exists in the sandbox's filesystem;
//   - per command it forks bash (its own session, stdin /dev/null, stdout
//     and stderr the output file the harness passed) and reports its exit;
//     what the command leaves in the background keeps running, as in a
//     person's terminal (an agent serves its app in one command and browses
//     it in the next), and the keeper reaps whatever is reparented to it;
//   - when the harness says kill (a timeout) it kills the command's process
//     group, and a check's group when the check ends, as the local backend
//     does;
//   - when the harness closes the control socket (Close) it sends SIGKILL
//     to every other process in the PID namespace (kill(-1), which the
//     kernel does under one lock, so nothing forks past it) and exits,
//     which ends the namespace: nothing outlives the sandbox;
//   - it dials a loopback port inside and hands the connected socket out
//     (DialInside, for the harness's browser).
//
// A command cannot kill the keeper: the kernel drops SIGKILL and SIGSTOP sent
// to a namespace's PID 1 from inside, and the keeper catches every other
// signal. If it ends anyway, bwrap ends and the kernel kills the namespace;
// the next command starts a fresh sandbox (what ran in the background is
// gone). The harness serves commands one at a time. Starting the
// sandbox costs one start of this binary (tens of milliseconds); each command
// then costs a fork and exec of bash, as on the local backend.

type isolation struct {
	bwrap, self string
	ctr         *container // the container backend's runtime and image; nil under bubblewrap
	selfDir     string     // the folder of the sandbox user's copy of self, removed at close, or ""
	proxy       *egress.Proxy

	run sync.Mutex // held for a whole command

	mu      sync.Mutex
	k       *keeperConn // nil before the first start and after the sandbox ended
	started bool        // a sandbox was started once: the next is a fresh one
	closed  bool
}

// NewIsolated makes a fresh sandbox whose commands run under bubblewrap with
// p as their only way out, its workspace bounded by DefaultWorkspaceBytes.
// p may be nil: the commands then have no network at all. The sandbox
// starts here; the proxy is closed with the sandbox.
func NewIsolated(p *egress.Proxy) (*Sandbox, error) {
	return NewIsolatedBounded(p, DefaultWorkspaceBytes)
}

// NewIsolatedBounded is NewIsolated with the workspace's bound in bytes (0:
// none; see bounds.go for when a bound can hold).
func NewIsolatedBounded(p *egress.Proxy, workspaceBytes int64) (*Sandbox, error) {
	return NewIsolatedLimited(p, workspaceBytes, DefaultLimits)
}

// NewIsolatedLimited is NewIsolatedBounded with the processes' and memory's
// bounds (limits.go).
func NewIsolatedLimited(p *egress.Proxy, workspaceBytes int64, l Limits) (*Sandbox, error) {
	s, err := newBounded(workspaceBytes, true)
	if err != nil {
		return nil, err
	}
	s.limits = l
	if err := s.isolate(p); err != nil {
		s.Close(false)
		return nil, err
	}
	return s, nil
}

// AdoptIsolated is Adopt for the sandbox backend.
func AdoptIsolated(dir string, p *egress.Proxy) (*Sandbox, error) {
	s, err := Adopt(dir)
	if err != nil {
		return nil, err
	}
	if err := s.handOverDirs(); err != nil {
		return nil, err
	}
	s.limits = DefaultLimits
	if err := s.isolate(p); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Sandbox) isolate(p *egress.Proxy) error {
	bw, err := exec.LookPath("bwrap")
	if err != nil {
		return fmt.Errorf("sandbox.bwrap_missing: bubblewrap (bwrap) is not on PATH: %v; install it (apt-get install -y bubblewrap) or use --backend local --allow-unenforced", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("sandbox.self: cannot find this program's own path, which runs as the sandbox's first process: %v", err)
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		return fmt.Errorf("sandbox.self: %v", err)
	}
	s.iso = &isolation{bwrap: bw, self: self, proxy: p}
	if dropsPrivileges() {
		if s.iso.self, s.iso.selfDir, err = keeperCopy(self); err != nil {
			return err
		}
	}
	if _, err := s.iso.keeper(s); err != nil {
		s.iso.close()
		s.iso = nil
		return err
	}
	return nil
}

// keeper returns the running sandbox, starting one when there is none.
func (iso *isolation) keeper(s *Sandbox) (*keeperConn, error) {
	iso.mu.Lock()
	defer iso.mu.Unlock()
	if iso.closed {
		return nil, fmt.Errorf("sandbox.closed: the sandbox was closed")
	}
	if iso.k != nil && !iso.k.ended() {
		return iso.k, nil
	}
	if iso.k != nil {
		iso.k.stop()
	}
	if iso.started {
		if err := resetPrivateDirs(s.supportDir()); err != nil {
			return nil, fmt.Errorf("sandbox.reset: cannot empty the lost sandbox's /tmp, /run and /var/tmp: %v", err)
		}
	}
	iso.started = true
	k, err := startKeeper(iso, s)
	if err != nil {
		return nil, err
	}
	iso.k = k
	return k, nil
}

// drop stops k and forgets it, so that the next command starts afresh.
func (iso *isolation) drop(k *keeperConn) {
	iso.mu.Lock()
	if iso.k == k {
		iso.k = nil
	}
	iso.mu.Unlock()
	k.stop()
}

func (iso *isolation) close() {
	iso.mu.Lock()
	iso.closed = true
	k := iso.k
	iso.k = nil
	iso.mu.Unlock()
	if k != nil {
		k.stop()
	}
	if iso.proxy != nil {
		iso.proxy.Close()
	}
	if iso.selfDir != "" {
		os.RemoveAll(iso.selfDir)
	}
	if iso.ctr != nil {
		os.RemoveAll(iso.ctr.ctlDir)
		unmountAll(iso.ctr.selfBinds)
	}
}

// toolchainRoots are the host's folders a toolchain may need, bound
// read-only (a link among them, as /bin on a merged /usr, is made the same
// link). Nothing else of the host is visible: not /home, /root, /srv, /mnt,
// /var, nor any checkout.
var toolchainRoots = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/sys"}

// maskedFiles and maskedDirs are secrets under the bound roots, replaced by
// an empty file or folder (unreadable anyway to the sandbox's user; this
// holds where the harness's own user could read them).
var (
	maskedFiles = []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/security/opasswd"}
	maskedDirs  = []string{"/etc/ssl/private", "/etc/sudoers.d"}
)

// bwrapArgs are the namespaces and mounts; binds are the directories the
// commands may write, each at its own path, and private the host folders
// bound at /tmp, /run and /var/tmp (privateMounts).
func bwrapArgs(binds []string, private [][2]string, roFiles []string, chdir string) []string {
	a := []string{"--unshare-user", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--new-session", "--cap-drop", "ALL"}
	for _, r := range toolchainRoots {
		st, err := os.Lstat(r)
		switch {
		case err != nil:
		case st.Mode()&os.ModeSymlink != 0:
			if to, err := os.Readlink(r); err == nil {
				a = append(a, "--symlink", to, r)
			}
		case st.IsDir():
			a = append(a, "--ro-bind", r, r)
		}
	}
	for _, f := range maskedFiles {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			a = append(a, "--ro-bind", "/dev/null", f)
		}
	}
	for _, d := range maskedDirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			a = append(a, "--tmpfs", d)
		}
	}
	a = append(a, "--dev", "/dev", "--proc", "/proc")
	for _, m := range private {
		a = append(a, "--bind", m[0], m[1])
	}
	for _, b := range binds {
		a = append(a, "--bind", b, b)
	}
	for _, f := range roFiles {
		a = append(a, "--ro-bind", f, f)
	}
	if chdir != "" {
		a = append(a, "--chdir", chdir)
	}
	return a
}

// keeperConn is the harness's end of one running sandbox.
type keeperConn struct {
	cmd    *exec.Cmd
	ctl    *net.UnixConn
	addr   string       // the proxy's address inside ("" without a proxy)
	ln     net.Listener // the proxy's listener, made inside
	stderr *syncBuffer
	exited chan struct{} // closed when bwrap (or the container's runtime client) has exited
	// removed is called once the sandbox has stopped (a container's
	// removal), or nil.
	removed func()

	mu    sync.Mutex
	next  uint64
	waits map[uint64]chan ctlReply
	done  chan struct{} // closed when the control socket ends
	once  sync.Once
}

type ctlReply struct {
	m ctlMsg
	f *os.File
}

// keeperStartTimeout bounds the start of a sandbox (bwrap plus this binary).
const keeperStartTimeout = 20 * time.Second

func startKeeper(iso *isolation, s *Sandbox) (*keeperConn, error) {
	if iso.ctr != nil {
		return startContainer(iso, s)
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox.socketpair: cannot make the control socket: %v", err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "control"), os.NewFile(uintptr(fds[1]), "control")
	c, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		theirs.Close()
		return nil, fmt.Errorf("sandbox.socketpair: %v", err)
	}
	mode := "nonet"
	if iso.proxy != nil {
		mode = "net"
	}
	args := bwrapArgs([]string{s.Workspace, s.Home, s.Tmp}, privateMounts(s.supportDir()), []string{iso.self}, s.Workspace)
	args = append(args, "--as-pid-1", "--", iso.self, keeperArg, mode)
	k := &keeperConn{ctl: c.(*net.UnixConn), stderr: &syncBuffer{}, exited: make(chan struct{}),
		waits: map[uint64]chan ctlReply{}, done: make(chan struct{})}
	k.cmd = exec.Command(iso.bwrap, args...)
	k.cmd.Env = s.Env() // the keeper's own environment: the allowlist, nothing of the harness's
	k.cmd.ExtraFiles = []*os.File{theirs}
	k.cmd.Stdout, k.cmd.Stderr = k.stderr, k.stderr
	k.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: sandboxCredential()}
	err = k.cmd.Start()
	// Only the sandbox holds its end from here: when it ends, the harness
	// reads the end of the control socket at once.
	theirs.Close()
	if err != nil {
		k.ctl.Close()
		return nil, fmt.Errorf("sandbox.start: cannot start %s: %v", iso.bwrap, err)
	}
	go func() { k.cmd.Wait(); close(k.exited) }()
	return k.handshake(iso, keeperStartTimeout, func() string {
		if _, blocked := DetectUsernsBlock("/", iso.bwrap); blocked {
			return UsernsHint("/", iso.bwrap)
		}
		return "run `tabwright doctor` to see whether this machine can enforce, or use --backend local --allow-unenforced"
	})
}

// runIsolated runs argv in the sandbox with its stdout and stderr on out.
func (iso *isolation) runIsolated(ctx context.Context, s *Sandbox, argv, env []string, out *os.File, opt Options) isoRun {
	iso.run.Lock()
	defer iso.run.Unlock()
	k, err := iso.keeper(s)
	if err != nil {
		return isoRun{code: 125, note: err.Error()}
	}
	if k.addr != "" {
		env = append(env, proxyEnv(iso.proxy, k.addr)...)
	}
	if iso.ctr == nil { // a container's processes are bounded by its engine
		argv = limitedArgv(iso.self, s.limits, argv)
	}
	id, ch, err := k.request(ctlMsg{Op: "run", Argv: argv, Env: dedupEnv(env), Dir: s.commandDir(), KillGroup: opt.KillGroup, Bound: s.processBound()}, out)
	if err != nil {
		iso.drop(k)
		return isoRun{code: 125, note: fmt.Sprintf("sandbox.control: cannot send the command to the sandbox: %v; the next command starts a fresh sandbox", err)}
	}
	var timer <-chan time.Time
	if opt.Timeout > 0 {
		t := time.NewTimer(opt.Timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case r := <-ch:
		return isoRun{code: exitOf(r.m), tasks: r.m.Tasks}
	case <-k.done:
		iso.drop(k)
		return isoRun{code: 137, note: "sandbox.lost: the sandbox's first process ended during this command (" + k.why() + "); every process in it was killed, and the next command starts a fresh sandbox"}
	case <-timer:
	case <-ctx.Done():
	}
	// Stopped: the keeper kills the command's process group and answers.
	stopped := isoRun{code: 124, stopped: true}
	if _, _, err := k.request(ctlMsg{Op: "kill", Target: id}, nil); err != nil {
		iso.drop(k)
		return stopped
	}
	select {
	case r := <-ch:
		stopped.tasks = r.m.Tasks
	case <-k.done:
		iso.drop(k)
	case <-time.After(keeperKillGrace):
		iso.drop(k)
		k.kill()
	}
	return stopped
}

func exitOf(m ctlMsg) int {
	if m.Error != "" {
		return 127
	}
	return m.Code
}

// dedupEnv keeps the last value of each variable, in first-seen order.
func dedupEnv(env []string) []string {
	idx := map[string]int{}
	var out []string
	for _, kv := range env {
		k := kv
		if i := strings.IndexByte(kv, '='); i >= 0 {
			k = kv[:i]
		}
		if i, ok := idx[k]; ok {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}

// DialInside connects to port on the sandbox's loopback (the check's
// server), for the harness's browser, which cannot see that loopback.
func (s *Sandbox) DialInside(port int) (net.Conn, error) {
	if s.iso == nil {
		return net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	}
	k, err := s.iso.keeper(s)
	if err != nil {
		return nil, err
	}
	_, ch, err := k.request(ctlMsg{Op: "dial", Port: port}, nil)
	if err != nil {
		return nil, fmt.Errorf("sandbox.inbound: cannot ask the sandbox to dial port %d: %v", port, err)
	}
	select {
	case r := <-ch:
		if r.f == nil {
			return nil, fmt.Errorf("sandbox.inbound: nothing answers on port %d inside the sandbox: %s", port, r.m.Error)
		}
		defer r.f.Close()
		return net.FileConn(r.f)
	case <-k.done:
		return nil, fmt.Errorf("sandbox.inbound: the sandbox ended")
	case <-time.After(15 * time.Second):
		return nil, fmt.Errorf("sandbox.inbound: the sandbox did not dial port %d within 15 s", port)
	}
}

// syncBuffer is a bytes.Buffer safe for bwrap's output goroutine, capped.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() < 64<<10 {
		b.b.Write(p)
	}
	return len(p), nil
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Probe reports whether this machine can run the sandbox backend, and why
// not when it cannot: bubblewrap must be on PATH and able to make the
// namespaces and mounts the backend uses, as the user it runs as.
func Probe(ctx context.Context) (enforceable bool, why string) {
	bw, err := exec.LookPath("bwrap")
	if err != nil {
		return false, "bubblewrap (bwrap) is not on PATH; install it: apt-get install -y bubblewrap"
	}
	if _, err := os.Executable(); err != nil {
		return false, "cannot find this program's own path, which runs as the sandbox's first process: " + err.Error()
	}
	root, err := sandboxRoot()
	if err != nil {
		return false, err.Error()
	}
	dir, err := os.MkdirTemp(root, "tabwright-probe-")
	if err != nil {
		return false, "cannot make a temporary directory: " + err.Error()
	}
	defer os.RemoveAll(dir)
	if err := makePrivateDirs(dir); err != nil {
		return false, "cannot make the sandbox's private folders: " + err.Error()
	}
	if dropsPrivileges() {
		os.Chmod(dir, 0o755)
		if err := handOver(false, dir); err != nil {
			return false, err.Error()
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	args := append(bwrapArgs([]string{dir}, privateMounts(dir), nil, dir), "--as-pid-1", "--", "sh", "-c", "echo ok > probe && cat probe")
	cmd := exec.CommandContext(ctx, bw, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: sandboxCredential()}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		msg := strings.TrimSpace(string(out))
		if err != nil {
			msg = strings.TrimSpace(err.Error() + ": " + msg)
		}
		return false, fmt.Sprintf("%s cannot make the sandbox here (%s); %s", bw, msg, UsernsHint("/", bw))
	}
	return true, bw + " makes user, network, PID and mount namespaces here" + asWhom()
}

// asWhom says who the commands run as, when it is not the harness's user.
func asWhom() string {
	if dropsPrivileges() {
		return fmt.Sprintf(", as uid %d", SandboxUID)
	}
	return ""
}
