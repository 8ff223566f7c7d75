// Package run runs attempts: a fresh sandbox, setup, the replay agent with
// read_docs, the success check, the verdict, and the results files.
package run

import (
	"encoding/json"
	"sync"
	"time"
)

// Trace is one attempt's event log, in append order.
type Trace struct {
	mu      sync.Mutex
	events  []map[string]any
	start   time.Time
	onEvent func(ev map[string]any, elapsed time.Duration)
}

func newTrace(on func(map[string]any, time.Duration)) *Trace {
	return &Trace{start: time.Now(), onEvent: on}
}

// Add appends an event of type typ with fields.
func (t *Trace) Add(typ string, fields map[string]any) {
	ev := map[string]any{"ts": float64(time.Now().UnixMicro()) / 1e6, "type": typ}
	for k, v := range fields {
		ev[k] = v
	}
	t.mu.Lock()
	t.events = append(t.events, ev)
	t.mu.Unlock()
	if t.onEvent != nil {
		func() {
			defer func() { recover() }() // a progress printer never breaks a run
			t.onEvent(ev, time.Since(t.start))
		}()
	}
}

// Events returns a copy of the events.
func (t *Trace) Events() []map[string]any {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]map[string]any(nil), t.events...)
}

// JSONL is the trace as JSON lines.
func (t *Trace) JSONL() []byte {
	var out []byte
	for _, ev := range t.Events() {
		b, _ := json.Marshal(ev)
		out = append(append(out, b...), '\n')
	}
	return out
}
