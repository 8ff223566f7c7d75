// Package mcpserver exposes the engine as MCP tools: input schemas, strict
// input checks and thin handlers. It never speaks CDP itself.
package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// instructions tell an agent how the tools fit together.
const instructions = `tabwright drives real Chromium tabs. Typical flow: browser_open_tab (or browser_discover kind=tabs then browser_claim_tab) to get a tab_handle; browser_navigate; browser_observe to read the page. A claimed tab is yours alone until you release or close it. Errors carry a stable code, the field at fault and what to do next.`

type server struct {
	m        *tabs.Manager
	opt      Options
	files    sync.Once // sets outputs and uploads from opt
	outputs  func() (*folder, error)
	uploads  func() (*folder, error)
	actionMS int // default timeout_ms of the single-action tools
	redact   *Redactor
	rec      *recording // nil unless Options.SaveSession

	mu     sync.Mutex
	owners map[*mcp.ServerSession]string
}

// Options are the server's tools, opt-in tools and limits.
type Options struct {
	// Tools names the profiles and single tools to list, joined by commas
	// ("core,browser_batch"); empty means DefaultProfile (profiles.go).
	Tools string
	// AllowEvaluate lists browser_evaluate, which runs any script in a page.
	AllowEvaluate bool
	// AllowFileURLs lets browser_open_tab and browser_navigate load file://
	// URLs; off, they are refused (permission_denied).
	AllowFileURLs bool
	// ActionTimeout bounds a single-action tool call (click, fill, wait…)
	// that names no timeout_ms; 0 is DefaultActionTimeout. browser_batch
	// keeps its contract's default.
	ActionTimeout time.Duration
	// InlineSchemas lists every input schema written out in full, without
	// $defs and $ref: for clients that do not resolve a $ref (browser_batch
	// is then about 18,000 characters instead of 8,900).
	InlineSchemas bool
	// HideHost: the client runs elsewhere (qs's sandboxed agent), so no
	// result names the host's files or setup: browser_observe's vision
	// keeps its screenshot in memory (observe.Options.HideHost).
	HideHost bool
	// OutputDir is the one folder the file tools write and read
	// (screenshot save_path, browser_pdf, storage state); empty means
	// DefaultOutputDir. Paths resolve inside it, links followed, or are
	// refused.
	OutputDir string
	// UploadRoot is the one folder browser_upload may send files from;
	// empty means the output folder.
	UploadRoot string
	// Secrets are values no tool result may show: each is replaced by
	// [redacted] in every form Redactor derives, in every result.
	Secrets []string
	// SaveSession is the folder each MCP session records its calls under
	// (package session); empty: none.
	SaveSession string
	// SaveSessionMaxBytes caps that folder: over it, the oldest sessions
	// are removed. 0 is session.DefaultMaxBytes.
	SaveSessionMaxBytes int64
	// Stop, when done, cancels every request in flight: the process is
	// stopping (a signal) and no call may hold it up. Nil: never.
	Stop context.Context
}

// DefaultActionTimeout is the single-action tools' default timeout_ms:
// long enough for an element that appears after a click, short enough that
// a locator that will never match costs little.
const DefaultActionTimeout = act.DefaultTimeout

// ActionTimeoutRange is what Options.ActionTimeout (--action-timeout) may
// be: the bounds of a step's timeout_ms in the batch contract.
func ActionTimeoutRange() (lo, hi time.Duration) {
	return msDuration(stepBound("timeout_ms", "minimum")), msDuration(stepBound("timeout_ms", "maximum"))
}

// New returns an MCP server whose tools act on m's browsers, listing the
// default profile. Claims are held per MCP session and released when the
// session ends.
func New(m *tabs.Manager, version string) *mcp.Server {
	srv, err := NewWithOptions(m, version, Options{})
	if err != nil {
		panic(err) // the default profile always resolves
	}
	return srv
}

