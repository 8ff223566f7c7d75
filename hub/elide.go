package hub

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/tabwright/tabwright/engine/injected"
)

// Prelude elision: the relay's one optimisation of what it carries.
//
// The engine evaluates its page-side scripts as one program per command:
// the installers of engine/injected (core, observe, act, ...; each a no-op
// once installed in a world) followed by the call that does the work, some
// 50 KB of which only the last few hundred bytes change. Over a DevTools
// WebSocket that costs next to nothing; through chrome.debugger every byte
// crosses the extension's bindings, an IPC hop and two JSON conversions, and
// a 50 KB command costs about 1.5 ms more than a small one.
//
// So the hub sends the installers of a program to a world (a session and an
// execution context of ours) once, with a mark set after them, and from then
// on only a guard and the call: the guard checks the mark and, when it is
// missing (a world the hub took for another, or one that lost its state),
// throws an error carrying a nonce of this hub before the call runs; the hub
// then sends the full program under the same id, and the engine never sees
// the stale answer. The call therefore runs exactly once either way.
//
// Only evaluations in a named context are elided: the engine names its
// isolated world, where the page cannot forge the mark. Everything else is
// relayed byte for byte.

// minElide is the size under which a command is relayed untouched.
const minElide = 4096

// markGlobal holds the marks in a world: prelude key -> 1.
const markGlobal = "__tabwrightRelay"

// maxMarks bounds the worlds remembered per profile; forgetting is safe
// (the next command in a forgotten world sends the full program again).
const maxMarks = 4096

// preludes are the installers the hub recognises, JSON-encoded the way the
// engine encodes them (without quotes), each with the "\n;" that
// injected.Program puts after it. Core comes first in every program.
// Computed on first use: encoding some 200 KB of scripts cost every start of
// the binary about 1.5 ms, most of which never relay anything.
var preludes = sync.OnceValue(func() [][]byte {
	out := [][]byte{}
	for _, s := range []string{injected.Core, injected.Observe, injected.A11y, injected.Lists, injected.Tables, injected.Watch, injected.Act} {
		out = append(out, jsonText(s+"\n;"))
	}
	return out
})

// jsonText returns s as the engine's JSON encoder writes it, without the
// surrounding quotes.
func jsonText(s string) []byte {
	raw, err := jsonv2.Marshal(s)
	if err != nil {
		panic(err)
	}
	return raw[1 : len(raw)-1]
}

var evaluateHead = []byte(`"method":"Runtime.evaluate","params":{"expression":"`)

// elider rewrites the evaluations of one profile.
type elider struct {
	nonce string // in the guard's error; nothing but this hub knows it

	mu      sync.Mutex
	marks   map[string]bool    // session|context|prelude -> the full program was sent
	guarded map[int64]guardCmd // command id -> what to send when the guard fails

	elided, resent atomic.Int64 // for tests and measurements
}

type guardCmd struct {
	mark string // the world's key in marks
	full []byte
}

func newElider() *elider {
	b := make([]byte, 16)
	rand.Read(b)
	return &elider{nonce: "tabwright-relay-stale-" + hex.EncodeToString(b), marks: map[string]bool{}, guarded: map[int64]guardCmd{}}
}

// command returns what to send to the extension for the command with the
// id and session id: data itself, or a shorter evaluation.
func (e *elider) command(id int64, sid string, data []byte) []byte {
	if len(data) < minElide || sid == "" || id == 0 {
		return data
	}
	head := bytes.Index(data[:min(len(data), 256)], evaluateHead)
	if head < 0 {
		return data
	}
	start := head + len(evaluateHead) // the expression's first byte
	preludes := preludes()
	if !bytes.HasPrefix(data[start:], preludes[0]) {
		return data // every program starts with core
	}
	pos := start + len(preludes[0])
	key := []string{"0"}
	used := make([]bool, len(preludes))
	for found := true; found; {
		found = false
		for i := 1; i < len(preludes); i++ {
			if !used[i] && bytes.HasPrefix(data[pos:], preludes[i]) {
				pos += len(preludes[i])
				key = append(key, strconv.Itoa(i))
				used[i], found = true, true
			}
		}
	}
	end := stringEnd(data, pos)
	if end <= pos {
		return data // no call after the installers, or a malformed string
	}
	world := contextOf(data[end:])
	if world == "" {
		return data
	}
	prelude := strings.Join(key, ".")
	mark := sid + "|" + world + "|" + prelude
	full := concat(data[:pos], jsonText("(globalThis."+markGlobal+"||(globalThis."+markGlobal+"={}))['"+prelude+"']=1;\n"), data[pos:])

	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.marks[mark] {
		if len(e.marks) >= maxMarks {
			clear(e.marks)
		}
		e.marks[mark] = true
		return full
	}
	e.guarded[id] = guardCmd{mark: mark, full: full}
	e.elided.Add(1)
	guard := "if(!(globalThis." + markGlobal + "||{})['" + prelude + "'])throw new Error('" + e.nonce + "');\n"
	return concat(data[:start], jsonText(guard), data[pos:])
}

// reply looks at the extension's reply to command id: when the guard found
// no installers, it returns the full program to send instead, and the reply
// must not reach the engine.
func (e *elider) reply(id int64, data []byte) (resend []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	g, ok := e.guarded[id]
	if !ok {
		return nil
	}
	delete(e.guarded, id)
	if !bytes.Contains(data, []byte(e.nonce)) {
		return nil
	}
	e.marks[g.mark] = true // the full program that goes out sets the mark again
	e.resent.Add(1)
	return g.full
}

// forget drops what the elider keeps for command id (answered by the hub
// itself, e.g. because the extension went away).
func (e *elider) forget(id int64) {
	e.mu.Lock()
	delete(e.guarded, id)
	e.mu.Unlock()
}

// reset forgets every world, e.g. when the extension reconnects.
func (e *elider) reset() {
	e.mu.Lock()
	clear(e.marks)
	e.mu.Unlock()
}

// stringEnd returns the index of the quote that ends the JSON string whose
// text continues at data[from:], or -1.
func stringEnd(data []byte, from int) int {
	for i := from; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// contextOf finds the execution context an evaluation names in the rest of
// its params: uniqueContextId, else contextId; "" when it names none.
func contextOf(rest []byte) string {
	if i := bytes.Index(rest, []byte(`"uniqueContextId":"`)); i >= 0 {
		v := rest[i+len(`"uniqueContextId":"`):]
		if q := bytes.IndexByte(v, '"'); q > 0 {
			return "u" + string(v[:q])
		}
	}
	if i := bytes.Index(rest, []byte(`"contextId":`)); i >= 0 {
		v := rest[i+len(`"contextId":`):]
		n := 0
		for n < len(v) && v[n] >= '0' && v[n] <= '9' {
			n++
		}
		if n > 0 {
			return "c" + string(v[:n])
		}
	}
	return ""
}

func concat(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
