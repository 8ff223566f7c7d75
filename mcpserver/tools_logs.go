package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ---- browser_logs

type logsInput struct {
	TabHandle    string   `json:"tab_handle" tool:"required"`
	AfterSeq     *int     `json:"after_seq"`
	Kind         []string `json:"kind"`
	Level        string   `json:"level" tool:"enum=debug|info|warning|error" doc:"Only console and error entries at this level or above (other kinds are left out)."`
	URLContains  string   `json:"url_contains" tool:"nonempty" doc:"Only entries whose url (or source) contains this text."`
	Limit        *int     `json:"limit"`
	Headers      bool     `json:"headers" tool:"default=false" doc:"Include request and response headers of network entries."`
	Bodies       bool     `json:"bodies" tool:"default=false" doc:"Include response bodies of the network entries returned (text only, while the browser still holds them; the first 20)."`
	MaxBodyChars *int     `json:"max_body_chars"`
	TimeoutMS    *int     `json:"timeout_ms" tool:"timeout"`
}

// listedAs: the fields whose bounds and defaults are the constants below.
func (*logsInput) listedAs() map[string]schema {
	return map[string]schema{
		"after_seq":      integer("Only entries with a larger seq (a next_seq from an earlier call).", 0, maxAfterSeq, 0),
		"kind":           {"type": "array", "minItems": 1, "maxItems": len(logKinds), "uniqueItems": true, "items": schema{"type": "string", "enum": logKinds}, "description": "Only these kinds. Default: all."},
		"limit":          integer("Most entries to return; more=true says there are others after next_seq.", 1, maxLogLimit, defaultLogLimit),
		"max_body_chars": integer("Cut each body at this many characters.", minBodyChars, maxBodyChars, defaultBodyChar),
	}
}

// rules: max_body_chars cuts bodies, so it goes with them.
func (in *logsInput) rules() error {
	if in.MaxBodyChars != nil && !in.Bodies {
		return errs.Input("max_body_chars", "only goes with bodies: true")
	}
	return nil
}

var logKinds = []string{tabs.LogConsole, tabs.LogError, tabs.LogNetwork, tabs.LogNavigation, tabs.LogDownload}

const (
	defaultLogLimit = 100
	maxLogLimit     = 1000
	defaultBodyChar = 2000
	minBodyChars    = 100
	maxBodyChars    = 100000
	maxAfterSeq     = 1 << 52 // a seq a JSON number carries exactly
	maxBodies       = 20
)

// logEntry is an entry as returned, with its body when asked.
type logEntry struct {
	tabs.LogEntry
	Body     string `json:"body,omitempty"`
	BodyNote string `json:"body_note,omitempty"`
}

type logsResult struct {
	Entries  []logEntry      `json:"entries"`
	NextSeq  int64           `json:"next_seq"`
	More     bool            `json:"more,omitempty"`
	DataLoss bool            `json:"data_loss,omitempty"`
	Lost     int64           `json:"lost,omitempty"`
	Pending  []tabs.LogEntry `json:"pending,omitempty"`
}

func (s *server) logsTool() tool {
	return defineTool("browser_logs", `Read what a claimed tab reported since the claim: console messages (level, text, source url:line:col, stack for errors; the browser's own messages too), page errors (uncaught exceptions), network requests once finished or failed (method, url, status, resource type, mime, duration_ms, bytes, error = Chromium's net error), navigations (type popup: a window the page opened, tab_id names it; popup_closed: windows over the server's popup bound, closed at once, count says how many), downloads (path, bytes, url). Oldest first, each with a seq; pass next_seq as after_seq to read only newer ones. The tab keeps the last 1000 entries: data_loss and lost say entries after your cursor were evicted. pending lists requests still in flight. Answers even while the page is busy or hung. Authorization, Cookie and Set-Cookie values and the server's configured secrets are replaced by [redacted].
Errors: invalid_input, invalid_handle.`, s.runLogs).annotate(&mcp.ToolAnnotations{ReadOnlyHint: true})
}