// NewWithOptions is New with the tools opt names, opt-in tools and limits;
// an unknown profile or tool name is an invalid_input error.
func NewWithOptions(m *tabs.Manager, version string, opt Options) (*mcp.Server, error) {
	if opt.ActionTimeout <= 0 {
		opt.ActionTimeout = DefaultActionTimeout
	}
	var err error
	s := &server{m: m, opt: opt, actionMS: int(opt.ActionTimeout.Milliseconds()), redact: NewRedactor(opt.Secrets), owners: map[*mcp.ServerSession]string{}}
	if s.rec, err = newRecording(opt, version); err != nil {
		return nil, err
	}
	all := s.tools()
	known := map[string]bool{}
	for _, t := range all {
		known[t.name] = true
	}
	set, err := toolSet(opt.Tools, known)
	if err != nil {
		return nil, err
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "tabwright", Version: version}, &mcp.ServerOptions{
		Instructions:       instructions,
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) { go s.releaseOnEnd(req.Session) },
	})
	// The definitions are decoded while the client initializes.
	go listed()
	listed := func(name string) bool {
		allowed, isGated := gated[name]
		return isGated && allowed(opt) || !isGated && set[name]
	}
	for _, t := range all {
		if listed(t.name) {
			srv.AddTool(&mcp.Tool{Name: t.name, InputSchema: unlistedSchema}, s.handle(t))
		}
	}
	srv.AddReceivingMiddleware(serveListed(opt.InlineSchemas, s.described()), explainUnlisted(unlistedHints(all, listed, opt, known)))
	if opt.Stop != nil {
		srv.AddReceivingMiddleware(cancelOn(opt.Stop))
	}
	return srv, nil
}

// described are the descriptions that this server's options change from
// tools.json's (which has the defaults): browser_observe's states the
// actions' default timeout_ms.
func (s *server) described() map[string]string {
	if s.actionMS == int(DefaultActionTimeout.Milliseconds()) {
		return nil
	}
	return map[string]string{"browser_observe": observeDoc(s.actionMS)}
}

// cancelOn cancels each request's context when stop is done.
func cancelOn(stop context.Context) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(stop, cancel)()
			return next(ctx, method, req)
		}
	}
}

// tool is one MCP tool: its name, how to build its definition and a handler
// that gets the calling session's owner id and the raw arguments.
//
// The server does not call def: it lists the definitions generated from it
// into tools.json (see listed.go).
type tool struct {
	name  string
	def   func() *mcp.Tool // all but the name
	run   func(ctx context.Context, owner string, args json.RawMessage) (result any, text string, err error)
	input reflect.Type // the input struct of a tool made by defineTool, whose schema is its checks
}

// definition is the tool's full definition, built by the code.
func (t tool) definition() *mcp.Tool {
	d := t.def()
	d.Name = t.name
	return d
}

func (s *server) owner(ss *mcp.ServerSession) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.owners[ss]; ok {
		return id
	}
	b := make([]byte, 8)
	rand.Read(b)
	id := "session-" + hex.EncodeToString(b)
	s.owners[ss] = id
	return id
}

func (s *server) releaseOnEnd(ss *mcp.ServerSession) {
	ss.Wait()
	owner := s.owner(ss)
	s.mu.Lock()
	delete(s.owners, ss)
	s.mu.Unlock()
	s.rec.end(ss)
	s.m.EndSession(context.Background(), owner)
}

func (s *server) handle(t tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if token := req.Params.GetProgressToken(); token != nil {
			stop := reportProgress(ctx, req.Session, token, t.name)
			defer stop()
		}
		roots, ask := callRoots(t.name, req)
		if ask {
			return rootsRequest(), nil // the client calls again with its roots: that call is the one recorded
		}
		ctx = withRoots(ctx, roots)
		rec := s.recordStart(ctx, t.name, req)
		res := s.redactResult(s.call(ctx, t, req))
		s.recordEnd(ctx, rec, res)
		return res, nil
	}
}

// call runs the tool and builds its result, a success or an error.
func (s *server) call(ctx context.Context, t tool, req *mcp.CallToolRequest) *mcp.CallToolResult {
	result, text, err := t.run(ctx, s.owner(req.Session), req.Params.Arguments)
	if err != nil && errors.Is(ctx.Err(), context.Canceled) {
		err = errs.New(errs.Cancelled, "the client cancelled the call (or its session ended, or the server is stopping) before it finished").
			WithHint("nothing was rolled back: observe the tab to see how far it got")
	}
	var failed *failure
	if errors.As(err, &failed) {
		return &mcp.CallToolResult{
			IsError:           true,
			Content:           []mcp.Content{&mcp.TextContent{Text: failed.text}},
			StructuredContent: failed.content,
		}
	}
	if err != nil {
		return errorResult(err)
	}
	content := []mcp.Content{&mcp.TextContent{Text: text}}
	if wc, ok := result.(withContent); ok {
		result, content = wc.result, append(content, wc.extra...)
	}
	return &mcp.CallToolResult{Content: content, StructuredContent: result}
}

