//go:build linux

package sandbox

import (
	"context"
	"crypto/rand"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/quickstart/egress"
)

// The container backend runs a task's commands in its image, on Docker or
// Podman. It is the sandbox backend with a container in bubblewrap's place:
// the same keeper (keeper.go) is the container's first process, so the
// commands, timeouts, background processes, the check's browser and the
// egress proxy behave exactly as there.
//
//   - The container has no network but its own loopback (--network none):
//     neither the internet nor the host's loopback services are reachable.
//     The keeper listens on that loopback and hands the listening socket to
//     the harness, which serves the egress proxy on it; so every request
//     goes through the same policy, records and budgets as on the sandbox
//     backend, and no port of the harness is open to the container.
//   - A container cannot inherit the control socket, so the harness listens
//     on a unix socket in a folder of its own bound into the container; the
//     keeper connects once, and the harness then closes and removes it.
//   - This program runs inside as the keeper. A static build (the release
//     binaries) runs as it is; a dynamically linked one runs through the
//     host's own loader and C library, bound read-only beside it, so the
//     image's C library (or none, in a scratch image) does not matter.
//   - The container's processes are bounded (--pids-limit) where the engine
//     can do it. Its own filesystem (the image's layers) is writable, as
//     under Docker, and not bounded by the workspace's size.
//   - The workspace, $HOME and $TMPDIR are the sandbox backend's folders
//     (bounded the same way), bound at their own paths; /tmp and /var/tmp
//     are folders inside that same bound. All capabilities are dropped and
//     no new privileges can be gained.

var (
	runtimeOnce  sync.Once
	runtimeFound *Runtime
	runtimeWhy   string
)

// FindRuntime is the container engine this machine can use, found once per
// process: $TABWRIGHT_CONTAINER_RUNTIME, else docker, else podman, the first
// whose engine answers. why says what was tried when none answers.
func FindRuntime(ctx context.Context) (*Runtime, string) {
	runtimeOnce.Do(func() {
		names := []string{"docker", "podman"}
		if v := os.Getenv(RuntimeEnv); v != "" {
			names = []string{v}
		}
		runtimeFound, runtimeWhy = findRuntime(ctx, names)
	})
	return runtimeFound, runtimeWhy
}

func findRuntime(ctx context.Context, names []string) (*Runtime, string) {
	var tried, installed []string
	for _, n := range names {
		path, err := exec.LookPath(n)
		if err != nil {
			tried = append(tried, n+": not installed")
			continue
		}
		installed = append(installed, n)
		rt, err := probeRuntime(ctx, filepath.Base(n), path)
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		return rt, ""
	}
	if len(installed) > 0 {
		// Installing another would not help: say which one to fix.
		return nil, strings.Join(tried, "; ") + fmt.Sprintf("; make %s answer (%s info says why) or start Docker's daemon", installed[0], installed[0])
	}
	return nil, strings.Join(tried, "; ") + "; install one (apt-get install -y podman) or start Docker's daemon"
}

// probeRuntime asks the engine for its version and whether it is rootless.
func probeRuntime(ctx context.Context, name, path string) (*Runtime, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	format := "{{.Host.Security.Rootless}} {{.Version.Version}}"
	if !strings.Contains(name, "podman") {
		format = "{{.SecurityOptions}} {{.ServerVersion}}"
	}
	out, err := exec.CommandContext(ctx, path, "info", "--format", format).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s: its engine does not answer (%s)", name, lastLine(string(out), err))
	}
	f := strings.Fields(strings.TrimSpace(string(out)))
	rt := &Runtime{Name: name, Path: path}
	if len(f) > 0 {
		rt.Version = f[len(f)-1]
		rt.Rootless = strings.Contains(strings.Join(f[:len(f)-1], " "), "true") || strings.Contains(string(out), "rootless")
	}
	if strings.Contains(name, "podman") {
		rt.Name = "podman"
	} else {
		rt.Name = "docker"
	}
	return rt, nil
}

// lastLine is the last line an engine printed (its error), or err.
func lastLine(out string, err error) string {
	out = strings.TrimSpace(out)
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	if out == "" {
		return err.Error()
	}
	return out
}

