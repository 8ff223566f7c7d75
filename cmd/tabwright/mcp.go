package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tabwright/tabwright/engine/batch"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/netgate"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/internal/options"
	"github.com/tabwright/tabwright/mcpserver"
	"github.com/tabwright/tabwright/mcpserver/session"
)

func newManager(b browserFlags) (*tabs.Manager, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	return tabs.New(tabs.Options{Launch: b.launchOptions(), CDPURL: b.cdpURL})
}

// mcpFlags are tabwright mcp's options: each flag is also the variable
// TABWRIGHT_<FLAG> and a key of --config (internal/options).
type mcpFlags struct {
	fs            *flag.FlagSet
	browser       browserFlags
	page          pageFlags
	state         stateFlags
	addr          string
	sessionIdle   time.Duration
	toolsSpec     string
	actionTimeout time.Duration
	inline        bool
	attach        bool
	outputDir     string
	allowFiles    bool
	warm, lazy    bool
	idleTimeout   time.Duration
	uploadRoot    string
	saveSession   string
	sessionMaxMB  int
	config        string
	printConfig   bool
}

// envPrefix starts the environment variable of every tabwright mcp flag.
const envPrefix = "TABWRIGHT_"

// notFromConfig are the flags only the command line gives.
var notFromConfig = []string{"print-config"}

func newMCPFlags() *mcpFlags {
	f := &mcpFlags{fs: newFlags("mcp")}
	fs := f.fs
	f.browser.register(fs)
	f.page.register(fs)
	fs.StringVar(&f.addr, "http", "", "serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8931) instead of stdio")
	fs.DurationVar(&f.sessionIdle, "session-idle", mcpserver.DefaultSessionIdle, "with --http: end a session whose client has had no request in flight and no stream open this long, releasing its claims (0: never)")
	fs.StringVar(&f.toolsSpec, "tools", mcpserver.DefaultProfile, toolsUsage())
	lo, hi := mcpserver.ActionTimeoutRange()
	fs.DurationVar(&f.actionTimeout, "action-timeout", mcpserver.DefaultActionTimeout, fmt.Sprintf("default timeout_ms of the single-action tools (click, fill, wait…), %v to %v; browser_batch keeps its %v", lo, hi, batch.DefaultTimeout()))
	fs.BoolVar(&f.inline, "inline-schemas", false, "list input schemas written out in full, without $defs/$ref, for clients that cannot resolve a $ref (GitHub Copilot CLI, Gemini and Gemini CLI, Kiro, opencode have failed on them); browser_batch grows from about 8,900 to 18,000 characters")
	fs.BoolVar(&f.attach, "attach", false, "also drive the user's own Chrome/Edge profiles paired through the extension (see tabwright setup): runs the hub, or joins the one another tabwright process runs; with one paired profile it is the default browser")
	fs.StringVar(&f.outputDir, "output-dir", "", "the one folder file tools write and read (screenshot save_path, browser_pdf, storage state); paths outside it, links followed, are refused (default: tabwright-output in the system's temporary folder)")
	fs.BoolVar(&f.allowFiles, "allow-file-urls", false, "let browser_open_tab and browser_navigate load file:// URLs (off: a page could steer the agent into reading this machine's files)")
	fs.BoolVar(&f.warm, "warm-browser", false, "on stdio, start the managed browser as the server starts instead of at the first call that needs a page (an idle server then holds Chromium); --http servers always do")
	fs.BoolVar(&f.lazy, "lazy-browser", false, "start the managed browser at the first call that needs a page: the default on stdio (kept for older configurations); with --http it stops the start with the server")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", defaultIdleTimeout, "close the managed browser after this long without a call that uses it; the next call starts it again (0: never; default off with --headful)")
	fs.StringVar(&f.uploadRoot, "upload-root", "", "the one folder browser_upload may send files from (default: the output folder)")
	fs.StringVar(&f.saveSession, "save-session", "", "record each MCP session in a folder of its own under this folder: every call (arguments and results redacted), a small screenshot after each call that acts on a page, the tab's console and network; see tabwright session view|batch")
	fs.IntVar(&f.sessionMaxMB, "save-session-max-mb", session.DefaultMaxBytes>>20, "with --save-session: the folder's size cap in MB; over it, the oldest sessions are removed")
	f.state.register(fs)
	fs.StringVar(&f.config, options.ConfigFlag, "", "a JSON file of options: keys are flag names without the dashes, e.g. {\"headful\": true, \"viewport-size\": \"800x600\"}; a flag or variable given too wins")
	fs.BoolVar(&f.printConfig, "print-config", false, "print the options in force and where each came from (flag, env, config, default), then exit")
	return f
}

// parse reads the command line, then the environment and the config file.
func (f *mcpFlags) parse(args []string, stderr io.Writer) (options.Sources, error) {
	f.fs.SetOutput(stderr)
	if err := f.fs.Parse(args); err != nil {
		return nil, err
	}
	return options.Apply(f.fs, options.Settings{Prefix: envPrefix, Getenv: os.Getenv, Skip: notFromConfig})
}

