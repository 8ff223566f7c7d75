package tabs

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// Bounds of a tab's log: entries kept (oldest evicted first), requests in
// flight tracked, characters of one text, frames of one stack, headers.
const (
	LogCapacity   = 1000
	maxPending    = 500
	maxLogText    = 2000
	maxStack      = 10
	maxHeaders    = 40
	maxHeaderText = 500
)

// Log entry kinds.
const (
	LogConsole    = "console"    // console.* calls and the browser's own messages
	LogError      = "error"      // uncaught exceptions and rejections
	LogNetwork    = "network"    // one finished or failed request
	LogNavigation = "navigation" // the main frame moved
	LogDownload   = "download"   // a file saved to the downloads folder
)

// LogEntry is one thing the tab reported since it was claimed. Fields are
// left out when they do not apply to the kind.
type LogEntry struct {
	Seq    int64    `json:"seq"`
	Kind   string   `json:"kind"`
	Time   int64    `json:"time"`            // epoch ms
	Level  string   `json:"level,omitempty"` // debug, info, warning, error
	Text   string   `json:"text,omitempty"`
	URL    string   `json:"url,omitempty"`
	Source string   `json:"source,omitempty"` // url:line:column of a console call or exception; the browser's source (network, security...) of its own messages
	Stack  []string `json:"stack,omitempty"`
	// network
	Method          string            `json:"method,omitempty"`
	Status          int64             `json:"status,omitempty"`
	Type            string            `json:"type,omitempty"` // resource type; for navigation, how (link, reload, same_document...)
	MIME            string            `json:"mime,omitempty"`
	DurationMS      float64           `json:"duration_ms,omitempty"`
	Bytes           int64             `json:"bytes,omitempty"` // received over the network, headers included; a download's size on disk
	Error           string            `json:"error,omitempty"` // Chromium's net error (net::ERR_...)
	FromCache       bool              `json:"from_cache,omitempty"`
	RequestHeaders  map[string]string `json:"request_headers,omitempty"`
	ResponseHeaders map[string]string `json:"response_headers,omitempty"`
	RequestID       string            `json:"request_id,omitempty"`
	Path            string            `json:"path,omitempty"`   // a download's file
	TabID           string            `json:"tab_id,omitempty"` // a popup's tab (navigation type popup)
	Count           int               `json:"count,omitempty"`  // how many popups one popup_closed entry stands for
}

// LogQuery selects entries; zero values select everything.
type LogQuery struct {
	AfterSeq    int64
	Kinds       []string
	MinLevel    string // console and error entries at this level or above
	URLContains string
	Limit       int
}

// LogPage is what a query returns. Next is the cursor to pass as AfterSeq
// to continue; Lost counts entries after AfterSeq that were evicted before
// this read (data loss); Pending lists requests still in flight.
type LogPage struct {
	Entries []LogEntry
	Next    int64
	Lost    int64
	More    bool
	Pending []LogEntry
}

// logBuffer is a tab's ring of entries, fed by its events.
type logBuffer struct {
	mu      sync.Mutex
	ring    []LogEntry
	start   int   // index of the oldest entry
	seq     int64 // seq of the newest entry
	pending map[network.RequestID]*inflight
	read    int64                   // the newest seq a query has gone past: entries up to it may have been seen
	refusal func(url string) string // why the network gate refused url's place, or ""
	grew    chan struct{}           // closed by the next add; nil until someone waits
}

type inflight struct {
	entry LogEntry
	began float64 // monotonic seconds
}

func newLogBuffer(refusal func(url string) string) *logBuffer {
	if refusal == nil {
		refusal = func(string) string { return "" }
	}
	return &logBuffer{ring: make([]LogEntry, 0, 64), pending: map[network.RequestID]*inflight{}, refusal: refusal}
}

// add appends e, evicting the oldest entry when full, and wakes whoever
// waits for the log to grow.
func (b *logBuffer) add(e LogEntry) {
	if b.grew != nil {
		close(b.grew)
		b.grew = nil
	}
	b.seq++
	e.Seq = b.seq
	if e.Time == 0 {
		e.Time = time.Now().UnixMilli()
	}
	hideEntryCredentials(&e)
	if len(b.ring) < LogCapacity {
		b.ring = append(b.ring, e)
		return
	}
	b.ring[b.start] = e
	b.start = (b.start + 1) % len(b.ring)
}

