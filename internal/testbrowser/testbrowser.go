// Package testbrowser starts a headless Chromium with a DevTools port, as a
// user would start the browser tabwright attaches to, with or without our
// extension loaded. It is used only by tests of attach mode.
//
// It imports nothing of tabwright's, so that engine/launch's own in-package
// tests can use it: callers pass the browser binary (launch.FindHeadless).
package testbrowser

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Browser is a running Chromium with a DevTools port, in a process group and
// with a profile directory of its own.
type Browser struct {
	Port    string // the DevTools port, e.g. "9222"
	HTTPURL string // http://127.0.0.1:PORT
	WSURL   string // ws://127.0.0.1:PORT/devtools/browser/ID

	cmd    *exec.Cmd
	dir    string
	stderr *os.File
	exited chan struct{}
	once   sync.Once

	tailMu sync.Mutex
	tail   []string // the last lines of the browser's stderr
}

// Start starts the browser at path with --remote-debugging-port=port ("0" for
// any free port) and returns once it listens there. The browser is killed if
// the test binary dies; otherwise the caller must call Kill.
func Start(path, port string) (*Browser, error) {
	return start(path, port, "--headless")
}

// StartWithExtension starts the full Chromium at path (the headless shell
// cannot load extensions) in its new headless mode, with the unpacked
// extension in extDir loaded and no other, on any free port.
func StartWithExtension(path, extDir string) (*Browser, error) {
	return start(path, "0", "--headless=new", "--load-extension="+extDir, "--disable-extensions-except="+extDir)
}

func start(path, port string, mode ...string) (*Browser, error) {
	dir, err := os.MkdirTemp("", "tabwright-testbrowser-")
	if err != nil {
		return nil, err
	}
	args := append(mode, "--remote-debugging-port="+port, "--user-data-dir="+dir,
		"--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-dev-shm-usage")
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	b, stderr, err := spawn(path, dir, append(args, "about:blank"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	fail := func(format string, args ...any) (*Browser, error) {
		b.Kill()
		b.tailMu.Lock()
		defer b.tailMu.Unlock()
		return nil, fmt.Errorf(format+"; browser output:\n%s", append(args, strings.Join(b.tail, "\n"))...)
	}
	select {
	case ok := <-b.watchStderr(stderr):
		if !ok {
			return fail("the browser exited before opening its DevTools port")
		}
	case <-time.After(15 * time.Second):
		return fail("the browser did not open its DevTools port within 15s")
	}
	lines, err := readActivePort(dir)
	if err != nil {
		return fail("%v", err)
	}
	b.Port = strings.TrimSpace(lines[0])
	if port != "0" && b.Port != port {
		return fail("the browser listens on %s, asked for %s", b.Port, port)
	}
	b.HTTPURL = "http://127.0.0.1:" + b.Port
	b.WSURL = "ws://127.0.0.1:" + b.Port + strings.TrimSpace(lines[1])
	return b, nil
}

// spawn starts the browser in its own process group, its stderr on a pipe.
func spawn(path, dir string, args []string) (*Browser, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Stderr = w
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, nil, fmt.Errorf("starting %s: %w", path, err)
	}
	w.Close()
	b := &Browser{cmd: cmd, dir: dir, stderr: r, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(b.exited) }()
	return b, r, nil
}

// watchStderr keeps the last lines of the browser's stderr and says on the
// channel whether it announced its DevTools port: it prints "DevTools
// listening on ws://…" once it wrote DevToolsActivePort; its stderr ending
// first means it died.
func (b *Browser) watchStderr(r *os.File) <-chan bool {
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(r)
		announced := false
		for sc.Scan() {
			line := sc.Text()
			b.tailMu.Lock()
			b.tail = append(b.tail, line)
			if len(b.tail) > 20 {
				b.tail = b.tail[1:]
			}
			b.tailMu.Unlock()
			if !announced && strings.HasPrefix(line, "DevTools listening on ") {
				announced = true
				listening <- true
			}
		}
		if !announced {
			listening <- false
		}
	}()
	return listening
}

// readActivePort reads DevToolsActivePort: the port on the first line, the
// browser's WebSocket path on the second. It is written before the
// announcement; the short retry only guards against a browser that
// reorders the two.
func readActivePort(dir string) ([]string, error) {
	var data []byte
	var err error
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		data, err = os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
		if err == nil && strings.Contains(string(data), "\n") || time.Now().After(deadline) {
			break
		}
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 2 || !strings.HasPrefix(strings.TrimSpace(lines[1]), "/devtools/browser/") {
		return nil, fmt.Errorf("DevToolsActivePort: %q %v", data, err)
	}
	return lines, nil
}

// Pid is the browser's process id, which is also its process group's.
func (b *Browser) Pid() int { return b.cmd.Process.Pid }

// Exited is closed once the browser process has exited.
func (b *Browser) Exited() <-chan struct{} { return b.exited }

// Kill kills the browser's process group, waits for the browser to exit and
// removes its profile. Calling it again does nothing.
func (b *Browser) Kill() {
	b.once.Do(func() {
		killTree(b.cmd)
		<-b.exited
		b.stderr.Close()
		os.RemoveAll(b.dir)
	})
}
