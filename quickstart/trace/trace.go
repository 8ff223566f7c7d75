// Package trace is an attempt's event log: one JSON object per event, in
// append order, written as trace.jsonl. Events are made by the typed
// constructors in events.go, so what a reader or the classifier looks for
// is named once; the log also keeps the few facts the verdict needs as the
// events arrive, so classification never searches text.
package trace

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/egress"
)

// Event is one entry: its type and its fields (ts and type are added when
// it is recorded).
type Event struct {
	Type   Type
	Fields map[string]any
}

// Facts are what classification needs from the log.
type Facts struct {
	EgressErrors      int // the proxy could not reach an allowed host
	EgressBlocked     int // refusals, every reason
	NotAllowlisted    int // refusals of hosts nothing allowed
	DocsHostRefusals  int // the shell tried a docs host (docs_bypass_attempts)
	BrowserCalls      int
	APIRetries        int
	ThinkingFallbacks int
	DocsReads         int    // pages read
	DocsFailures      int    // reads refused or failed (not an agent's reads off the allowlist)
	FirstDocsFailure  string // "URL: why" of the first
}

// Trace is one attempt's log; safe for concurrent use.
type Trace struct {
	mu      sync.Mutex
	events  []map[string]any
	facts   Facts
	start   time.Time
	onEvent func(ev map[string]any, elapsed time.Duration)
}

// New starts a log; on (may be nil) sees every event as it is recorded.
func New(on func(ev map[string]any, elapsed time.Duration)) *Trace {
	return &Trace{start: time.Now(), onEvent: on}
}

// Add records e.
func (t *Trace) Add(e Event) {
	ev := make(map[string]any, len(e.Fields)+2)
	for k, v := range e.Fields {
		ev[k] = v
	}
	ev["ts"] = float64(time.Now().UnixMicro()) / 1e6
	ev["type"] = string(e.Type)
	t.mu.Lock()
	t.events = append(t.events, ev)
	t.count(e)
	t.mu.Unlock()
	if t.onEvent != nil {
		func() {
			defer func() { recover() }() // a progress printer never breaks a run
			t.onEvent(ev, time.Since(t.start))
		}()
	}
}

func (t *Trace) count(e Event) {
	f := &t.facts
	// The check's browser is recorded too, but what it was refused or
	// failed to reach says nothing of the shell's allowlist or the docs.
	byCheck := ByOf(e.Fields) == ByCheckBrowser
	switch e.Type {
	case EgressError:
		if !byCheck {
			f.EgressErrors++
		}
	case EgressBlocked:
		f.EgressBlocked++
		if byCheck {
			break
		}
		switch reasonOf(e.Fields) {
		case egress.ReasonNotListed:
			f.NotAllowlisted++
		case egress.ReasonDocsHost:
			f.DocsHostRefusals++
		}
	case DocsRead:
		f.DocsReads++
	case DocsReadBlocked, DocsReadError:
		if e.Type == DocsReadBlocked && ByOf(e.Fields) == ByAgent && fmt.Sprint(e.Fields["reason"]) == string(docs.BlockedOffAllowlist) {
			break // a model guessing a URL off the allowlist says nothing about the docs' hosts
		}
		f.DocsFailures++
		if f.FirstDocsFailure == "" {
			why := e.Fields["error"]
			if why == nil {
				why = e.Fields["reason"]
			}
			f.FirstDocsFailure = fmt.Sprintf("%v: %v", e.Fields["url"], why)
		}
	case BrowserCall:
		f.BrowserCalls++
	case APIRetry:
		f.APIRetries++
	case ThinkingUnsupported:
		f.ThinkingFallbacks++
	}
}

// Facts returns the counts so far.
func (t *Trace) Facts() Facts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.facts
}

// Events returns a copy of the events.
func (t *Trace) Events() []map[string]any {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]map[string]any(nil), t.events...)
}

// JSONL is the log as JSON lines.
func (t *Trace) JSONL() []byte {
	var out []byte
	for _, ev := range t.Events() {
		b, _ := json.Marshal(ev)
		out = append(append(out, b...), '\n')
	}
	return out
}

// reasonOf is the proxy's reason in an event's fields, a string as
// recorded (or a Reason in an event a test built).
func reasonOf(f map[string]any) egress.Reason {
	switch v := f["reason"].(type) {
	case egress.Reason:
		return v
	case string:
		return egress.Reason(v)
	}
	return ""
}
