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
	"strings"
	"time"

	"github.com/tabwright/tabwright/engine/batch"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/mcpserver"
)

func newManager(b browserFlags) (*tabs.Manager, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	return tabs.New(tabs.Options{Launch: b.launchOptions(), CDPURL: b.cdpURL})
}

// runMCP serves MCP on stdio, or on streamable HTTP with --http, until the
// client hangs up or a signal arrives; then the managed browser stops.
func runMCP(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlags("mcp")
	var bf browserFlags
	bf.register(fs)
	addr := fs.String("http", "", "serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8931) instead of stdio")
	idle := fs.Duration("session-idle", mcpserver.DefaultSessionIdle, "with --http: end a session whose client has had no request in flight and no stream open this long, releasing its claims (0: never)")
	toolsSpec := fs.String("tools", mcpserver.DefaultProfile, toolsUsage())
	lo, hi := mcpserver.ActionTimeoutRange()
	actionTimeout := fs.Duration("action-timeout", mcpserver.DefaultActionTimeout, fmt.Sprintf("default timeout_ms of the single-action tools (click, fill, wait…), %v to %v; browser_batch keeps its %v", lo, hi, batch.DefaultTimeout()))
	inline := fs.Bool("inline-schemas", false, "list input schemas written out in full, without $defs/$ref, for clients that cannot resolve a $ref (GitHub Copilot CLI, Gemini and Gemini CLI, Kiro, opencode have failed on them); browser_batch grows from about 8,900 to 18,000 characters")
	attach := fs.Bool("attach", false, "also drive the user's own Chrome/Edge profiles paired through the extension (see tabwright setup): runs the hub, or joins the one another tabwright process runs; with one paired profile it is the default browser")
	outputDir := fs.String("output-dir", "", "the one folder file tools write and read (screenshot save_path, browser_pdf, storage state); paths outside it, links followed, are refused (default: "+mcpserver.DefaultOutputDir()+")")
	allowFiles := fs.Bool("allow-file-urls", false, "let browser_open_tab and browser_navigate load file:// URLs (off: a page could steer the agent into reading this machine's files)")
	warm := fs.Bool("warm-browser", false, "on stdio, start the managed browser as the server starts instead of at the first call that needs a page (an idle server then holds Chromium); --http servers always do")
	lazy := fs.Bool("lazy-browser", false, "start the managed browser at the first call that needs a page: the default on stdio (kept for older configurations); with --http it stops the start with the server")
	idleTimeout := fs.Duration("idle-timeout", defaultIdleTimeout, "close the managed browser after this long without a call that uses it; the next call starts it again (0: never; default off with --headful)")
	uploadRoot := fs.String("upload-root", "", "the one folder browser_upload may send files from (default: the output folder)")
	var st stateFlags
	st.register(fs)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *actionTimeout < lo || *actionTimeout > hi {
		return errs.Input("--action-timeout", "must be between %v and %v (a step's timeout_ms bounds); got %v", lo, hi, *actionTimeout)
	}
	if err := bf.check(); err != nil {
		return err
	}
	opt := tabs.Options{Launch: bf.launchOptions(), CDPURL: bf.cdpURL, IdleTimeout: idleFor(fs, *idleTimeout, bf.headful)}
	serverOpt := mcpserver.Options{Tools: *toolsSpec, AllowFileURLs: *allowFiles, ActionTimeout: *actionTimeout, InlineSchemas: *inline, OutputDir: *outputDir, UploadRoot: *uploadRoot, Stop: ctx}
	if err := st.apply(&opt, &serverOpt); err != nil {
		return err
	}
	if *attach {
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
	if *warm || *addr != "" && !*lazy {
		m.Prestart() // the browser starts while the client initialises the session
	}
	srv, err := mcpserver.NewWithOptions(m, version, serverOpt)
	if err != nil {
		return err
	}
	if *addr == "" {
		err := srv.Run(ctx, mcpserver.Stdio(os.Stdin, os.Stdout))
		if ctx.Err() != nil || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	return serveHTTP(ctx, mcpserver.HTTPHandler(srv, *idle), *addr, stderr)
}

// defaultIdleTimeout closes a headless managed browser nobody has used for
// an hour: an MCP client starts a server per conversation or window and
// may leave it running for days.
const defaultIdleTimeout = time.Hour

// idleFor is the idle timeout asked for: a headful browser is the user's
// window and stays unless --idle-timeout is given.
func idleFor(fs *flag.FlagSet, asked time.Duration, headful bool) time.Duration {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "idle-timeout" })
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
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return errs.Input("--http", "%q is not a loopback address", addr).
			WithHint("the server drives a browser; serve it on 127.0.0.1 only")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errs.Wrap(errs.InvalidInput, err, "listening on "+addr)
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