// record turns one CDP event into entries. It runs on the connection's
// reader, so it decodes only the events it keeps.
func (b *logBuffer) record(method string, params jsonv2.Value) {
	switch method {
	case "Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded":
		b.console(method, params)
	case "Network.requestWillBeSent", "Network.responseReceived", "Network.loadingFinished", "Network.loadingFailed":
		b.network(method, params)
	case "Page.frameNavigated":
		var ev page.EventFrameNavigated
		if jsonv2.Unmarshal(params, &ev) != nil || ev.Frame == nil || ev.Frame.ParentID != "" {
			return
		}
		b.locked(LogEntry{Kind: LogNavigation, URL: ev.Frame.URL + ev.Frame.URLFragment, Type: string(ev.Type)})
	case "Page.navigatedWithinDocument":
		var ev page.EventNavigatedWithinDocument
		if jsonv2.Unmarshal(params, &ev) != nil {
			return
		}
		b.locked(LogEntry{Kind: LogNavigation, URL: ev.URL, Type: "same_document"})
	}
}

// addClosedPopups adds e's count to the newest entry when that one tells
// of closed popups too and no query has gone past it (so no reader ever
// sees a count change), else adds e.
func (b *logBuffer) addClosedPopups(e LogEntry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := len(b.ring); n > 0 {
		last := &b.ring[(b.start+n-1)%n]
		if last.Kind == e.Kind && last.Type == e.Type && last.Seq > b.read {
			last.Count += e.Count
			return
		}
	}
	b.add(e)
}

func (b *logBuffer) locked(e LogEntry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.add(e)
}

func (b *logBuffer) console(method string, params jsonv2.Value) {
	var e LogEntry
	switch method {
	case "Runtime.consoleAPICalled":
		var ev runtime.EventConsoleAPICalled
		if jsonv2.Unmarshal(params, &ev) != nil {
			return
		}
		parts := make([]string, 0, len(ev.Args))
		for _, a := range ev.Args {
			parts = append(parts, argText(a))
		}
		e = LogEntry{Kind: LogConsole, Level: consoleLevel(ev.Type), Text: strings.Join(parts, " "), Time: int64(ev.Timestamp)}
		e.Source, e.Stack = stackOf(ev.StackTrace, e.Level == "error" || ev.Type == runtime.ConsoleAPICalledTypeTrace || ev.Type == runtime.ConsoleAPICalledTypeAssert)
	case "Runtime.exceptionThrown":
		var ev runtime.EventExceptionThrown
		if jsonv2.Unmarshal(params, &ev) != nil || ev.ExceptionDetails == nil {
			return
		}
		d := ev.ExceptionDetails
		e = LogEntry{Kind: LogError, Level: "error", Text: d.Text, Time: int64(ev.Timestamp)}
		if d.Exception != nil && d.Exception.Description != "" {
			e.Text = d.Exception.Description // "TypeError: x is undefined\n    at ..."; its first line is enough with the stack
			e.Text, _, _ = strings.Cut(e.Text, "\n")
		}
		e.Source, e.Stack = stackOf(d.StackTrace, true)
		if e.Source == "" && d.URL != "" {
			e.Source = fmt.Sprintf("%s:%d:%d", d.URL, d.LineNumber+1, d.ColumnNumber+1)
		}
	default:
		var ev cdplog.EventEntryAdded
		if jsonv2.Unmarshal(params, &ev) != nil || ev.Entry == nil {
			return
		}
		en := ev.Entry
		lvl := string(en.Level)
		if lvl == "verbose" {
			lvl = "debug"
		}
		e = LogEntry{Kind: LogConsole, Level: lvl, Text: en.Text, URL: en.URL, Source: string(en.Source), Time: int64(en.Timestamp)}
	}
	e.Text = clipText(e.Text, maxLogText)
	b.locked(e)
}

