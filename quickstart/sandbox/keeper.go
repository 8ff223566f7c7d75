package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The keeper: the sandbox's PID 1 (see isolated.go). It runs this binary
// inside bwrap, so it must do nothing at start but what it needs: the hook
// below runs before main, and the keeper imports nothing heavy itself.

// keeperArg is the hidden first argument that turns any binary linking this
// package into the keeper.
const keeperArg = "__tabwright_qs_keeper"

func init() {
	if len(os.Args) > 1 && os.Args[1] == keeperArg {
		os.Exit(keeperMain(os.Args[2:]))
	}
}

// ctlMsg is one message on the control socket (a SOCK_SEQPACKET pair, so
// each message arrives whole, with the descriptor it carries).
//
//	harness -> keeper: run {id, argv, env, dir} + output fd; kill {id, target}; dial {id, port}
//	keeper -> harness: hello {addr [, error]} + listener fd; exit {id, code [, error]};
//	                   killed {id}; dialed {id [, error]} + connected fd
type ctlMsg struct {
	Op     string   `json:"op"`
	ID     uint64   `json:"id,omitempty"`
	Target uint64   `json:"target,omitempty"`
	Argv   []string `json:"argv,omitempty"`
	Env    []string `json:"env,omitempty"`
	Dir    string   `json:"dir,omitempty"`
	Port   int      `json:"port,omitempty"`
	Addr   string   `json:"addr,omitempty"`
	Code   int      `json:"code,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// maxCtl bounds one control message (a command and its environment); the
// kernel's own bound on one exec argument is 128 KiB.
const maxCtl = 192 << 10

func sendCtl(c *net.UnixConn, m ctlMsg, f *os.File) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if len(b) > maxCtl {
		return fmt.Errorf("sandbox.command_too_large: the command and its environment are %d bytes, more than %d; write long scripts to a file in the workspace and run that", len(b), maxCtl)
	}
	var oob []byte
	if f != nil {
		oob = syscall.UnixRights(int(f.Fd()))
	}
	_, _, err = c.WriteMsgUnix(b, oob, nil)
	return err
}

func recvCtl(c *net.UnixConn) (ctlMsg, *os.File, error) {
	var m ctlMsg
	buf := make([]byte, maxCtl+1024)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	n, oobn, flags, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return m, nil, err
	}
	if n == 0 {
		return m, nil, errors.New("control socket closed")
	}
	var f *os.File
	if oobn > 0 {
		if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, cm := range msgs {
				fds, err := syscall.ParseUnixRights(&cm)
				if err != nil {
					continue
				}
				for _, fd := range fds {
					syscall.CloseOnExec(fd)
					if f == nil {
						f = os.NewFile(uintptr(fd), "passed")
					} else {
						syscall.Close(fd)
					}
				}
			}
		}
	}
	if flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) != 0 {
		if f != nil {
			f.Close()
		}
		return m, nil, fmt.Errorf("control message truncated")
	}
	if err := json.Unmarshal(buf[:n], &m); err != nil {
		if f != nil {
			f.Close()
		}
		return m, nil, err
	}
	return m, f, nil
}

type keeper struct {
	ctl  *net.UnixConn
	null *os.File

	mu  sync.Mutex
	cur uint64 // the running command's id, 0 when none
}

func keeperMain(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "tabwright sandbox keeper: "+format+"\n", a...)
		return 125
	}
	if len(args) != 1 || (args[0] != "net" && args[0] != "nonet") {
		return fail("usage: %s net|nonet (the harness starts this, with its control socket on fd 3)", keeperArg)
	}
	// Descriptors the harness inherited from whoever started it pass through
	// bwrap; none of them may reach a command.
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		for _, e := range ents {
			var fd int
			if _, err := fmt.Sscan(e.Name(), &fd); err == nil && fd > 2 {
				syscall.CloseOnExec(fd)
			}
		}
	}
	f := os.NewFile(3, "control")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return fail("no control socket on fd 3: %v", err)
	}
	k := &keeper{ctl: c.(*net.UnixConn)}
	// Every signal is caught and dropped: from inside the namespace only a
	// signal with a handler reaches PID 1, so commands cannot stop the keeper.
	// Caught (not ignored) signals are reset to their defaults in children.
	signal.Notify(make(chan os.Signal, 1))
	hello := ctlMsg{Op: "hello"}
	if os.Getpid() != 1 {
		hello.Error = fmt.Sprintf("sandbox.keeper_pid: the keeper is process %d, not 1, in its PID namespace; this bwrap does not honour --as-pid-1", os.Getpid())
		sendCtl(k.ctl, hello, nil)
		return 125
	}
	if k.null, err = os.OpenFile(os.DevNull, os.O_RDWR, 0); err != nil {
		hello.Error = "sandbox.keeper_devnull: " + err.Error()
		sendCtl(k.ctl, hello, nil)
		return 125
	}
	var lnFile *os.File
	if args[0] == "net" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			hello.Error = "sandbox.keeper_listen: the proxy's loopback port inside the sandbox: " + err.Error()
			sendCtl(k.ctl, hello, nil)
			return 125
		}
		hello.Addr = ln.Addr().String()
		lnFile, err = ln.(*net.TCPListener).File()
		ln.Close()
		if err != nil {
			hello.Error = "sandbox.keeper_listen: " + err.Error()
			sendCtl(k.ctl, hello, nil)
			return 125
		}
	}
	err = sendCtl(k.ctl, hello, lnFile)
	if lnFile != nil {
		lnFile.Close()
	}
	if err != nil {
		return fail("cannot reach the harness: %v", err)
	}
	for {
		m, f, err := recvCtl(k.ctl)
		if err != nil {
			// The harness closed the sandbox (or died): end everything.
			syscall.Kill(-1, syscall.SIGKILL)
			return 0
		}
		switch m.Op {
		case "run":
			go k.run(m, f)
		case "kill":
			k.kill(m.Target)
			sendCtl(k.ctl, ctlMsg{Op: "killed", ID: m.ID}, nil)
		case "dial":
			go k.dial(m)
		default:
			if f != nil {
				f.Close()
			}
			sendCtl(k.ctl, ctlMsg{Op: "error", ID: m.ID, Error: "unknown op " + m.Op}, nil)
		}
	}
}

// run forks the command, waits for it, then kills and reaps every other
// process in the namespace before reporting the exit code.
func (k *keeper) run(m ctlMsg, out *os.File) {
	reply := ctlMsg{Op: "exit", ID: m.ID}
	defer func() { sendCtl(k.ctl, reply, nil) }()
	if out == nil || len(m.Argv) == 0 {
		reply.Error = "sandbox.keeper_request: a run request needs argv and an output descriptor"
		return
	}
	defer out.Close()
	path, err := lookPathIn(m.Argv[0], m.Env)
	if err != nil {
		reply.Error = err.Error()
		fmt.Fprintf(out, "cannot run %s: %v\n", m.Argv[0], err)
		return
	}
	k.mu.Lock()
	if k.cur != 0 {
		k.mu.Unlock()
		reply.Error = "sandbox.keeper_busy: another command is running"
		return
	}
	pid, err := syscall.ForkExec(path, m.Argv, &syscall.ProcAttr{Dir: m.Dir, Env: m.Env,
		Files: []uintptr{k.null.Fd(), out.Fd(), out.Fd()}, Sys: &syscall.SysProcAttr{Setsid: true}})
	if err != nil {
		k.mu.Unlock()
		reply.Error = err.Error()
		fmt.Fprintf(out, "cannot run %s: %v\n", m.Argv[0], err)
		return
	}
	k.cur = m.ID
	k.mu.Unlock()
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			reply.Error = "wait: " + err.Error()
			break
		}
		if wpid == pid {
			switch {
			case ws.Exited():
				reply.Code = ws.ExitStatus()
			case ws.Signaled():
				reply.Code = 128 + int(ws.Signal())
			}
			break
		}
		// An orphan the command left, reparented here: reaped.
	}
	k.mu.Lock()
	k.cur = 0
	syscall.Kill(-1, syscall.SIGKILL)
	k.mu.Unlock()
	reapAll()
}

// reapAll waits for every child until none is left (after kill(-1)).
func reapAll() {
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // ECHILD: nothing left
			return
		}
	}
}

// kill ends the command target and everything else in the namespace; the
// command's run reports its exit.
func (k *keeper) kill(target uint64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cur != 0 && k.cur == target {
		syscall.Kill(-1, syscall.SIGKILL)
	}
}

func (k *keeper) dial(m ctlMsg) {
	reply := ctlMsg{Op: "dialed", ID: m.ID}
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", m.Port), 10*time.Second)
	if err != nil {
		reply.Error = err.Error()
		sendCtl(k.ctl, reply, nil)
		return
	}
	f, err := c.(*net.TCPConn).File()
	c.Close()
	if err != nil {
		reply.Error = err.Error()
		sendCtl(k.ctl, reply, nil)
		return
	}
	defer f.Close()
	sendCtl(k.ctl, reply, f)
}

// lookPathIn finds file on the PATH in env (not the keeper's own).
func lookPathIn(file string, env []string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil
	}
	path := "/usr/bin:/bin"
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			path = kv[5:]
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, file)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH %s", file, path)
}
