package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxStdioLine bounds one message on stdio, as the SDK's default line bound.
const MaxStdioLine = mcp.DefaultMaxLineLength

// Stdio is MCP over this process's stdin and stdout, one JSON-RPC message a
// line (the MCP stdio transport), with a filter in front of the SDK's
// connection, which ends at the first frame it cannot take:
//   - a line that is not one JSON-RPC message the SDK takes (not JSON, a
//     batch, an id that is neither a number nor a string, a line over
//     MaxStdioLine) is answered here with the JSON-RPC error (-32700 parse
//     error, -32600 invalid request) and never reaches the SDK;
//   - a request the client cancelled gets no response: the MCP spec asks
//     receivers of notifications/cancelled not to answer, and the SDK's
//     JSON-RPC layer always does.
func Stdio(in io.Reader, out io.Writer) mcp.Transport {
	w := &lockedWriter{w: out}
	c := &cancelled{ids: map[string]bool{}}
	return &mcp.IOTransport{
		Reader:        io.NopCloser(&lineFilter{lines: newLineReader(in), c: c, reply: w, max: MaxStdioLine}),
		Writer:        nopClose{&dropCancelled{w: w, c: c}},
		MaxLineLength: -1, // the filter bounds lines, before the SDK buffers them
	}
}

func newLineReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 64<<10) }

// lockedWriter writes one message per Write, so the filter's error answers
// never interleave with the SDK's messages.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

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

// lineFilter hands the SDK the client's good lines, each trimmed to its
// JSON value and ended by a newline, answers the bad ones itself, and
// notes the cancellations.
type lineFilter struct {
	lines   *bufio.Reader
	c       *cancelled
	reply   io.Writer
	max     int
	buf     []byte // the line being read
	pending []byte // what the SDK has yet to read of the last good line
	err     error
}

func (r *lineFilter) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.next()
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// next reads one line and either makes it pending or answers it.
func (r *lineFilter) next() {
	line, tooLong, err := r.readLine()
	if err != nil {
		r.err = err // after what was read
	}
	if tooLong {
		r.answer(jsonrpc.CodeInvalidRequest, leadingID(line),
			fmt.Sprintf("Invalid Request: the line is over %d bytes; it was skipped up to its newline", r.max))
		return
	}
	msg := bytes.Trim(line, " \t\r\n")
	if len(msg) == 0 {
		return
	}
	decoded, code, id, why := screen(msg)
	if code != 0 {
		r.answer(code, id, why)
		return
	}
	r.note(decoded)
	r.pending = append(msg, '\n')
	if cap(r.buf) > 1<<20 {
		r.buf = nil // a big line's buffer is not kept for the small ones after it
	}
}

// readLine reads up to the next newline. A line over r.max is skipped to
// its newline without being held: tooLong is then set, and line is its
// first chunk.
func (r *lineFilter) readLine() (line []byte, tooLong bool, err error) {
	r.buf = r.buf[:0]
	var head []byte // a long line's first chunk
	for {
		chunk, err := r.lines.ReadSlice('\n')
		switch {
		case tooLong:
		case len(r.buf)+len(chunk) > r.max+1: // +1: the newline
			tooLong = true
			head = append(head, r.buf[:min(len(r.buf), 64<<10)]...)
			if len(head) == 0 {
				head = append(head, chunk...)
			}
			r.buf = nil
		default:
			r.buf = appendDoubling(r.buf, chunk)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if tooLong {
				return head, true, err
			}
			return r.buf, false, err
		}
	}
}

// appendDoubling is append growing by doubling: a line of n bytes costs
// about 2n of allocations, where append's growth by 1.25 costs 5n.
func appendDoubling(buf, b []byte) []byte {
	if need := len(buf) + len(b); need > cap(buf) {
		grown := make([]byte, len(buf), max(need, 2*cap(buf)))
		copy(grown, buf)
		buf = grown
	}
	return append(buf, b...)
}

// screen decodes a line as the SDK will, or returns the JSON-RPC error
// for one it would not take as a message; id is then the request's id if
// it has a usable one.
func screen(msg []byte) (decoded jsonrpc.Message, code int, id json.RawMessage, why string) {
	if !json.Valid(msg) {
		return nil, jsonrpc.CodeParseError, nil, "Parse error: the line is not one JSON value"
	}
	if msg[0] == '[' {
		return nil, jsonrpc.CodeInvalidRequest, nil, batchRefusal
	}
	// The SDK's own decoder: what it refuses here would end its connection.
	decoded, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		return nil, jsonrpc.CodeInvalidRequest, usableID(msg), "Invalid Request: " + err.Error()
	}
	return decoded, 0, nil, ""
}

const batchRefusal = "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message per line"

// usableID returns msg's id when it is a number or a string, the ids an
// answer can carry.
func usableID(msg []byte) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(msg, &fields) != nil {
		return nil
	}
	if _, ok := idKey(fields["id"]); !ok {
		return nil
	}
	return fields["id"]
}

// leadingID finds a top-level "id" in the start of an object cut short,
// so that the answer to a line too long to read still names its request.
func leadingID(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "id" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		var id json.RawMessage
		if dec.Decode(&id) != nil {
			return nil
		}
		if _, ok := idKey(id); ok {
			return id
		}
		return nil
	}
	return nil
}

// answer writes a JSON-RPC error response (id null when id is nil).
func (r *lineFilter) answer(code int, id json.RawMessage, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: message}})
	r.reply.Write(append(b, '\n')) // a client that stopped reading is the SDK's to notice
}

// note remembers the request a notifications/cancelled names.
func (r *lineFilter) note(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != "notifications/cancelled" || req.IsCall() {
		return
	}
	var params map[string]json.RawMessage // keys matched exactly, as the SDK does
	if json.Unmarshal(req.Params, &params) != nil {
		return
	}
	if id, ok := idKey(params["requestId"]); ok {
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
