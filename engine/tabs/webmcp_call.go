package tabs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/webmcp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
)

// invokeToolParams is WebMCP.invokeTool as Chromium 156 takes it: the
// tool named by toolName. cdproto v0.159.3 was generated from a later
// protocol that names it by toolId, which this browser refuses
// ("params.toolName: mandatory field missing"); the rest of cdproto's
// WebMCP domain matches what the browser sends.
type invokeToolParams struct {
	FrameID  cdproto.FrameID `json:"frameId"`
	ToolName string          `json:"toolName"`
	Input    jsonv2.Value    `json:"input"`
}

var invokeTool = cdproto.Command[invokeToolParams, webmcp.InvokeToolResult]{Method: webmcp.CommandInvokeTool}

// Page tool call statuses.
const (
	// PageToolCompleted: the tool answered; Output holds its answer.
	PageToolCompleted = "completed"
	// PageToolAwaitingUser: a form tool without autosubmit. The browser
	// filled the form; the page waits for a person to submit it.
	PageToolAwaitingUser = "awaiting_user"
)

// MaxPageToolOutput bounds the characters of a tool's answer kept in a
// result: a page decides how much it answers.
const MaxPageToolOutput = 20000

// PageToolResult is what a page tool answered. Like the tool, it comes
// from the page: untrusted.
type PageToolResult struct {
	Tool   string          `json:"tool"`
	Status string          `json:"status"`
	Output json.RawMessage `json:"output,omitempty"` // the answer as JSON, when within the bound
	// Text is the answer for reading: a string answer as it is, the text
	// parts of an MCP-style {content: [...]} answer joined, else the JSON.
	Text      string `json:"text,omitempty"`
	Truncated bool   `json:"truncated,omitempty"` // Text was cut at MaxPageToolOutput, Output left out
	Form      bool   `json:"form,omitempty"`      // awaiting_user: the tool is a form, filled and not submitted
}

// CallPageTool calls the page tool name with input (a JSON object; nil is
// {}) once input matches the tool's input schema, and waits for its answer
// until ctx ends; then the call is cancelled in the page and the tab is
// left usable. Run it in the tab's queue.
func (t *Tab) CallPageTool(ctx context.Context, name string, input json.RawMessage) (*PageToolResult, error) {
	tool, ok := t.findPageTool(name)
	if !ok {
		return nil, t.noSuchTool(ctx, name)
	}
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	if err := checkToolInput(tool, input); err != nil {
		return nil, err
	}
	responded, stop1 := t.sess.Subscribe("WebMCP.toolResponded")
	defer stop1()
	invoked, stop2 := t.sess.Subscribe("WebMCP.toolInvoked")
	defer stop2()
	res, err := cdproto.Call(ctx, t.sess, invokeTool, invokeToolParams{FrameID: cdproto.FrameID(tool.Frame), ToolName: name, Input: jsonv2.Value(input)})
	if err != nil {
		if ctx.Err() != nil {
			return nil, deadline.Err(ctx, fmt.Sprintf("calling the page's tool %q", name))
		}
		var pe *cdp.ProtocolError
		if asProtocol(err, &pe) { // "Tool not found": removed since the last event
			return nil, errs.New(errs.NotFound, "the page no longer offers the tool %q (%s)", name, pe.Message).
				WithHint("observe the tab again for the tools it offers now")
		}
		return nil, err
	}
	return t.awaitToolAnswer(ctx, tool, res.InvocationID, responded, invoked)
}

// findPageTool returns the tool of that name, the main frame's first.
func (t *Tab) findPageTool(name string) (PageTool, bool) {
	for _, tl := range t.PageTools() {
		if tl.Name == name {
			return tl, true
		}
	}
	return PageTool{}, false
}

// awaitToolAnswer waits for the answer of invocation id. A form tool
// without autosubmit never answers by itself: once the browser reports the
// call started (the form filled), the call is over and a person's turn.
func (t *Tab) awaitToolAnswer(ctx context.Context, tool PageTool, id string, responded, invoked <-chan jsonv2.Value) (*PageToolResult, error) {
	waitsForUser := tool.Form && !tool.AutoSubmit
	for {
		select {
		case params, ok := <-responded:
			if !ok {
				return nil, t.sessionGone()
			}
			var ev webmcp.EventToolResponded
			if jsonv2.Unmarshal(params, &ev) != nil || ev.InvocationID != id {
				continue
			}
			return toolAnswer(tool.Name, &ev)
		case params, ok := <-invoked:
			if !ok {
				return nil, t.sessionGone()
			}
			var ev webmcp.EventToolInvoked
			if !waitsForUser || jsonv2.Unmarshal(params, &ev) != nil || ev.InvocationID != id {
				continue
			}
			return &PageToolResult{Tool: tool.Name, Status: PageToolAwaitingUser, Form: true}, nil
		case <-t.dead:
			return nil, t.why
		case <-ctx.Done():
			// Nobody waits for the answer any more: the page is told, so
			// that its tool can stop (its execute's signal aborts).
			t.sess.Post(ctx, webmcp.CommandCancelInvocation, webmcp.CancelInvocationParams{InvocationID: id})
			e := deadline.Err(ctx, fmt.Sprintf("waiting for the page's tool %q to answer", tool.Name))
			if e.Code == errs.Timeout {
				e.Hint = "the tool did not answer in time and was cancelled in the page; the tab is usable: observe it to see what the tool did, or call again with a larger timeout_ms"
			}
			return nil, e
		}
	}
}