// printConfig writes each option, its value and where it came from.
func (f *mcpFlags) print(w io.Writer, src options.Sources) {
	f.fs.VisitAll(func(fl *flag.Flag) {
		if !slices.Contains(notFromConfig, fl.Name) {
			fmt.Fprintln(w, redactedProxy(options.Describe(fl, src[fl.Name], envPrefix)))
		}
	})
}

// runMCP serves MCP on stdio, or on streamable HTTP with --http, until the
// client hangs up or a signal arrives; then the managed browser stops.
func runMCP(ctx context.Context, args []string, stderr io.Writer) error {
	f := newMCPFlags()
	src, err := f.parse(args, stderr)
	if err != nil {
		return err
	}
	if f.printConfig {
		f.print(os.Stdout, src)
		return nil
	}
	opt, serverOpt, err := f.options(ctx)
	if err != nil {
		return err
	}
	if f.attach {
		h, err := startAttachHub(stderr)
		if err != nil {
			return err
		}
		defer h.Close()
		opt.Extensions = h
	}
	m, err := tabs.New(opt)
	if err != nil {
		return err
	}
	defer m.Close()
	if f.warm || f.addr != "" && !f.lazy {
		m.Prestart() // the browser starts while the client initialises the session
	}
	srv, err := mcpserver.NewWithOptions(m, version, serverOpt)
	if err != nil {
		return err
	}
	if f.addr != "" {
		return serveHTTP(ctx, mcpserver.HTTPHandler(srv, f.sessionIdle), f.addr, stderr)
	}
	err = srv.Run(ctx, mcpserver.Stdio(os.Stdin, os.Stdout))
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// options are the manager's and the server's options the flags ask for,
// or the first flag that is wrong.
func (f *mcpFlags) options(ctx context.Context) (tabs.Options, mcpserver.Options, error) {
	var opt tabs.Options
	var serverOpt mcpserver.Options
	if lo, hi := mcpserver.ActionTimeoutRange(); f.actionTimeout < lo || f.actionTimeout > hi {
		return opt, serverOpt, errs.Input("--action-timeout", "must be between %v and %v (a step's timeout_ms bounds); got %v", lo, hi, f.actionTimeout)
	}
	if f.saveSession != "" && (f.sessionMaxMB < 1 || f.sessionMaxMB > maxSessionMB) {
		return opt, serverOpt, errs.Input("--save-session-max-mb", "must be between 1 and %d; got %d", maxSessionMB, f.sessionMaxMB)
	}
	if err := f.browser.check(); err != nil {
		return opt, serverOpt, err
	}
	opt = tabs.Options{Launch: f.browser.launchOptions(), CDPURL: f.browser.cdpURL, IdleTimeout: idleFor(f.fs, f.idleTimeout, f.browser.headful)}
	if err := f.page.apply(f.fs, &opt); err != nil {
		return opt, serverOpt, err
	}
	serverOpt = mcpserver.Options{Tools: f.toolsSpec, AllowFileURLs: f.allowFiles, ActionTimeout: f.actionTimeout, InlineSchemas: f.inline, OutputDir: f.outputDir, UploadRoot: f.uploadRoot, Stop: ctx,
		SaveSession: f.saveSession, SaveSessionMaxBytes: int64(f.sessionMaxMB) << 20}
	return opt, serverOpt, f.state.apply(&opt, &serverOpt)
}

// maxSessionMB bounds --save-session-max-mb (1 TB), far below where MB
// to bytes overflows.
const maxSessionMB = 1 << 20

// defaultIdleTimeout closes a headless managed browser nobody has used for
// an hour: an MCP client starts a server per conversation or window and
// may leave it running for days.
const defaultIdleTimeout = time.Hour

// idleFor is the idle timeout asked for: a headful browser is the user's
// window and stays unless --idle-timeout is given.
func idleFor(fs *flag.FlagSet, asked time.Duration, headful bool) time.Duration {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "idle-timeout" }) // the environment and config file count too: Apply sets through fs
	if headful && !set {
		return 0
	}
	return max(asked, 0)
}

// toolsUsage says what --tools takes and what each profile lists.
func toolsUsage() string {
	var b strings.Builder
	b.WriteString("tools to list: profiles and tool names joined by commas (e.g. core,browser_batch)")
	for _, p := range mcpserver.ProfileNames() {
		fmt.Fprintf(&b, "\n%s: %s", p, strings.Join(mcpserver.ProfileEntries(p), " "))
	}
	return b.String()
}

func serveHTTP(ctx context.Context, handler http.Handler, addr string, stderr io.Writer) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return errs.Input("--http", "%q is not host:port", addr)
	}
	if !netgate.IsLoopback(host) {
		return errs.Input("--http", "%q is not a loopback address", addr).
			WithHint("the server drives a browser; serve it on 127.0.0.1 only")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errs.Wrap(errs.InvalidInput, err, "listening on "+addr)
	}
	if !netgate.BoundToLoopback(ln) {
		ln.Close()
		return errs.Input("--http", "%q resolves to %s, not a loopback address", addr, ln.Addr()).
			WithHint("serve it on 127.0.0.1:PORT")
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: mcpserver.MaxHeaderBytes}
	fmt.Fprintf(stderr, "tabwright: MCP over streamable HTTP at http://%s/\n", ln.Addr())
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(shut)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
