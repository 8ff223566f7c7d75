package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is MCP over this process's stdin and stdout, newline-delimited as
// the SDK's StdioTransport, except that a request the client cancelled
// gets no response: the MCP spec asks receivers of notifications/cancelled
// not to answer, and the SDK's JSON-RPC layer always does. The filter works
// on whole lines, so the SDK's own connection (batching rules included) is
// untouched.
func Stdio(in io.Reader, out io.Writer) mcp.Transport {
	c := &cancelled{ids: map[string]bool{}}
	return &mcp.IOTransport{
		Reader: io.NopCloser(&watchCancels{br: newLineReader(in), c: c}),
		Writer: nopClose{&dropCancelled{w: out, c: c}},
	}
}

func newLineReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 64<<10) }

// cancelled holds the ids of requests the client cancelled that have not
// been answered yet.
type cancelled struct {
	mu  sync.Mutex
	ids map[string]bool
}

// maxCancelled bounds the set: a cancellation that arrives after its answer
// leaves an id no answer will remove.
const maxCancelled = 256

func (c *cancelled) add(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ids) >= maxCancelled {
		clear(c.ids)
	}
	c.ids[id] = true
}

// take reports whether id was cancelled, forgetting it.
func (c *cancelled) take(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ids[id] {
		return false
	}
	delete(c.ids, id)
	return true
}

func (c *cancelled) any() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ids) > 0
}

// idKey renders a JSON-RPC id (number or string) as one key whatever its
// spelling (3, 3.0).
func idKey(raw json.RawMessage) (string, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch x := v.(type) {
	case float64:
		return "n" + strconv.FormatFloat(x, 'g', -1, 64), true
	case string:
		return "s" + x, true
	}
	return "", false
}

// watchCancels passes the client's lines on and notes the cancellations.
type watchCancels struct {
	br      *bufio.Reader
	c       *cancelled
	pending []byte
	err     error
	midLine bool // inside a line longer than the buffer: not inspected
}

var cancelMethod = []byte(`"notifications/cancelled"`)

func (r *watchCancels) Read(p []byte) (int, error) {
	if len(r.pending) == 0 && r.err == nil {
		line, err := r.br.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		if !r.midLine && !full && bytes.Contains(line, cancelMethod) {
			r.note(line)
		}
		r.midLine = full
		r.pending = line
		if err != nil && !full {
			r.err = err // after what was read
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	if len(r.pending) == 0 && r.err != nil {
		return n, r.err
	}
	return n, nil
}

func (r *watchCancels) note(line []byte) {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Method != "notifications/cancelled" {
		return
	}
	if id, ok := idKey(msg.Params.RequestID); ok {
		r.c.add(id)
	}
}

// dropCancelled writes the server's lines, leaving out the answer to a
// cancelled request. The SDK writes one message per Write.
type dropCancelled struct {
	w io.Writer
	c *cancelled
}

func (d *dropCancelled) Write(p []byte) (int, error) {
	if d.c.any() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(p, &msg) == nil && msg.Method == "" && len(msg.ID) > 0 {
			if id, ok := idKey(msg.ID); ok && d.c.take(id) {
				return len(p), nil
			}
		}
	}
	return d.w.Write(p)
}

type nopClose struct{ io.Writer }

func (nopClose) Close() error { return nil }