// toolAnswer turns the browser's report of a call into a result or the
// error the tool ended with.
func toolAnswer(name string, ev *webmcp.EventToolResponded) (*PageToolResult, error) {
	switch ev.Status {
	case webmcp.InvocationStatusCompleted:
		return completed(name, json.RawMessage(ev.Output)), nil
	case webmcp.InvocationStatusCanceled:
		return nil, errs.New(errs.Cancelled, "the page cancelled the call of its tool %q", name)
	}
	why := ev.ErrorText
	if ev.Exception != nil && ev.Exception.Description != "" {
		why, _, _ = strings.Cut(ev.Exception.Description, "\n") // the message, not the page's stack
	}
	if why == "" {
		why = "no reason given"
	}
	return nil, errs.New(errs.ScriptError, "the page's tool %q failed: %s", name, clipText(why, 500)).
		WithHint("read the tool's description and input schema in the observation, or act on the page instead")
}

// completed is the result of an answer, bounded.
func completed(name string, out json.RawMessage) *PageToolResult {
	r := &PageToolResult{Tool: name, Status: PageToolCompleted, Output: out, Text: answerText(out)}
	if len(out) == 0 || string(out) == "null" {
		r.Output = nil
	}
	if utf8.RuneCountInString(r.Text) > MaxPageToolOutput || len(out) > 4*MaxPageToolOutput {
		r.Text, r.Output, r.Truncated = clipText(r.Text, MaxPageToolOutput), nil, true
	}
	return r
}

// answerText is an answer for reading: a string as it is; the text parts
// of an MCP-style tool result ({content: [{type: "text", text}]}) joined;
// any other value as JSON.
func answerText(out json.RawMessage) string {
	var s string
	if json.Unmarshal(out, &s) == nil {
		return s
	}
	var mcpLike struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(out, &mcpLike) == nil && len(mcpLike.Content) > 0 {
		var parts []string
		for _, c := range mcpLike.Content {
			if c.Type == "text" {
				parts = append(parts, c.Text)
			}
		}
		if len(parts) == len(mcpLike.Content) {
			return strings.Join(parts, "\n")
		}
	}
	return string(out)
}

// checkToolInput refuses input that is not an object or does not match
// the tool's input schema, before the page sees it.
func checkToolInput(tool PageTool, input json.RawMessage) error {
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return errs.Input("input", "is not JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return errs.Input("input", "must be a JSON object (the tool's arguments by name)")
	}
	rs := resolveToolSchema(tool.InputSchema)
	if rs == nil {
		return nil // no schema, or one no validator can read: the page checks its input itself
	}
	if err := validateSafely(rs, v); err != nil {
		return errs.Input("input", "does not match the input schema of the page's tool %q: %s", tool.Name, clipText(err.Error(), 600)).
			WithHint("the schema: %s", clipText(string(tool.InputSchema), 1500))
	}
	return nil
}

// resolveToolSchema prepares a page's schema for validation; nil when it
// has none or it cannot be read. Remote references are not fetched (no
// loader): a page does not make us fetch anything.
func resolveToolSchema(raw json.RawMessage) (rs *jsonschema.Resolved) {
	if len(raw) == 0 {
		return nil
	}
	defer func() {
		if recover() != nil { // a hostile schema must not take the server down
			rs = nil
		}
	}()
	var s jsonschema.Schema
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil
	}
	return rs
}

func validateSafely(rs *jsonschema.Resolved, v any) (err error) {
	defer func() {
		if recover() != nil {
			err = nil // a schema the validator cannot apply: the page checks its input itself
		}
	}()
	return rs.Validate(v)
}

// PageToolsAvailable says whether the tab's browser offers its current
// page WebMCP, and whether the page is a secure context (https,
// localhost), the only pages WebMCP is offered to: an answer about the
// browser needs a secure page. One page call, in our isolated world, where
// the page's scripts cannot fake it.
func (t *Tab) PageToolsAvailable(ctx context.Context) (available, secure bool, err error) {
	var probe struct {
		Secure bool `json:"secure"`
		API    bool `json:"api"`
	}
	if err := t.Eval(ctx, `({secure: isSecureContext, api: 'modelContext' in Document.prototype})`, &probe); err != nil {
		return false, false, err
	}
	if probe.Secure {
		t.profile.notePageTools(probe.API)
	}
	return probe.API, probe.Secure, nil
}

// noSuchTool says why the page has no tool of that name: the browser has
// no WebMCP, the page is not a secure context, or the page offers none or
// others. Only this error path costs a page call.
func (t *Tab) noSuchTool(ctx context.Context, name string) error {
	available, secure, err := t.PageToolsAvailable(ctx)
	switch {
	case err == nil && secure && !available:
		return errs.New(errs.Unsupported, "this browser does not offer WebMCP: its pages cannot register tools").
			WithHint("%s", t.profile.webmcpHint()).WithFact(FactNoWebMCP)
	case err == nil && !secure:
		return errs.New(errs.NotFound, "the page offers no tool %q: it is not a secure context, and WebMCP offers tools on secure pages only (https, localhost)", clipText(name, 100))
	}
	names := []string{}
	for _, tl := range t.PageTools() {
		names = append(names, tl.Name)
	}
	if len(names) == 0 {
		return errs.New(errs.NotFound, "the page offers no tools (it registered none through document.modelContext, and declares no form tool)").
			WithHint("act on the page with the other tools")
	}
	return errs.New(errs.NotFound, "the page offers no tool %q; its tools: %s", clipText(name, 100), clipText(strings.Join(names, ", "), 500)).
		WithHint("call one of those names exactly as the observation lists it")
}
