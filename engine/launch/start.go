package launch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/claimlock"
	"github.com/tabwright/tabwright/engine/errs"
)

// Options configure a managed browser.
type Options struct {
	Exec    string   // browser executable (--executable-path); empty: Browser, else discovery
	Browser string   // a channel of Channels (--browser); empty: the first one installed
	Headful bool     // show a window instead of running headless
	Args    []string // extra command-line flags

	// StartupTab has the browser open its first tab on about:blank as it
	// starts, its renderer starting alongside the browser's own start,
	// instead of starting with no tab.
	StartupTab bool

	// ProfileIn is the directory the throwaway profile is made in; "" is
	// the system's temporary directory.
	ProfileIn string

	// UserDataDir, when set, is a profile kept across runs (logins,
	// cookies, storage): made if missing, never removed, and closed
	// gracefully so that the browser writes what it holds in memory.
	UserDataDir string

	// Transport is how the browser is reached: TransportPipe or
	// TransportPort; "" is DefaultTransport(runtime.GOOS).
	Transport string
}

// The transports a managed browser is reached over.
const (
	TransportPipe = "pipe" // --remote-debugging-pipe, commands on fd 3, replies on fd 4
	TransportPort = "port" // --remote-debugging-port=0 on loopback, the port read from DevToolsActivePort
)

// DefaultTransport is the transport a managed browser uses on goos: the
// pipe where a child inherits extra descriptors (Unix), the loopback port
// where os/exec cannot pass them (Windows).
func DefaultTransport(goos string) string {
	if goos == "windows" {
		return TransportPort
	}
	return TransportPipe
}

// baseFlags keep a headless browser quiet, offline from Google services and
// fast to start. The background-networking flags matter on closed networks,
// where Chromium otherwise retries refused connections at every start.
var baseFlags = []string{
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--no-default-browser-check",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-crash-reporter",
	"--disable-breakpad",
	"--disable-dev-shm-usage",
	"--password-store=basic",
	"--use-mock-keychain",
	"--mute-audio",
	"--hide-scrollbars",
	// RenderDocument swaps in a new frame host on every cross-document
	// navigation; without it a warm navigation of a small page took 30 ms
	// instead of 44 ms here. Pages cannot tell the difference.
	"--disable-features=Translate,MediaRouter,OptimizationHints,RenderDocument",
	// WebMCP lets pages offer tools to agents (browser_page_tool). A
	// switch of its own: Chromium reads --enable-features and
	// --disable-features apart, the last of each on the command line.
	"--enable-features=WebMCP",
}

// Browser is a Chromium process this program started and owns.
type Browser struct {
	Conn    *cdp.Conn
	Path    string
	Version string // product, e.g. "Chrome/156.0.8078.114"
	Headful bool

	cmd     *exec.Cmd
	tree    procTree
	dataDir string
	profile *claimlock.Lock // held on a profile of the user's (Options.UserDataDir); nil for a throwaway one
	exited  chan struct{}
	stderr  *tailBuffer
	once    sync.Once
}