// consoleLevel maps a console call to one of four levels.
func consoleLevel(t runtime.ConsoleAPICalledType) string {
	switch t {
	case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
		return "error"
	case runtime.ConsoleAPICalledTypeWarning:
		return "warning"
	case runtime.ConsoleAPICalledTypeDebug:
		return "debug"
	}
	return "info"
}

// argText renders one console argument the way DevTools' one-line view
// would: a primitive's value, else the object's description.
func argText(a *runtime.RemoteObject) string {
	if a == nil {
		return ""
	}
	if len(a.Value) > 0 {
		var s string
		if jsonv2.Unmarshal(a.Value, &s) == nil {
			return s
		}
		return string(a.Value)
	}
	if a.UnserializableValue != "" {
		return string(a.UnserializableValue)
	}
	if a.Description != "" {
		return a.Description
	}
	return string(a.Type)
}

// stackOf returns where a call came from and, when full, its stack.
func stackOf(st *runtime.StackTrace, full bool) (string, []string) {
	if st == nil || len(st.CallFrames) == 0 {
		return "", nil
	}
	where := func(f *runtime.CallFrame) string {
		return fmt.Sprintf("%s:%d:%d", f.URL, f.LineNumber+1, f.ColumnNumber+1)
	}
	src := where(st.CallFrames[0])
	if !full {
		return src, nil
	}
	var out []string
	for _, f := range st.CallFrames {
		if len(out) == maxStack {
			break
		}
		name := f.FunctionName
		if name == "" {
			name = "(anonymous)"
		}
		out = append(out, name+" "+where(f))
	}
	return src, out
}

func (b *logBuffer) network(method string, params jsonv2.Value) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch method {
	case "Network.requestWillBeSent":
		var ev network.EventRequestWillBeSent
		if jsonv2.Unmarshal(params, &ev) != nil || ev.Request == nil {
			return
		}
		if prev, ok := b.pending[ev.RequestID]; ok && ev.RedirectResponse != nil {
			prev.respond(ev.RedirectResponse)
			prev.entry.DurationMS = ms(float64(ev.Timestamp) - prev.began)
			delete(b.pending, ev.RequestID)
			b.add(prev.entry)
		}
		if len(b.pending) >= maxPending {
			return // a page flooding requests: the rest are not followed
		}
		p := &inflight{began: float64(ev.Timestamp), entry: LogEntry{
			Kind: LogNetwork, Method: ev.Request.Method, URL: ev.Request.URL + ev.Request.URLFragment, Type: string(ev.Type),
			Time: int64(float64(ev.WallTime) * 1000), RequestID: string(ev.RequestID), RequestHeaders: headers(ev.Request.Headers),
		}}
		hideEntryCredentials(&p.entry) // pending requests are listed too
		b.pending[ev.RequestID] = p
	case "Network.responseReceived":
		var ev network.EventResponseReceived
		if jsonv2.Unmarshal(params, &ev) != nil || ev.Response == nil {
			return
		}
		if p, ok := b.pending[ev.RequestID]; ok {
			p.respond(ev.Response)
			p.entry.Type = string(ev.Type)
		}
	case "Network.loadingFinished":
		var ev network.EventLoadingFinished
		if jsonv2.Unmarshal(params, &ev) != nil {
			return
		}
		if p, ok := b.pending[ev.RequestID]; ok {
			p.entry.Bytes = int64(ev.EncodedDataLength)
			p.entry.DurationMS = ms(float64(ev.Timestamp) - p.began)
			delete(b.pending, ev.RequestID)
			b.add(p.entry)
		}
	case "Network.loadingFailed":
		var ev network.EventLoadingFailed
		if jsonv2.Unmarshal(params, &ev) != nil {
			return
		}
		if p, ok := b.pending[ev.RequestID]; ok {
			p.entry.Error = ev.ErrorText
			if ev.BlockedReason != "" {
				p.entry.Error += " (blocked: " + string(ev.BlockedReason) + ")"
			}
			if why := b.refusal(p.entry.URL); why != "" {
				p.entry.Error += " (refused by tabwright: " + why + ")"
			}
			p.entry.DurationMS = ms(float64(ev.Timestamp) - p.began)
			delete(b.pending, ev.RequestID)
			b.add(p.entry)
		}
	}
}

