package sandbox

import (
	"context"
	"fmt"
	"io"
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

// The sandbox backend. Each command runs as
//
//	bwrap <namespaces and mounts> -- SELF __tabwright_qs_forward SOCK -- bash -c COMMAND
//
// bwrap gives the command a network namespace with only a loopback
// interface, so nothing it dials leaves the namespace. SELF (this binary,
// bound read-only) listens on an ephemeral loopback port inside and relays
// each connection to SOCK, the Unix socket of the harness's egress proxy,
// bound into the sandbox; it then runs bash with HTTP(S)_PROXY pointing at
// that port. When bash exits the namespace's first process exits and the
// kernel kills whatever is left; on a timeout the harness kills bwrap, which
// ends the namespace the same way (--die-with-parent).

// forwardArg is the hidden first argument that turns any binary linking this
// package into the in-sandbox forwarder.
const forwardArg = "__tabwright_qs_forward"

func init() {
	if len(os.Args) > 1 && os.Args[1] == forwardArg {
		os.Exit(forwardMain(os.Args[2:]))
	}
}

type isolation struct {
	bwrap, self, sock string
	proxy             *egress.Proxy
	ln                net.Listener
	once              sync.Once
}

// NewIsolated makes a fresh sandbox whose commands run under bubblewrap with
// p as their only way out. p may be nil: the commands then have no network
// at all. The proxy is served on a Unix socket in the sandbox's support
// directory and closed with the sandbox.
func NewIsolated(p *egress.Proxy) (*Sandbox, error) {
	s, err := New()
	if err != nil {
		return nil, err
	}
	if err := s.isolate(p); err != nil {
		os.RemoveAll(s.Base)
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
		return fmt.Errorf("sandbox.self: cannot find this program's own path, which runs the in-sandbox forwarder: %v", err)
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		return fmt.Errorf("sandbox.self: %v", err)
	}
	iso := &isolation{bwrap: bw, self: self, proxy: p}
	if p != nil {
		iso.sock = filepath.Join(filepath.Dir(s.Home), "egress.sock")
		if len(iso.sock) > 100 {
			return fmt.Errorf("sandbox.socket_path: %s is too long for a Unix socket (%d bytes, at most 100); set TMPDIR to a shorter directory", iso.sock, len(iso.sock))
		}
		os.Remove(iso.sock)
		ln, err := net.Listen("unix", iso.sock)
		if err != nil {
			return fmt.Errorf("sandbox.socket: cannot listen on %s: %v", iso.sock, err)
		}
		iso.ln = ln
		go p.Serve(ln)
	}
	s.iso = iso
	return nil
}

func (iso *isolation) close() {
	iso.once.Do(func() {
		if iso.proxy != nil {
			iso.proxy.Close()
		}
		if iso.sock != "" {
			os.Remove(iso.sock)
		}
	})
}

// hiddenHomes are the directories replaced by an empty tmpfs: the harness's
// home and every user's.
func hiddenHomes() []string {
	var out []string
	seen := map[string]bool{}
	add := func(d string) {
		d = filepath.Clean(d)
		if d == "/" || d == "." || seen[d] {
			return
		}
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			seen[d] = true
			out = append(out, d)
		}
	}
	if h, err := os.UserHomeDir(); err == nil {
		add(h)
	}
	add("/root")
	add("/home")
	return out
}

