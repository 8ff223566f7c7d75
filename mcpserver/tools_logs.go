package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ---- browser_logs

type logsInput struct {
	TabHandle    string   `json:"tab_handle"`
	AfterSeq     *int     `json:"after_seq"`
	Kind         []string `json:"kind"`
	Level        string   `json:"level"`
	URLContains  string   `json:"url_contains"`
	Limit        *int     `json:"limit"`
	Headers      bool     `json:"headers"`
	Bodies       bool     `json:"bodies"`
	MaxBodyChars *int     `json:"max_body_chars"`
	TimeoutMS    *int     `json:"timeout_ms"`
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
	return tool{
		name: "browser_logs",
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: `Read what a claimed tab reported since the claim: console messages (level, text, source url:line:col, stack for errors; the browser's own messages too), page errors (uncaught exceptions), network requests once finished or failed (method, url, status, resource type, mime, duration_ms, bytes, error = Chromium's net error), navigations (type popup: a window the page opened, tab_id names it; popup_closed: windows over the server's popup bound, closed at once, count says how many), downloads (path, bytes, url). Oldest first, each with a seq; pass next_seq as after_seq to read only newer ones. The tab keeps the last 1000 entries: data_loss and lost say entries after your cursor were evicted. pending lists requests still in flight. Answers even while the page is busy or hung. Authorization, Cookie and Set-Cookie values and the server's configured secrets are replaced by [redacted].
Errors: invalid_input, invalid_handle.`,
				InputSchema: object([]string{"tab_handle"}, map[string]schema{
					"tab_handle":     tabHandleField,
					"after_seq":      integer("Only entries with a larger seq (a next_seq from an earlier call).", 0, maxAfterSeq, 0),
					"kind":           {"type": "array", "minItems": 1, "maxItems": len(logKinds), "uniqueItems": true, "items": schema{"type": "string", "enum": logKinds}, "description": "Only these kinds. Default: all."},
					"level":          enum("Only console and error entries at this level or above (other kinds are left out).", "", "debug", "info", "warning", "error"),
					"url_contains":   str("Only entries whose url (or source) contains this text."),
					"limit":          integer("Most entries to return; more=true says there are others after next_seq.", 1, maxLogLimit, defaultLogLimit),
					"headers":        boolean("Include request and response headers of network entries.", false),
					"bodies":         boolean("Include response bodies of the network entries returned (text only, while the browser still holds them; the first 20).", false),
					"max_body_chars": integer("Cut each body at this many characters.", minBodyChars, maxBodyChars, defaultBodyChar),
					"timeout_ms":     timeoutField(),
				}),
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
			}
		},
		run: s.runLogs,
	}
}

func (s *server) runLogs(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
	var in logsInput
	if err := decode(args, &in); err != nil {
		return nil, "", err
	}
	if err := logsCheck(in); err != nil {
		return nil, "", err
	}
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

func logsCheck(in logsInput) error {
	if err := firstErr(
		required("tab_handle", in.TabHandle),
		between("after_seq", in.AfterSeq, 0, maxAfterSeq),
		between("limit", in.Limit, 1, maxLogLimit),
		between("max_body_chars", in.MaxBodyChars, minBodyChars, maxBodyChars),
		between("timeout_ms", in.TimeoutMS, minTimeoutMS(), maxTimeoutMS()),
	); err != nil {
		return err
	}
	if in.Kind != nil && len(in.Kind) == 0 {
		return errs.Input("kind", "must not be empty; omit it for every kind")
	}
	seen := map[string]bool{}
	for i, k := range in.Kind {
		path := "kind[" + strconv.Itoa(i) + "]"
		if err := oneOf(path, k, logKinds...); err != nil {
			return err
		}
		if seen[k] {
			return errs.Input(path, "%q is given twice", k)
		}
		seen[k] = true
	}
	if in.Level != "" {
		if err := oneOf("level", in.Level, "debug", "info", "warning", "error"); err != nil {
			return err
		}
	}
	if in.MaxBodyChars != nil && !in.Bodies {
		return errs.Input("max_body_chars", "only goes with bodies: true")
	}
	return nil
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
