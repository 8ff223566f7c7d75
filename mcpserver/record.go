package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/mcpserver/session"
)

// The --save-session hook (Options.SaveSession): every call passes
// recordStart and recordEnd in handle, so each MCP session's folder holds
// every call as the model saw it.

// actsOnPage are the tools after which the tab gets a screenshot: those
// that may change what the page shows.
var actsOnPage = map[string]bool{
	"browser_open_tab": true, "browser_navigate": true, "browser_dialog": true, "browser_batch": true,
	"browser_page_tool": true, "browser_evaluate": true, "browser_emulate": true, "browser_storage_state": true,
	toolName(act.Click): true, toolName(act.Fill): true, toolName(act.Type): true, toolName(act.Hover): true,
	toolName(act.SelectOption): true, toolName(act.Scroll): true, toolName(act.PressKey): true,
	toolName(act.Drag): true, toolName(act.Upload): true,
}

// Bounds of the recording's extras: its screenshots are small JPEGs, its
// log lines few and short.
const (
	shotQuality  = 50
	shotLongSide = 800
	shotTimeout  = 3 * time.Second
	maxLogLines  = 60
	maxLogText   = 300
)

// recording is the store and each MCP session's recorder.
type recording struct {
	store   *session.Store
	version string

	mu      sync.Mutex
	open    map[*mcp.ServerSession]*session.Recorder
	cursors map[string]int64 // per tab handle: the newest log seq recorded
}

func newRecording(opt Options, version string) (*recording, error) {
	if opt.SaveSession == "" {
		return nil, nil
	}
	limit := opt.SaveSessionMaxBytes
	if limit == 0 {
		limit = session.DefaultMaxBytes
	}
	store, err := session.NewStore(opt.SaveSession, limit)
	if err != nil {
		return nil, err
	}
	return &recording{store: store, version: version, open: map[*mcp.ServerSession]*session.Recorder{}, cursors: map[string]int64{}}, nil
}

// recorder is ss's recorder, started at its first call.
func (r *recording) recorder(ss *mcp.ServerSession, redacted bool) *session.Recorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rec, ok := r.open[ss]; ok {
		return rec
	}
	client := ""
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		client = p.ClientInfo.Name + " " + p.ClientInfo.Version
	}
	rec := r.store.Start(r.version, client, redacted)
	r.open[ss] = rec
	return rec
}

// end closes ss's recorder when the session ends.
func (r *recording) end(ss *mcp.ServerSession) {
	if r == nil {
		return
	}
	r.mu.Lock()
	rec := r.open[ss]
	delete(r.open, ss)
	r.mu.Unlock()
	if rec != nil {
		rec.Close()
	}
}

// cursor is the newest log seq of the tab recorded so far.
func (r *recording) cursor(handle string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cursors[handle]
}

// forget drops a tab's cursor.
func (r *recording) forget(handle string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.cursors, handle)
}

// advance moves the tab's cursor on to next.
func (r *recording) advance(handle string, next int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cursors[handle] = max(r.cursors[handle], next)
}

// recorded is a call on its way to the session folder.
type recorded struct {
	rec   *session.Recorder
	call  session.Call
	owner string
	start time.Time
}

// recordStart notes the call as it arrives: its arguments redacted, its
// tab's URL and, for an action on a ref, the element's selector now
// (before the action may change the page). Nil when not recording.
func (s *server) recordStart(ctx context.Context, name string, req *mcp.CallToolRequest) *recorded {
	if s.rec == nil {
		return nil
	}
	rec := s.rec.recorder(req.Session, s.redact.Active())
	p := &recorded{rec: rec, owner: s.owner(req.Session), call: session.Call{Seq: rec.Next(), Tool: name, StartedMS: time.Now().UnixMilli()}}
	p.call.Args = s.redactedArgs(req.Params.Arguments)
	p.call.Tab = handleIn(req.Params.Arguments)
	if p.call.Tab != "" {
		if t, err := s.m.Get(p.owner, p.call.Tab); err == nil {
			p.call.URLBefore = s.redact.String(t.URL())
			s.stableLocators(ctx, p, req.Params.Arguments)
		}
	}
	p.start = time.Now()
	return p
}

// recordEnd writes the call with its result as the model saw it, then
// the tab's screenshot and its log entries since the call before.
func (s *server) recordEnd(ctx context.Context, p *recorded, res *mcp.CallToolResult) {
	if p == nil {
		return
	}
	c := &p.call
	c.DurationMS = float64(time.Since(p.start).Microseconds()) / 1000
	resultInto(c, res)
	if c.Tab == "" && (c.Tool == "browser_open_tab" || c.Tool == "browser_claim_tab") {
		c.Tab = handleIn(c.Structured)
	}
	var shot []byte
	if t, err := s.m.Get(p.owner, c.Tab); c.Tab != "" && err == nil {
		if actsOnPage[c.Tool] {
			shot = s.sessionShot(ctx, t, c)
		}
		c.URLAfter = s.redact.String(t.URL())
		c.Logs = s.logLines(t, c.Tab)
	} else if c.Tab != "" {
		s.rec.forget(c.Tab) // released or closed: its cursor goes with it
	}
	p.rec.Write(c, shot) // a recording that cannot write stops; the call stands
}