// redactResult is the one place every tool result passes before the
// client reads it: the configured secrets leave its text and its
// structured content, successes and errors alike. An image's pixels are
// not read.
func (s *server) redactResult(res *mcp.CallToolResult) *mcp.CallToolResult {
	if !s.redact.Active() {
		return res
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			tc.Text = s.redact.String(tc.Text)
		}
	}
	if res.StructuredContent != nil {
		res.StructuredContent, _ = s.redact.structured(res.StructuredContent)
	}
	return res
}

// withContent is a result that carries more content than its text, such
// as an image a vision model looks at.
type withContent struct {
	result any
	extra  []mcp.Content
}

// failure is a failed call whose structured result says more than the
// error alone (a batch's completed steps, every violation of an input).
type failure struct {
	content any
	text    string
	err     *errs.Error
}

func (f *failure) Error() string { return f.err.Error() }

func (f *failure) Unwrap() error { return f.err }

// errorResult reports a failed call as a tool error the agent can read and
// branch on: {"error": {code, message, path, hint}}.
func errorResult(err error) *mcp.CallToolResult {
	e := toolHint(errs.As(err))
	var b strings.Builder
	b.WriteString("error ")
	b.WriteString(e.Code)
	if e.Path != "" {
		b.WriteString(" at " + e.Path)
	}
	b.WriteString(": " + e.Message)
	if e.Hint != "" {
		b.WriteString("\nnext: " + e.Hint)
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: b.String()}},
		StructuredContent: map[string]any{"error": e},
	}
}

// onTab runs fn in the serial queue of owner's tab, bounded by timeout_ms
// (default defaultTimeoutMS, the contract's).
func (s *server) onTab(ctx context.Context, owner, handle string, timeoutMS *int, fn func(context.Context, *tabs.Tab) error) error {
	t, ctx, cancel, err := s.tabWithin(ctx, owner, handle, timeoutMS)
	if err != nil {
		return err
	}
	defer cancel()
	return t.Do(ctx, func(ctx context.Context) error { return fn(ctx, t) })
}

// tabWithin is owner's tab and the call's one deadline, timeout_ms
// (default defaultTimeoutMS). The deadline is set before the tab's queue,
// so waiting for earlier work on the tab spends the same budget.
func (s *server) tabWithin(ctx context.Context, owner, handle string, timeoutMS *int) (*tabs.Tab, context.Context, context.CancelFunc, error) {
	t, err := s.m.Get(owner, handle)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := withTimeout(ctx, orDefault(timeoutMS, defaultTimeoutMS()))
	return t, ctx, cancel, nil
}

// withTimeout bounds a call by its timeout_ms. It is the call's one
// deadline: the layers below narrow it, never extend it, and the one that
// sees it pass names it in its error (see engine/deadline).
func withTimeout(ctx context.Context, ms int) (context.Context, context.CancelFunc) {
	return deadline.With(ctx, msDuration(ms), "timeout_ms", "the call's timeout_ms")
}

// progressEvery is how often a call that waits tells a client that asked
// (with a progress token) that it is still running, so a client whose
// request timeout resets on progress does not give up on a long wait.
const progressEvery = time.Second

// reportProgress sends notifications/progress for the call until stop.
func reportProgress(ctx context.Context, ss *mcp.ServerSession, token any, tool string) (stop func()) {
	done := make(chan struct{})
	start := time.Now()
	go func() {
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				secs := time.Since(start).Seconds()
				ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: secs,
					Message: fmt.Sprintf("%s still running after %.0f s", tool, secs),
				})
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { close(done) }
}

// tools lists every tool the server offers; each lives in a tools_*.go file
// by concern.
func (s *server) tools() []tool {
	return []tool{
		s.discoverTool(), s.openTabTool(), s.claimTabTool(), s.tabControlTool(), s.navigateTool(),
		s.observeTool(),
		s.actionTool(act.Click), s.actionTool(act.Fill), s.actionTool(act.Type), s.actionTool(act.Hover),
		s.selectOptionTool(), s.actionTool(act.Scroll), s.actionTool(act.Wait), s.actionTool(act.PressKey),
		s.dragTool(), s.uploadTool(), s.dialogTool(), s.batchTool(), s.pageToolTool(),
		s.screenshotTool(), s.logsTool(), s.evaluateTool(), s.pdfTool(), s.emulateTool(), s.storageStateTool(),
	}
}

func msDuration(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

func ptr[T any](v T) *T { return &v }
