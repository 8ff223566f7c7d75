//go:build linux

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
	if len(os.Args) > 1 && os.Args[1] == limitArg {
		os.Exit(limitMain(os.Args[2:]))
	}
}

// ctlMsg is one message on the control socket (a SOCK_SEQPACKET pair, so
// each message arrives whole, with the descriptor it carries).
//
//	harness -> keeper: run {id, argv, env, dir, kill_group} + output fd; kill {id, target}; dial {id, port}
//	keeper -> harness: hello {addr [, error]} + listener fd; exit {id, code, tasks [, error]};
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
	// KillGroup: kill the command's process group when it ends (checks).
	KillGroup bool `json:"kill_group,omitempty"`
	// Bound: the processes the command may hold; at it, its process group
	// is killed when it ends, so that the check can still run.
	Bound int `json:"bound,omitempty"`
	// Tasks: the processes and threads the sandbox held when the command
	// ended or was killed, whichever was more (limits.go).
	Tasks int    `json:"tasks,omitempty"`
	Error string `json:"error,omitempty"`
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

	mu   sync.Mutex
	cur  uint64 // the running command's id, 0 when none
	pgid int    // its process group: its pid, as it leads a session of its own
	peak int    // the tasks counted when it was killed
	// reaped is broadcast after each round of the reaper (at least once a
	// second).
	reaped *sync.Cond
	waits  map[int]chan syscall.WaitStatus // the running command's pid, until the reaper has its status
}

func keeperMain(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "tabwright sandbox keeper: "+format+"\n", a...)
		return 125
	}
	if len(args) < 1 || len(args) > 2 || (args[0] != "net" && args[0] != "nonet") {
		return fail("usage: %s net|nonet [SOCKET] (the harness starts this, with its control socket on fd 3 or at SOCKET)", keeperArg)
	}
	closeInherited()
	ctl, err := keeperControl(args[1:])
	if err != nil {
		return fail("%v", err)
	}
	k := &keeper{ctl: ctl, waits: map[int]chan syscall.WaitStatus{}}
	k.reaped = sync.NewCond(&k.mu)
	// Every signal is caught: from inside the namespace only a signal with a
	// handler reaches PID 1, so commands cannot stop the keeper. Caught (not
	// ignored) signals are reset to their defaults in children. SIGCHLD (or
	// any other) wakes the reaper; the rest are dropped.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs)
	go k.reap(sigs)
	hello, lnFile := k.hello(args[0] == "net")
	if hello.Error != "" {
		sendCtl(k.ctl, hello, nil)
		return 125
	}
	err = sendCtl(k.ctl, hello, lnFile)
	if lnFile != nil {
		lnFile.Close()
	}
	if err != nil {
		return fail("cannot reach the harness: %v", err)
	}
	k.serve()
	return 0
}

// closeInherited marks close-on-exec the descriptors the harness inherited
// from whoever started it: they pass through bwrap, and none of them may
// reach a command.
func closeInherited() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		var fd int
		if _, err := fmt.Sscan(e.Name(), &fd); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// hello is the keeper's first message: ready, or (Error set) why it cannot
// be; with network, the listener of the proxy's loopback port inside the
// sandbox goes with it.
func (k *keeper) hello(network bool) (ctlMsg, *os.File) {
	hello := ctlMsg{Op: "hello"}
	if os.Getpid() != 1 {
		hello.Error = fmt.Sprintf("sandbox.keeper_pid: the keeper is process %d, not 1, in its PID namespace; this bwrap does not honour --as-pid-1", os.Getpid())
		return hello, nil
	}
	var err error
	if k.null, err = os.OpenFile(os.DevNull, os.O_RDWR, 0); err != nil {
		hello.Error = "sandbox.keeper_devnull: " + err.Error()
		return hello, nil
	}
	if !network {
		return hello, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		hello.Error = "sandbox.keeper_listen: the proxy's loopback port inside the sandbox: " + err.Error()
		return hello, nil
	}
	hello.Addr = ln.Addr().String()
	lnFile, err := ln.(*net.TCPListener).File()
	ln.Close()
	if err != nil {
		hello.Error = "sandbox.keeper_listen: " + err.Error()
		return hello, nil
	}
	return hello, lnFile
}