func (p *inflight) respond(r *network.Response) {
	p.entry.Status, p.entry.MIME = r.Status, r.MimeType
	p.entry.FromCache = r.FromDiskCache || r.FromServiceWorker || r.FromPrefetchCache
	p.entry.ResponseHeaders = headers(r.Headers)
	if h := headers(r.RequestHeaders); len(h) > 0 {
		p.entry.RequestHeaders = h // what was sent, cookies included (then redacted)
	}
}

func ms(seconds float64) float64 { return float64(int64(seconds*10000+0.5)) / 10 }

// headers copies at most maxHeaders headers, values cut.
func headers(h network.Headers) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, min(len(h), maxHeaders))
	for k, v := range h {
		if len(out) == maxHeaders {
			break
		}
		out[k] = clipText(fmt.Sprint(v), maxHeaderText)
	}
	return out
}

// query returns the entries q selects.
func (b *logBuffer) query(q LogQuery) LogPage {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := LogPage{Next: max(q.AfterSeq, 0), Entries: []LogEntry{}}
	n := len(b.ring)
	if n > 0 {
		oldest := b.ring[b.start].Seq
		if q.AfterSeq < oldest-1 {
			out.Lost = oldest - 1 - max(q.AfterSeq, 0)
		}
	}
	for i := 0; i < n; i++ {
		e := b.ring[(b.start+i)%n]
		if e.Seq <= q.AfterSeq {
			continue
		}
		if q.Limit > 0 && len(out.Entries) == q.Limit {
			out.More = true
			break
		}
		out.Next = e.Seq
		b.read = max(b.read, e.Seq)
		if q.matches(e) {
			out.Entries = append(out.Entries, e)
		}
	}
	if q.wants(LogNetwork) {
		for _, p := range b.pending {
			if q.URLContains == "" || strings.Contains(p.entry.URL, q.URLContains) {
				e := p.entry // its header maps are still written to: hand out copies
				e.RequestHeaders, e.ResponseHeaders = maps.Clone(e.RequestHeaders), maps.Clone(e.ResponseHeaders)
				out.Pending = append(out.Pending, e)
			}
		}
	}
	return out
}

var levelRank = map[string]int{"debug": 0, "info": 1, "warning": 2, "error": 3}

func (q LogQuery) wants(kind string) bool {
	if len(q.Kinds) == 0 {
		return true
	}
	for _, k := range q.Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

func (q LogQuery) matches(e LogEntry) bool {
	if !q.wants(e.Kind) {
		return false
	}
	if q.MinLevel != "" && e.Level != "" && levelRank[e.Level] < levelRank[q.MinLevel] {
		return false
	}
	if q.MinLevel != "" && e.Level == "" {
		return false
	}
	return q.URLContains == "" || strings.Contains(e.URL, q.URLContains) || strings.Contains(e.Source, q.URLContains)
}

// Logs reads the tab's log. It takes no turn in the tab's queue and sends
// nothing to the browser, so it answers while the page is hung.
func (t *Tab) Logs(q LogQuery) LogPage { return t.logs.query(q) }

// LogGrew returns a channel closed when the tab's log next gains an entry.
// Take it before reading the log, so that no entry falls between.
func (t *Tab) LogGrew() <-chan struct{} {
	b := t.logs
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.grew == nil {
		b.grew = make(chan struct{})
	}
	return b.grew
}

// clipText cuts s at n characters, saying how much was cut.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + fmt.Sprintf("… [%d more characters]", len(r)-n)
}

// ResponseBody fetches the body of a logged request while the browser
// still holds it. A binary body comes back as its size only.
func (t *Tab) ResponseBody(ctx context.Context, requestID string) (body string, binary bool, err error) {
	res, err := cdproto.Call(ctx, t.sess, network.GetResponseBody, network.GetResponseBodyParams{RequestID: network.RequestID(requestID)})
	if err != nil {
		return "", false, err
	}
	if res.Base64encoded {
		return "", true, nil
	}
	return string(res.Body), false, nil
}