// container is one sandbox's image and engine.
type container struct {
	rt       *Runtime
	image    string
	imageEnv []string // the image's own environment (its PATH, toolchain variables)
	user     string   // uid:gid the commands run as
	ctlDir   string   // holds the control socket while the keeper connects; removed at close
	// selfBinds are the folders made nosuid binds of themselves for Docker
	// (noSUIDSelfBinds), undone at close.
	selfBinds []string
	keeper    keeperFiles
}

// NewContainer makes a fresh sandbox whose commands run in image on rt,
// with p as their only way out (nil: no network at all) and the workspace
// bounded as NewIsolatedBounded's. The image is pulled first when it is not
// on the machine.
func NewContainer(ctx context.Context, rt *Runtime, image string, p *egress.Proxy, workspaceBytes int64) (*Sandbox, error) {
	s, err := newBounded(workspaceBytes, false)
	if err != nil {
		return nil, err
	}
	if err := s.containerise(ctx, rt, image, p); err != nil {
		s.Close(false)
		return nil, err
	}
	return s, nil
}

// AdoptContainer is Adopt for the container backend.
func AdoptContainer(ctx context.Context, rt *Runtime, image, dir string, p *egress.Proxy) (*Sandbox, error) {
	s, err := Adopt(dir)
	if err != nil {
		return nil, err
	}
	if err := s.containerise(ctx, rt, image, p); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Sandbox) containerise(ctx context.Context, rt *Runtime, image string, p *egress.Proxy) error {
	if rt == nil {
		return fmt.Errorf("sandbox.no_container_runtime: no container runtime was given; run `tabwright doctor`")
	}
	if image == "" {
		image = DefaultImage
	}
	if !imageRef.MatchString(image) {
		return fmt.Errorf("sandbox.bad_image: image: %q is not an image reference (name[:tag][@digest], starting with a letter or digit); the engine would read it as something else, so it is refused", image)
	}
	env, err := imageEnv(ctx, rt, image)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return fmt.Errorf("sandbox.self: cannot find this program's own path, which runs as the container's first process: %v", err)
	}
	kf, err := findKeeperFiles(self)
	if err != nil {
		return err
	}
	// Beside $HOME, inside the workspace's bound: the folder is bound into
	// the container (a socket is reached by its path), and what a command
	// writes there counts against the bound like the rest.
	dir := filepath.Join(filepath.Dir(s.Home), "control")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("sandbox.control: %v", err)
	}
	if err := bindablePaths(rt, append([]string{s.Workspace, s.Home, s.Tmp, dir}, kf.sources()...)); err != nil {
		return err
	}
	c := &container{rt: rt, image: image, imageEnv: env, user: containerUser(rt), ctlDir: dir, keeper: kf}
	if rt.Name == "docker" && s.bound == 0 && os.Geteuid() == 0 {
		if err := s.ownMounts(); err != nil {
			return err
		}
		if c.selfBinds, err = noSUIDSelfBinds(s.Workspace, filepath.Dir(s.Home)); err != nil {
			return err
		}
	}
	s.iso = &isolation{ctr: c, proxy: p}
	if _, err := s.iso.keeper(s); err != nil {
		s.iso.close()
		s.iso = nil
		return err
	}
	return nil
}

// commandDir is the commands' working directory as they see it.
func (s *Sandbox) commandDir() string {
	if s.iso != nil && s.iso.ctr != nil {
		return ContainerWorkspace
	}
	return s.Workspace
}

// Image is the image the commands run in, or "" off the container backend.
func (s *Sandbox) Image() string {
	if s.iso == nil || s.iso.ctr == nil {
		return ""
	}
	return s.iso.ctr.image
}

// noSUIDSelfBinds makes each folder a nosuid, nodev bind of itself on the
// host, so that Docker's bind of it is one too: its --volume has no such
// option, and a bind keeps the flags of the mount it is made from. Without
// it, a command running as the container's root, who is the host's root
// under a rootful engine driven by root, could leave a set-user-ID root
// program on the host's disk. (A bounded workspace is a nosuid tmpfs
// already; without root, the commands run as the harness's own user.)
func noSUIDSelfBinds(dirs ...string) ([]string, error) {
	var done []string
	for _, d := range dirs {
		err := syscall.Mount(d, d, "", syscall.MS_BIND, "")
		if err == nil {
			done = append(done, d)
			err = syscall.Mount("", d, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_NOSUID|syscall.MS_NODEV, "")
		}
		if err != nil {
			unmountAll(done)
			return nil, fmt.Errorf("sandbox.workspace_mount: cannot make %s a nosuid bind of itself for Docker: %v; give the workspace a bound (--workspace-size) or use Podman", d, err)
		}
	}
	return done, nil
}