// serve answers the harness's requests until it closes the control socket
// (it closed the sandbox, or died); then everything is ended.
func (k *keeper) serve() {
	for {
		m, f, err := recvCtl(k.ctl)
		if err != nil {
			syscall.Kill(-1, syscall.SIGKILL)
			return
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

// keeperControl is the keeper's end of the control socket: fd 3 under
// bubblewrap, or the socket the harness listens on in a folder bound into
// a container (a container cannot inherit a descriptor from the harness).
func keeperControl(socket []string) (*net.UnixConn, error) {
	if len(socket) == 1 {
		c, err := net.DialUnix("unixpacket", nil, &net.UnixAddr{Name: socket[0], Net: "unixpacket"})
		if err != nil {
			return nil, fmt.Errorf("cannot reach the harness's control socket %s: %v", socket[0], err)
		}
		return c, nil
	}
	f := os.NewFile(3, "control")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("no control socket on fd 3: %v", err)
	}
	return c.(*net.UnixConn), nil
}

// run forks the command in a session of its own, waits for it and reports
// its exit code. What it left running in the background lives on, as in a
// person's terminal, until the sandbox closes; with m.KillGroup (checks) its
// process group is killed when it ends.
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
	// Registered before the lock is let go: the reaper, which may already
	// have the status, needs the lock to hand it over.
	exited := make(chan syscall.WaitStatus, 1)
	k.cur, k.pgid, k.waits[pid] = m.ID, pid, exited
	k.mu.Unlock()
	ws := <-exited
	switch {
	case ws.Exited():
		reply.Code = ws.ExitStatus()
	case ws.Signaled():
		reply.Code = 128 + int(ws.Signal())
	}
	k.mu.Lock()
	reply.Tasks = max(countTasks(), k.peak)
	atBound := atProcessBound(reply.Tasks, m.Bound)
	if m.KillGroup || atBound {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	if atBound {
		k.awaitGroupReaped(pid)
	}
	k.cur, k.pgid, k.peak = 0, 0, 0
	k.mu.Unlock()
}

// reap waits for every child of the keeper: commands, and the orphans the
// kernel reparents to PID 1 (a server's workers, daemons). A command's
// status goes to its run; the rest are only reaped. It wakes on any signal
// (SIGCHLD among them), and every second as a backstop.
func (k *keeper) reap(sigs <-chan os.Signal) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-sigs:
		case <-tick.C:
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil || pid <= 0 { // ECHILD, or none exited yet
				break
			}
			k.mu.Lock()
			if ch := k.waits[pid]; ch != nil {
				delete(k.waits, pid)
				ch <- ws
			}
			k.mu.Unlock()
		}
		k.mu.Lock()
		k.reaped.Broadcast()
		k.mu.Unlock()
	}
}

// groupReapWait bounds awaitGroupReaped: a member whose parent outside the
// group never reaps it stays a zombie.
const groupReapWait = 5 * time.Second

// awaitGroupReaped waits (k.mu held) until no process of the killed group
// pgid is left, zombies included: until reaped they still count toward the
// process bound, and the next command (the check) would meet it.
func (k *keeper) awaitGroupReaped(pgid int) {
	deadline := time.Now().Add(groupReapWait)
	for syscall.Kill(-pgid, 0) == nil && time.Now().Before(deadline) {
		k.reaped.Wait()
	}
}

// kill ends the command target's process group (a timeout): its own
// work, not what earlier commands left serving. The command's run reports
// its exit.
func (k *keeper) kill(target uint64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cur != 0 && k.cur == target {
		k.peak = countTasks() // what the kill is about to end
		syscall.Kill(-k.pgid, syscall.SIGKILL)
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