// Start launches a browser and connects to it over DevTools. Its whole
// process tree ends with Close, and with this process however it ends where
// the OS allows (proc_*.go): it never outlives us.
func Start(ctx context.Context, opt Options) (*Browser, error) {
	path, err := Resolve(opt)
	if err != nil {
		return nil, err
	}
	dataDir, profileLock, err := profileDir(opt)
	if err != nil {
		return nil, err
	}
	removeDir := func() {
		if profileLock == nil {
			os.RemoveAll(dataDir)
		}
		profileLock.Release()
	}
	args := append([]string{}, baseFlags...)
	args = append(args, "--user-data-dir="+dataDir)
	if !opt.Headful {
		args = append(args, "--headless")
	}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox") // Chromium refuses to run its sandbox as root
	}
	args = append(args, opt.Args...)
	if opt.StartupTab {
		args = append(args, "about:blank") // the URL comes last, after every flag
	} else {
		args = append(args, "--no-startup-window")
	}

	transport := opt.Transport
	if transport == "" {
		transport = DefaultTransport(runtime.GOOS)
	}
	var pipe *pipeEnds
	switch transport {
	case TransportPipe:
		if pipe, err = newPipeEnds(); err != nil {
			removeDir()
			return nil, errs.Wrap(errs.BrowserUnavailable, err, "creating the DevTools pipe")
		}
		args = append([]string{"--remote-debugging-pipe"}, args...)
	case TransportPort:
		// Port 0: the browser picks a free port and writes it to
		// DevToolsActivePort; it listens on 127.0.0.1 unless told otherwise.
		args = append([]string{"--remote-debugging-port=0"}, args...)
	default:
		removeDir()
		return nil, errs.Input("transport", "transport %q is not one of %s, %s", transport, TransportPipe, TransportPort)
	}

	cmd := exec.Command(path, args...)
	tail := &tailBuffer{max: 8 << 10}
	cmd.Stdout = tail
	cmd.Stderr = tail
	cmd.SysProcAttr = procAttr()
	if pipe != nil {
		cmd.ExtraFiles = pipe.childEnds()
	}
	tree, err := startTree(cmd)
	if pipe != nil {
		pipe.closeChildEnds()
	}
	if err != nil {
		if pipe != nil {
			pipe.closeOurEnds()
		}
		removeDir()
		return nil, errs.Wrap(errs.BrowserUnavailable, err, "starting "+path).WithHint("%s", installHint(runtime.GOOS))
	}

	b := &Browser{
		Path:    path,
		Headful: opt.Headful,
		cmd:     cmd,
		tree:    tree,
		dataDir: dataDir,
		profile: profileLock,
		exited:  make(chan struct{}),
		stderr:  tail,
	}
	go func() {
		cmd.Wait()
		close(b.exited)
	}()

	var t cdp.Transport
	if pipe != nil {
		t = cdp.NewPipe(pipe.toBrowser, pipe.fromBrowser)
	} else if t, err = dialActivePort(ctx, dataDir, b.exited); err != nil {
		b.Close()
		return nil, errs.Wrap(errs.BrowserUnavailable, b.withOutput(err), "the browser started but its DevTools port could not be reached")
	}
	b.Conn = cdp.New(t)
	go func() {
		<-b.exited
		b.Conn.Close()
	}()

	ver, err := cdproto.Call(ctx, b.Conn.Browser(), browser.GetVersion, cdproto.Empty{})
	if err != nil {
		b.Close()
		return nil, errs.Wrap(errs.BrowserUnavailable, b.withOutput(err), "the browser started but did not answer on DevTools ("+transport+")")
	}
	b.Version = ver.Product
	return b, nil
}

// Exited closes when the browser process has ended.
func (b *Browser) Exited() <-chan struct{} { return b.exited }

// Pid returns the browser's process id.
func (b *Browser) Pid() int { return b.cmd.Process.Pid }

// DataDir returns the throwaway profile directory.
func (b *Browser) DataDir() string { return b.dataDir }

// withOutput adds the last lines the browser printed to err.
func (b *Browser) withOutput(err error) error {
	if msg := strings.TrimSpace(b.stderr.String()); msg != "" {
		return fmt.Errorf("%w; browser output: %s", err, lastLines(msg, 5))
	}
	return err
}

// Close kills the browser's whole process tree, waits for it and removes
// its profile directory.
func (b *Browser) Close() error {
	b.once.Do(func() {
		if b.profile != nil {
			b.closeGracefully()
		}
		if b.Conn != nil {
			b.Conn.Close()
		}
		b.tree.kill()
		select {
		case <-b.exited:
		case <-time.After(5 * time.Second):
		}
		if b.profile == nil {
			os.RemoveAll(b.dataDir)
		}
		b.profile.Release()
	})
	return nil
}

// sweepStaleDataDirs removes the profile directories in parent ("" is the
// system's temporary directory) left by a process of ours that was killed
// before it could clean up.
func sweepStaleDataDirs(parent string) {
	if parent == "" {
		parent = os.TempDir()
	}
	matches, _ := filepath.Glob(filepath.Join(parent, "tabwright-*-*"))
	for _, dir := range matches {
		parts := strings.SplitN(filepath.Base(dir), "-", 3)
		pid, err := strconv.Atoi(parts[1])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if processAlive(pid) {
			continue // its owner still runs
		}
		os.RemoveAll(dir)
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