// bwrapArgs are the namespaces and mounts; binds are the directories the
// commands may write, each at its own path.
func bwrapArgs(binds []string, roFiles []string, chdir string) []string {
	a := []string{"--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"}
	if st, err := os.Stat("/run"); err == nil && st.IsDir() {
		a = append(a, "--tmpfs", "/run") // daemons' sockets (docker, dbus) stay outside
	}
	for _, h := range hiddenHomes() {
		a = append(a, "--tmpfs", h)
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

func (iso *isolation) command(s *Sandbox, command string) *exec.Cmd {
	binds := []string{s.Workspace, s.Home, s.Tmp}
	if iso.sock != "" {
		binds = append(binds, iso.sock)
	}
	args := bwrapArgs(binds, []string{iso.self}, s.Workspace)
	args = append(args, "--", iso.self, forwardArg, iso.sock, s.inboundSock(), "--", "bash", "-c", command)
	return exec.Command(iso.bwrap, args...)
}

func (s *Sandbox) inboundSock() string { return filepath.Join(s.Tmp, ".qs-inbound.sock") }

// DialInside connects to port on the loopback of the command running now in
// the sandbox (the check's server), for the harness's browser, which cannot
// see that loopback. It fails when no command runs.
func (s *Sandbox) DialInside(port int) (net.Conn, error) {
	if s.iso == nil {
		return net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	}
	c, err := net.Dial("unix", s.inboundSock())
	if err != nil {
		return nil, fmt.Errorf("sandbox.inbound: no command is running to reach port %d inside: %v", port, err)
	}
	if _, err := fmt.Fprintf(c, "%d\n", port); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// forwardMain runs inside the sandbox: SOCK INSOCK -- COMMAND... It relays
// a loopback port to SOCK (when SOCK is not empty) and points the proxy
// variables at it; it relays connections on INSOCK, each preceded by a
// port line, to that loopback port; it runs COMMAND and exits with its
// status.
func forwardMain(args []string) int {
	if len(args) < 4 || args[2] != "--" {
		fmt.Fprintln(os.Stderr, "tabwright sandbox: usage: "+forwardArg+" SOCK INSOCK -- COMMAND...")
		return 125
	}
	sock, insock, argv := args[0], args[1], args[3:]
	if insock != "" {
		os.Remove(insock)
		if ln, err := net.Listen("unix", insock); err == nil {
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					go relayInbound(c)
				}
			}()
		}
	}
	env := os.Environ()
	if sock != "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintf(os.Stderr, "tabwright sandbox: the proxy forwarder cannot listen on loopback: %v\n", err)
			return 125
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go relayUnix(c, sock)
			}
		}()
		proxy := "http://" + ln.Addr().String()
		for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
			env = append(env, k+"="+proxy)
		}
		env = append(env, "NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ee.ExitCode()
		}
		fmt.Fprintf(os.Stderr, "tabwright sandbox: cannot run %s: %v\n", argv[0], err)
		return 127
	}
	return 0
}

func relayInbound(c net.Conn) {
	defer c.Close()
	var line []byte
	b := make([]byte, 1)
	for len(line) < 8 {
		if _, err := c.Read(b); err != nil {
			return
		}
		if b[0] == '\n' {
			break
		}
		line = append(line, b[0])
	}
	t, err := net.Dial("tcp", "127.0.0.1:"+string(line))
	if err != nil {
		return
	}
	defer t.Close()
	done := make(chan struct{}, 2)
	go func() { io.Copy(t, c); t.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
	go func() { io.Copy(c, t); c.(*net.UnixConn).CloseWrite(); done <- struct{}{} }()
	<-done
	<-done
}

func relayUnix(c net.Conn, sock string) {
	defer c.Close()
	u, err := net.Dial("unix", sock)
	if err != nil {
		return
	}
	defer u.Close()
	done := make(chan struct{}, 2)
	go func() { io.Copy(u, c); u.(*net.UnixConn).CloseWrite(); done <- struct{}{} }()
	go func() { io.Copy(c, u); c.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
	<-done
	<-done
}

// Probe reports whether this machine can run the sandbox backend, and why
// not when it cannot: bubblewrap must be on PATH and able to make the
// namespaces and mounts the backend uses.
func Probe(ctx context.Context) (enforceable bool, why string) {
	bw, err := exec.LookPath("bwrap")
	if err != nil {
		return false, "bubblewrap (bwrap) is not on PATH; install it: apt-get install -y bubblewrap"
	}
	if _, err := os.Executable(); err != nil {
		return false, "cannot find this program's own path, which the sandbox runs as its proxy forwarder: " + err.Error()
	}
	dir, err := os.MkdirTemp("", "tabwright-probe-")
	if err != nil {
		return false, "cannot make a temporary directory: " + err.Error()
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	args := append(bwrapArgs([]string{dir}, nil, dir), "--", "sh", "-c", "echo ok > probe && cat probe")
	out, err := exec.CommandContext(ctx, bw, args...).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		msg := strings.TrimSpace(string(out))
		if err != nil {
			msg = strings.TrimSpace(err.Error() + ": " + msg)
		}
		return false, fmt.Sprintf("%s cannot make the sandbox here (%s); unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or run as root)", bw, msg)
	}
	return true, bw + " makes network, PID and mount namespaces here"
}