// redactedArgs are the call's arguments as the folder keeps them: the
// configured secrets replaced, like every result's.
func (s *server) redactedArgs(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return nil
	}
	v, _ := s.redact.structured(args)
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return raw
}

// handleIn is the tab_handle field of a JSON object, if any.
func handleIn(raw json.RawMessage) string {
	var in struct {
		TabHandle string `json:"tab_handle"`
	}
	json.Unmarshal(raw, &in)
	return in.TabHandle
}

// stableLocators records, for an action tool's ref, the selector of the
// element it names now: a replay has no observation to take refs from.
// It runs in the tab's queue, before the action.
func (s *server) stableLocators(ctx context.Context, p *recorded, args json.RawMessage) {
	var in struct {
		Ref string `json:"ref"`
	}
	if !isActionTool(p.call.Tool) || json.Unmarshal(args, &in) != nil || in.Ref == "" {
		return
	}
	timeout := int(shotTimeout.Milliseconds())
	err := s.onTab(ctx, p.owner, p.call.Tab, &timeout, func(ctx context.Context, t *tabs.Tab) error {
		loc, err := locate.Stable(ctx, t, locate.Locator{Ref: in.Ref})
		if err == nil {
			loc.Selector = s.redact.String(loc.Selector)
			p.call.Stable = map[string]locate.Locator{"": loc}
		}
		return err
	})
	if err != nil {
		p.call.StableError = s.redact.String(errs.As(err).Error())
	}
}

// isActionTool: the single-action tools, whose arguments are a step's.
func isActionTool(name string) bool {
	for _, a := range act.Actions() {
		if toolName(a) == name {
			return true
		}
	}
	return false
}

// resultInto copies the result as the client got it: its text, its
// structured content, its images by size, and its error.
func resultInto(c *session.Call, res *mcp.CallToolResult) {
	var text []string
	for _, content := range res.Content {
		switch v := content.(type) {
		case *mcp.TextContent:
			text = append(text, v.Text)
		case *mcp.ImageContent:
			c.Images = append(c.Images, session.Image{MIME: v.MIMEType, Bytes: len(v.Data)})
		}
	}
	c.Text = strings.Join(text, "\n")
	if res.StructuredContent != nil {
		c.Structured, _ = json.Marshal(res.StructuredContent)
	}
	c.IsError = res.IsError
	if res.IsError {
		var e struct {
			Error *errs.Error `json:"error"`
		}
		json.Unmarshal(c.Structured, &e)
		c.Error = e.Error
	}
}

// sessionShot is a small JPEG of the tab's viewport, taken in its queue
// after the call; a failure is noted, never the call's.
func (s *server) sessionShot(ctx context.Context, t *tabs.Tab, c *session.Call) []byte {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shotTimeout)
	defer cancel()
	began := time.Now()
	var img *tabs.Image
	err := t.Do(ctx, func(ctx context.Context) (err error) {
		img, err = t.Capture(ctx, tabs.Shot{Format: "jpeg", Quality: shotQuality, MaxLongSide: shotLongSide})
		return err
	})
	if err != nil {
		c.ShotError = s.redact.String(errs.As(err).Error())
		return nil
	}
	c.Shot = &session.Shot{File: session.ShotFile(c.Seq), Bytes: len(img.Data), Width: img.Width, Height: img.Height,
		MS: float64(time.Since(began).Microseconds()) / 1000}
	return img.Data
}

// logLines are the tab's log entries since the call before on it,
// summarised and redacted.
func (s *server) logLines(t *tabs.Tab, handle string) *session.Logs {
	page := t.Logs(tabs.LogQuery{AfterSeq: s.rec.cursor(handle)})
	s.rec.advance(handle, page.Next)
	if len(page.Entries) == 0 && page.Lost == 0 {
		return nil
	}
	out := &session.Logs{Lost: page.Lost, Entries: []session.LogLine{}}
	for i, e := range page.Entries {
		if i == maxLogLines {
			out.More = len(page.Entries) - maxLogLines
			break
		}
		out.Entries = append(out.Entries, session.LogLine{
			Kind: e.Kind, Level: e.Level, Text: s.redact.String(clip(e.Text, maxLogText)), URL: s.redact.String(clip(e.URL, maxLogText)),
			Method: e.Method, Status: e.Status, Type: e.Type, DurationMS: e.DurationMS, Bytes: e.Bytes,
			Error: e.Error, Source: s.redact.String(clip(e.Source, maxLogText)),
		})
	}
	return out
}

// clip cuts s at n bytes, not inside a character, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