func (s *server) runLogs(ctx context.Context, owner string, in *logsInput) (any, string, error) {
	t, err := s.m.Get(owner, in.TabHandle)
	if err != nil {
		return nil, "", err
	}
	// Not through the tab's queue: the log is there to read while another
	// call is stuck on the page.
	page := t.Logs(tabs.LogQuery{AfterSeq: int64(orDefault(in.AfterSeq, 0)), Kinds: in.Kind, MinLevel: in.Level, URLContains: in.URLContains, Limit: orDefault(in.Limit, defaultLogLimit)})
	out := logsResult{NextSeq: page.Next, More: page.More, DataLoss: page.Lost > 0, Lost: page.Lost, Pending: page.Pending, Entries: make([]logEntry, 0, len(page.Entries))}
	ctx, cancel := withTimeout(ctx, orDefault(in.TimeoutMS, defaultTimeoutMS()))
	defer cancel()
	bodies := 0
	for _, e := range page.Entries {
		le := logEntry{LogEntry: e}
		if !in.Headers {
			le.RequestHeaders, le.ResponseHeaders = nil, nil
		}
		if in.Bodies && e.Kind == tabs.LogNetwork && e.Error == "" && bodies < maxBodies {
			bodies++
			le.Body, le.BodyNote = body(ctx, t, e.RequestID, orDefault(in.MaxBodyChars, defaultBodyChar))
		}
		out.Entries = append(out.Entries, le)
	}
	for i := range out.Pending {
		if !in.Headers {
			out.Pending[i].RequestHeaders = nil
		}
	}
	return out, renderLogs(out), nil
}

// body fetches one response body, bounded; the note says why there is none.
func body(ctx context.Context, t *tabs.Tab, id string, maxChars int) (string, string) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	b, binary, err := t.ResponseBody(ctx, id)
	switch {
	case err != nil:
		return "", "no body: " + errs.As(err).Message
	case binary:
		return "", "binary body left out"
	}
	r := []rune(b)
	if len(r) > maxChars {
		return string(r[:maxChars]), fmt.Sprintf("cut at %d of %d characters", maxChars, len(r))
	}
	return b, ""
}

// renderLogs is the text form: one line per entry.
func renderLogs(r logsResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d entries, next_seq %d", len(r.Entries), r.NextSeq)
	if r.More {
		b.WriteString(" (more after it)")
	}
	if r.DataLoss {
		fmt.Fprintf(&b, "; data loss: %d entries after your cursor were evicted", r.Lost)
	}
	for _, e := range r.Entries {
		fmt.Fprintf(&b, "\n%d %s", e.Seq, e.Kind)
		switch e.Kind {
		case tabs.LogNetwork:
			fmt.Fprintf(&b, " %s %s %d %s %.0fms %dB", e.Method, e.URL, e.Status, e.Type, e.DurationMS, e.Bytes)
			if e.Error != "" {
				b.WriteString(" " + e.Error)
			}
		case tabs.LogNavigation:
			fmt.Fprintf(&b, " %s %s", e.Type, e.URL)
			if e.TabID != "" {
				b.WriteString(" tab " + e.TabID)
			}
			if e.Text != "" {
				b.WriteString(": " + e.Text)
			}
		case tabs.LogDownload:
			fmt.Fprintf(&b, " %s %dB from %s", e.Path, e.Bytes, e.URL)
		default:
			fmt.Fprintf(&b, " %s %s", e.Level, e.Text)
			if e.Source != "" {
				b.WriteString(" @" + e.Source)
			}
			for _, f := range e.Stack {
				b.WriteString("\n    " + f)
			}
		}
		if e.Body != "" {
			b.WriteString("\n    body: " + e.Body)
		}
		if e.BodyNote != "" {
			b.WriteString("\n    " + e.BodyNote)
		}
	}
	if len(r.Pending) > 0 {
		fmt.Fprintf(&b, "\n%d requests in flight", len(r.Pending))
		for _, p := range r.Pending {
			fmt.Fprintf(&b, "\n  %s %s", p.Method, p.URL)
		}
	}
	return b.String()
}
