//go:build linux

package sandbox

// The harness's side of the control socket to a sandbox's keeper:
// handshake, requests and their replies, stop and kill.

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// handshake waits for the keeper's hello (within wait) and serves the
// egress proxy on the listener it made inside; next says what to do when
// the sandbox ended first.
func (k *keeperConn) handshake(iso *isolation, wait time.Duration, next func() string) (*keeperConn, error) {
	hello := make(chan ctlReply, 1)
	go k.readLoop(hello)
	var h ctlReply
	select {
	case h = <-hello:
	case <-k.done:
		k.stop()
		return nil, fmt.Errorf("sandbox.start: the sandbox ended before it was ready: %s; %s", k.why(), next())
	case <-time.After(wait):
		k.stop()
		return nil, fmt.Errorf("sandbox.start: the sandbox was not ready after %s: %s; the machine may be overloaded, retry", wait, k.why())
	}
	if h.m.Error != "" {
		if h.f != nil {
			h.f.Close()
		}
		k.stop()
		return nil, fmt.Errorf("sandbox.start: %s", h.m.Error)
	}
	if iso.proxy != nil {
		if h.f == nil {
			k.stop()
			return nil, fmt.Errorf("sandbox.start: the sandbox sent no proxy listener")
		}
		ln, err := net.FileListener(h.f)
		h.f.Close()
		if err != nil {
			k.stop()
			return nil, fmt.Errorf("sandbox.start: the proxy listener: %v", err)
		}
		k.ln, k.addr = ln, h.m.Addr
		go iso.proxy.Serve(ln)
	}
	return k, nil
}

func (k *keeperConn) why() string {
	msg := strings.TrimSpace(k.stderr.String())
	if msg == "" {
		select {
		case <-k.exited:
			msg = filepath.Base(k.cmd.Path) + " " + k.cmd.ProcessState.String()
		default:
			msg = "no message"
		}
	}
	return msg
}

func (k *keeperConn) readLoop(hello chan<- ctlReply) {
	defer func() {
		k.once.Do(func() { close(k.done) })
	}()
	for {
		m, f, err := recvCtl(k.ctl)
		if err != nil {
			return
		}
		if m.Op == "hello" {
			hello <- ctlReply{m, f}
			continue
		}
		k.mu.Lock()
		ch := k.waits[m.ID]
		delete(k.waits, m.ID)
		k.mu.Unlock()
		if ch == nil {
			if f != nil {
				f.Close()
			}
			continue
		}
		ch <- ctlReply{m, f}
	}
}

func (k *keeperConn) ended() bool {
	select {
	case <-k.done:
		return true
	default:
		return false
	}
}

// request sends m (with f, when not nil) and returns where its reply comes.
func (k *keeperConn) request(m ctlMsg, f *os.File) (uint64, chan ctlReply, error) {
	k.mu.Lock()
	k.next++
	m.ID = k.next
	ch := make(chan ctlReply, 1)
	k.waits[m.ID] = ch
	k.mu.Unlock()
	if err := sendCtl(k.ctl, m, f); err != nil {
		k.mu.Lock()
		delete(k.waits, m.ID)
		k.mu.Unlock()
		return 0, nil, err
	}
	return m.ID, ch, nil
}

// stop ends the sandbox: closing the control socket tells the keeper to
// kill everything and exit; bwrap is killed if it lingers.
func (k *keeperConn) stop() {
	k.ctl.Close()
	if k.ln != nil {
		k.ln.Close()
	}
	select {
	case <-k.exited:
	case <-time.After(3 * time.Second):
		syscall.Kill(-k.cmd.Process.Pid, syscall.SIGKILL)
		<-k.exited
	}
	if k.removed != nil {
		k.removed()
	}
}

// kill ends the sandbox at once.
func (k *keeperConn) kill() {
	syscall.Kill(-k.cmd.Process.Pid, syscall.SIGKILL)
	k.stop()
}

// keeperKillGrace bounds how long a kill may take before the harness ends
// the whole sandbox instead.
const keeperKillGrace = 5 * time.Second

// isoRun is one command's outcome in the sandbox.
type isoRun struct {
	code    int
	stopped bool   // by its timeout or ctx
	note    string // for the output, when the sandbox itself failed
	tasks   int    // the processes and threads the sandbox held at its end
}
