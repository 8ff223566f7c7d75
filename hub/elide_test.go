package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/injected"
)

// captureTransport records what the engine's connection writes and never
// answers.
type captureTransport struct {
	out  chan []byte
	done chan struct{}
}

func (c *captureTransport) WriteMessage(d []byte) error { c.out <- d; return nil }
func (c *captureTransport) ReadMessage() ([]byte, error) {
	<-c.done
	return nil, context.Canceled
}
func (c *captureTransport) Close() error { return nil }

// engineBytes returns the command the engine writes for an evaluation.
func engineBytes(t *testing.T, params runtime.EvaluateParams) []byte {
	t.Helper()
	tr := &captureTransport{out: make(chan []byte, 1), done: make(chan struct{})}
	conn := cdp.New(tr)
	defer func() { close(tr.done); conn.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	go cdproto.Call(ctx, conn.SessionByID("S1"), runtime.Evaluate, params)
	select {
	case d := <-tr.out:
		return d
	case <-time.After(5 * time.Second):
		t.Fatal("the engine wrote nothing")
		return nil
	}
}

// expressionOf decodes the expression of an evaluation command.
func expressionOf(t *testing.T, data []byte) string {
	t.Helper()
	var m struct {
		Params struct {
			Expression string `json:"expression"`
		} `json:"params"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("not JSON after rewriting: %v\n%.300s", err, data)
	}
	return m.Params.Expression
}

func TestElideInstallersOncePerWorld(t *testing.T) {
	call := `globalThis.__tabwright.observe({"maxChars":4000})`
	program := injected.Program(call, injected.Observe, injected.A11y, injected.Lists, injected.Tables, injected.Watch)
	cmd := engineBytes(t, runtime.EvaluateParams{Expression: program, ReturnByValue: ptr(true), UniqueContextID: "world-1"})
	e := newElider()

	first := e.command(1, "S1", cmd)
	full := expressionOf(t, first)
	if !strings.HasPrefix(full, injected.Core) || !strings.HasSuffix(full, call) || !strings.Contains(full, markGlobal) {
		t.Fatalf("the first command must carry the installers, the mark and the call; got %d bytes", len(full))
	}
	second := e.command(2, "S1", cmd)
	guarded := expressionOf(t, second)
	if len(second) > 600 || !strings.HasSuffix(guarded, call) || !strings.Contains(guarded, e.nonce) {
		t.Fatalf("the second command in the same world must be the guard and the call, got %d bytes: %.200s", len(second), guarded)
	}
	if !bytes.Contains(second, []byte(`"uniqueContextId":"world-1"`)) || !bytes.HasPrefix(second, []byte(`{"id":`)) {
		t.Fatalf("the rest of the command changed: %s", second)
	}
	// An ordinary answer passes; an answer from the guard sends the full
	// program again under the same id, once.
	if again := e.reply(2, []byte(`{"id":2,"sessionId":"S1","result":{"result":{"type":"number","value":1}}}`)); again != nil {
		t.Fatal("an answer to a guarded command was taken for the guard's")
	}
	third := e.command(3, "S1", cmd)
	stale := []byte(`{"id":3,"sessionId":"S1","result":{"result":{"type":"object","subtype":"error","description":"Error: ` + e.nonce + `\n at <anonymous>:1:60"},"exceptionDetails":{"text":"Uncaught"}}}`)
	again := e.reply(3, stale)
	if again == nil || expressionOf(t, again) != expressionOf(t, first) {
		t.Fatalf("the guard's answer did not bring the full program back: %.200s", again)
	}
	if e.reply(3, stale) != nil {
		t.Fatal("a command was sent again twice")
	}
	if len(third) > 600 {
		t.Fatal("the third command was not elided")
	}
	// The full program sent again sets the mark again: the next command is
	// the guard.
	if got := e.command(4, "S1", cmd); len(got) > 600 {
		t.Fatal("not elided after the full program was sent again")
	}

	// Other worlds, sessions and programs are their own.
	other := engineBytes(t, runtime.EvaluateParams{Expression: program, ReturnByValue: ptr(true), UniqueContextID: "world-2"})
	if got := e.command(5, "S1", other); len(got) < len(cmd) {
		t.Fatal("a new world got the guard")
	}
	if got := e.command(6, "S2", cmd); len(got) < len(cmd) {
		t.Fatal("a new session got the guard")
	}
	act := engineBytes(t, runtime.EvaluateParams{Expression: injected.Program("1", injected.Act), UniqueContextID: "world-1"})
	if got := e.command(7, "S1", act); len(got) < len(act) {
		t.Fatal("another program got the guard of the first")
	}
	if got := e.command(8, "S1", act); len(got) > 600 {
		t.Fatal("the act program was not elided the second time")
	}
}

func TestElideLeavesOthersAlone(t *testing.T) {
	e := newElider()
	program := injected.Program("1", injected.Act)
	cases := map[string][]byte{
		"no context (the page's main world)": engineBytes(t, runtime.EvaluateParams{Expression: program}),
		"not an installer program":           engineBytes(t, runtime.EvaluateParams{Expression: "/*" + strings.Repeat("x", 10000) + "*/1", ContextID: 3}),
		"installers but no call":             engineBytes(t, runtime.EvaluateParams{Expression: injected.Program("", injected.Act), ContextID: 3}),
		"small":                              engineBytes(t, runtime.EvaluateParams{Expression: "1", ContextID: 3}),
	}
	for name, cmd := range cases {
		for i := int64(1); i <= 2; i++ {
			if got := e.command(i, "S1", cmd); !bytes.Equal(got, cmd) {
				t.Fatalf("%s: rewritten", name)
			}
		}
	}
	// contextId works like uniqueContextId
	cmd := engineBytes(t, runtime.EvaluateParams{Expression: program, ContextID: 3})
	e.command(9, "S1", cmd)
	if got := e.command(10, "S1", cmd); len(got) > 600 {
		t.Fatalf("contextId: not elided (%d bytes)", len(got))
	}
}