func unmountAll(dirs []string) {
	for _, d := range dirs {
		syscall.Unmount(d, syscall.MNT_DETACH)
	}
}

// imageRef is what an image reference may look like: it reaches the
// engine's command line, so it must never read as a flag (a task file is
// untrusted: image: --privileged).
var imageRef = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:@+-]{0,254}$`)

// containerUser is who the commands run as: the container's root where
// that is the harness's user (a rootless engine) or the harness is root;
// else the harness's user, so that what the commands write stays its own.
func containerUser(rt *Runtime) string {
	if rt.Rootless || os.Geteuid() == 0 {
		return "0:0"
	}
	return fmt.Sprintf("%d:%d", os.Geteuid(), os.Getegid())
}

// imageEnv reads the image's environment, pulling it first if it is not on
// the machine.
func imageEnv(ctx context.Context, rt *Runtime, image string) ([]string, error) {
	inspect := func() ([]byte, error) {
		c, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		return exec.CommandContext(c, rt.Path, "image", "inspect", "--format", "{{json .Config.Env}}", image).CombinedOutput()
	}
	out, err := inspect()
	if err != nil {
		c, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		if pout, perr := exec.CommandContext(c, rt.Path, "pull", image).CombinedOutput(); perr != nil {
			return nil, pullFailed(rt.Name, image, lastLine(string(pout), perr))
		}
		if out, err = inspect(); err != nil {
			return nil, fmt.Errorf("sandbox.image_unavailable: %s cannot inspect image %s: %s", rt.Name, image, lastLine(string(out), err))
		}
	}
	var env []string
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(out))), &env); err != nil {
		return nil, fmt.Errorf("sandbox.image_unavailable: %s's answer about image %s is not a list of variables: %v", rt.Name, image, err)
	}
	return env, nil
}

// pullFailed says what is true when an engine that answers cannot get an
// image (it is installed; the image is absent; why the pull failed) and
// the ways on: bring the image over, a mirror, another image, or the
// sandbox backend with its caveat.
func pullFailed(engine, image, why string) error {
	return &errs.Error{Code: "sandbox.image_unavailable", Path: "image",
		Message: fmt.Sprintf("%s is installed and answers, but image %s is not on this machine and %s pull failed: %s", engine, image, engine, why),
		Hint: fmt.Sprintf("bring the image here (%[1]s pull %[2]s where a registry answers, %[1]s save -o image.tar %[2]s, then %[1]s load -i image.tar on this machine), "+
			"or point %[1]s at a registry mirror it can reach (registries.conf), or name an image it has (image: or --image); "+
			"--backend sandbox runs the task without its image, on this machine's own toolchain, which may not be the image's", engine, image)}
}

// imagePath is the PATH of an image that sets none (Debian's default).
const imagePath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// commandEnv is the commands' environment in the container: the image's
// own (its PATH, its toolchain's variables), then the sandbox backend's
// HOME, TMPDIR, TERM and NO_COLOR, then extra.
func (c *container) commandEnv(s *Sandbox, extra []string) []string {
	env := []string{"PATH=" + imagePath, "LANG=C.UTF-8"}
	env = append(env, c.imageEnv...)
	env = append(env, "HOME="+s.Home, "TMPDIR="+s.Tmp, "TERM=dumb", "NO_COLOR=1")
	return dedupEnv(append(env, extra...))
}

// keeperFiles is how the container runs this program: the files to bind
// read-only (host path -> container path) and the command.
type keeperFiles struct {
	binds [][2]string
	entry []string
}

// sources are the host's files the keeper needs bound.
func (kf keeperFiles) sources() []string {
	var paths []string
	for _, b := range kf.binds {
		paths = append(paths, b[0])
	}
	return paths
}

// bindablePaths refuses a folder or file whose path the engine's --volume
// would split (it separates source, target and options with colons), with
// what to do instead of the engine's own puzzling refusal.
func bindablePaths(rt *Runtime, paths []string) error {
	for _, p := range paths {
		if strings.ContainsRune(p, ':') {
			return fmt.Errorf("sandbox.unbindable_path: %s cannot bind %q into a container: its --volume reads a colon as a separator; move it to a path without one (a workspace given with --sandbox, or this program's own path), or use --backend sandbox", rt.Name, p)
		}
	}
	return nil
}

// keeperDir is where the keeper's files appear inside the container.
const keeperDir = "/.tabwright"

// findKeeperFiles binds self, and for a dynamically linked self the host's
// loader and the libraries it resolves, which then start it.
func findKeeperFiles(self string) (keeperFiles, error) {
	kf := keeperFiles{binds: [][2]string{{self, keeperDir + "/keeper"}}, entry: []string{keeperDir + "/keeper"}}
	f, err := elf.Open(self)
	if err != nil {
		return kf, fmt.Errorf("sandbox.self: cannot read this program (%s) to run it in a container: %v", self, err)
	}
	defer f.Close()
	interp := ""
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err == nil {
				interp = strings.TrimRight(string(b), "\x00")
			}
		}
	}
	if interp == "" {
		return kf, nil // static
	}
	out, err := exec.Command(interp, "--list", self).CombinedOutput()
	if err != nil {
		return kf, fmt.Errorf("sandbox.self: this program is dynamically linked and its loader %s cannot list its libraries (%s); build it with CGO_ENABLED=0", interp, lastLine(string(out), err))
	}
	real, err := filepath.EvalSymlinks(interp)
	if err != nil {
		return kf, fmt.Errorf("sandbox.self: %v", err)
	}
	kf.binds = append(kf.binds, [2]string{real, keeperDir + "/ld.so"})
	for _, lib := range listedLibraries(string(out)) {
		real, err := filepath.EvalSymlinks(lib[1])
		if err != nil {
			return kf, fmt.Errorf("sandbox.self: library %s: %v", lib[1], err)
		}
		kf.binds = append(kf.binds, [2]string{real, keeperDir + "/lib/" + lib[0]})
	}
	kf.entry = []string{keeperDir + "/ld.so", "--library-path", keeperDir + "/lib", keeperDir + "/keeper"}
	return kf, nil
}

var listedLibrary = regexp.MustCompile(`^\s*(\S+) => (/\S+) \(0x[0-9a-f]+\)$`)

// listedLibraries reads `ld.so --list`: each needed library's name and
// where the loader found it.
func listedLibraries(list string) [][2]string {
	var libs [][2]string
	for _, line := range strings.Split(list, "\n") {
		if m := listedLibrary.FindStringSubmatch(line); m != nil && !strings.ContainsRune(m[1], '/') {
			libs = append(libs, [2]string{m[1], m[2]})
		}
	}
	return libs
}

// containerStartTimeout bounds one container's start, the image being on
// the machine already.
const containerStartTimeout = 60 * time.Second

// startContainer starts the container with the keeper as its first
// process and waits for it to connect. A start the engine refuses for a
// reason this machine imposes (limits it may not raise, an OCI runtime that
// cannot work with its cgroups) is retried with the flags that work around
// it; those are kept for the process's later containers.
func startContainer(iso *isolation, s *Sandbox) (*keeperConn, error) {
	c := iso.ctr
	sock := filepath.Join(c.ctlDir, "control.sock")
	os.Remove(sock)
	ln, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: sock, Net: "unixpacket"})
	if err != nil {
		return nil, fmt.Errorf("sandbox.control: cannot listen on %s: %v", sock, err)
	}
	defer os.Remove(sock)
	defer ln.Close()
	mode := "nonet"
	if iso.proxy != nil {
		mode = "net"
	}
	for tries := 0; ; tries++ {
		fix := startFixes.get(c.rt)
		k, refused, err := c.launch(s, iso, ln, sock, mode, fix)
		if err == nil {
			return k.handshake(iso, containerStartTimeout, func() string {
				return "run `tabwright doctor` to see whether the container runtime works here"
			})
		}
		if tries < maxStartFixes {
			if next, ok := fix.learn(refused, c.rt); ok {
				startFixes.set(c.rt, next)
				continue
			}
		}
		return nil, err
	}
}

// maxStartFixes bounds the retries of one start.
const maxStartFixes = 12

// launch runs the container and waits for the keeper to connect; refused
// is what the engine said when it exited first.
func (c *container) launch(s *Sandbox, iso *isolation, ln *net.UnixListener, sock, mode string, fix startFix) (*keeperConn, string, error) {
	name := "tabwright-qs-" + randomHex(6)
	args := c.runArgs(s, iso, name, sock, mode, fix)
	k := &keeperConn{stderr: &syncBuffer{}, exited: make(chan struct{}), waits: map[uint64]chan ctlReply{}, done: make(chan struct{})}
	k.cmd = exec.Command(c.rt.Path, args...)
	k.cmd.Stdout, k.cmd.Stderr = k.stderr, k.stderr
	k.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := k.cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("sandbox.start: cannot start %s: %v", c.rt.Path, err)
	}
	go func() { k.cmd.Wait(); close(k.exited) }()
	var once sync.Once
	k.removed = func() {
		once.Do(func() { exec.Command(c.rt.Path, "rm", "-f", name).Run() })
	}
	accepted := make(chan *net.UnixConn, 1)
	go func() {
		conn, err := ln.AcceptUnix()
		if err != nil {
			conn = nil
		}
		accepted <- conn
	}()
	fail := func(msg string) (*keeperConn, string, error) {
		ln.SetDeadline(time.Now()) // ends the Accept above
		if conn := <-accepted; conn != nil {
			conn.Close()
		}
		ln.SetDeadline(time.Time{})
		k.ctl = nil
		syscall.Kill(-k.cmd.Process.Pid, syscall.SIGKILL)
		<-k.exited
		k.removed()
		return nil, k.stderr.String(), fmt.Errorf("sandbox.container_start: %s could not start image %s: %s; run `tabwright doctor`", c.rt.Name, c.image, msg)
	}
	select {
	case conn := <-accepted:
		if conn == nil {
			return fail("the control socket failed")
		}
		k.ctl = conn
		return k, "", nil
	case <-k.exited:
		return fail(strings.TrimSpace(k.stderr.String()) + " (" + k.cmd.ProcessState.String() + ")")
	case <-time.After(containerStartTimeout):
		return fail(fmt.Sprintf("its first process did not connect within %s: %s", containerStartTimeout, strings.TrimSpace(k.stderr.String())))
	}
}

// runArgs is the engine's command line for one container.
func (c *container) runArgs(s *Sandbox, iso *isolation, name, sock, mode string, fix startFix) []string {
	a := []string{"run", "--rm", "--name", name, "--pull", "never", "--network", "none",
		"--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--user", c.user,
		"--workdir", ContainerWorkspace}
	// Podman can bind without set-user-ID and device files (a command
	// running as root inside must not leave a set-user-ID root program on
	// the host); Docker's -v cannot, so its folders are nosuid and nodev
	// mounts on the host already (the bounded workspace's tmpfs, or
	// noSUIDSelfBinds).
	opts := ""
	if c.rt.Name == "podman" {
		opts = ":nosuid,nodev"
	}
	for _, d := range []string{s.Workspace, s.Home, s.Tmp} {
		a = append(a, "--volume", d+":"+d+opts)
	}
	// /tmp and /var/tmp inside the workspace's bound, as under bubblewrap;
	// /run stays the image's own.
	for _, m := range privateMounts(s.supportDir()) {
		if m[1] != "/run" {
			a = append(a, "--volume", m[0]+":"+m[1]+opts)
		}
	}
	a = append(a, "--volume", s.Workspace+":"+ContainerWorkspace+opts)
	a = append(a, "--volume", c.ctlDir+":"+keeperDir+"/control"+opts)
	for _, b := range c.keeper.binds {
		a = append(a, "--volume", b[0]+":"+b[1]+":ro")
	}
	a = append(a, fix.flags()...)
	a = append(a, "--entrypoint", c.keeper.entry[0], c.image)
	a = append(a, c.keeper.entry[1:]...)
	return append(a, keeperArg, mode, keeperDir+"/control/"+filepath.Base(sock))
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// FindRuntimeNamed is FindRuntime for one engine name or path, not cached.
func FindRuntimeNamed(ctx context.Context, name string) (*Runtime, string) {
	return findRuntime(ctx, []string{name})
}
