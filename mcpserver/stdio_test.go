package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioPeer is an SDK server behind the stdio filter, on pipes.
type stdioPeer struct {
	in    *io.PipeWriter
	lines chan string
	ended chan error
}

func startStdioPeer(t testing.TB) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := mcp.NewServer(&mcp.Implementation{Name: "peer", Version: "1"}, nil)
	p := &stdioPeer{in: inW, lines: make(chan string, 16), ended: make(chan error, 1)}
	go func() {
		p.ended <- srv.Run(context.Background(), Stdio(inR, outW))
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		<-p.ended
	})
	return p
}

// send writes b without waiting for the server to read it all.
func (p *stdioPeer) send(b []byte) {
	go p.in.Write(b)
}

// next returns the server's next line, failing if it ended or went quiet.
func (p *stdioPeer) next(t testing.TB) map[string]any {
	t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			t.Fatalf("the server ended: %v", <-p.ended)
		}
		var msg map[string]any
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Fatalf("not a JSON-RPC message: %q", line)
		}
		return msg
	case <-time.After(10 * time.Second):
		t.Fatal("no answer within 10 s")
	}
	return nil
}

// pingAnswered sends a ping and waits for its answer, skipping other lines.
func (p *stdioPeer) pingAnswered(t testing.TB, id string) {
	t.Helper()
	p.send([]byte(`{"jsonrpc":"2.0","id":"` + id + `","method":"ping"}` + "\n"))
	for {
		if msg := p.next(t); msg["id"] == id {
			if msg["error"] != nil {
				t.Fatalf("ping answered with an error: %v", msg)
			}
			return
		}
	}
}

// Each kind of bad line gets its JSON-RPC error, and the server goes on.
func TestStdioBadLinesAreAnswered(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"pad":"` + strings.Repeat("a", MaxStdioLine) + `"}}`
	for i, tc := range []struct {
		line string
		code float64
		id   any
	}{
		{"garbage", -32700, nil},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, nil},
		{`[]`, -32600, nil},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, nil},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":[2],"method":"ping"}`, -32600, nil},
		{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, 7.0},
		{`{"jsonrpc":"2.0","id":"s8","method":5}`, -32600, "s8"},
		{`{"jsonrpc":"2.0","result":{}}`, -32600, nil},
		{`"ping"`, -32600, nil},
		{`null`, -32600, nil},
		{long, -32600, 9.0},
	} {
		p := startStdioPeer(t)
		p.send([]byte(tc.line + "\r\n"))
		msg := p.next(t)
		e, _ := msg["error"].(map[string]any)
		if e == nil || e["code"] != tc.code || msg["id"] != tc.id || e["message"] == "" {
			t.Errorf("line %d (%.40q): answered %v, want code %v id %v", i, tc.line, msg, tc.code, tc.id)
		}
		p.pingAnswered(t, fmt.Sprint("after-", i))
	}
}

// A line over the bound is skipped without being held: a 64 MiB line costs
// what reading up to the bound does, and nothing of it stays.
func TestStdioLongLineIsNotHeld(t *testing.T) {
	var out bytes.Buffer
	const size = 64 << 20
	in := io.MultiReader(strings.NewReader(`{"id":"big","pad":"`), io.LimitReader(repeatReader('a'), size), strings.NewReader("\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"))
	r := &lineFilter{lines: newLineReader(in), c: &cancelled{ids: map[string]bool{}}, reply: &out, max: MaxStdioLine}
	var before, after, held runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := io.ReadAll(r)
	runtime.ReadMemStats(&after)
	runtime.GC()
	runtime.ReadMemStats(&held)
	runtime.KeepAlive(r)
	if err != nil || string(got) != `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n" {
		t.Fatalf("passed on %.80q, %v", got, err)
	}
	if !strings.Contains(out.String(), `"id":"big"`) || !strings.Contains(out.String(), "-32600") {
		t.Fatalf("answer: %s", out.String())
	}
	// Reading up to the bound costs about twice the bound; nothing of the
	// line is kept.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 3*MaxStdioLine {
		t.Fatalf("skipping a %d-byte line allocated %d bytes", size, grew)
	}
	if kept := int64(held.HeapAlloc) - int64(before.HeapAlloc); kept > 1<<20 {
		t.Fatalf("skipping a %d-byte line kept %d bytes", size, kept)
	}
}

type repeatReader byte

func (b repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// Whatever the client writes, every line the server writes is a JSON-RPC
// message and the server still answers the next ping: no input ends it.
func FuzzStdio(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}` + "\n" + `{"id":4}`,
		"\n\n{\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"x\"}}",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}` + "\n" + `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		"garbage\n[]\n{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}\n  {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}  \r\n",
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":5}` + "\n" + `{"jsonrpc":"2.0","id":7,"result":{}}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}{"jsonrpc":"2.0","id":8,"method":"ping"}`,
		string(bytes.Repeat([]byte("["), 2000)) + string(bytes.Repeat([]byte("]"), 2000)),
		`{"jsonrpc":"2.0","id":9,"method":"ping","params":` + strings.Repeat(`{"a":`, 1200) + "1" + strings.Repeat("}", 1200) + "}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		p := startStdioPeer(t)
		p.send(append(in, '\n'))
		p.pingAnswered(t, "fuzz-final-ping")
	})
}

func TestCancelledAnswerIsDropped(t *testing.T) {
	var out bytes.Buffer
	c := &cancelled{ids: map[string]bool{}}
	r := &lineFilter{lines: newLineReader(strings.NewReader(
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1"}}` + "\n")), c: c, reply: io.Discard, max: MaxStdioLine}
	io.ReadAll(r)
	w := &dropCancelled{w: &out, c: c}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":6,"result":{}}`,
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
		`{"jsonrpc":"2.0","id":7.0,"result":{}}`, // answered once already: passes
		`{"jsonrpc":"2.0","id":"s1","error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"ping"}`,
	} {
		w.Write([]byte(line + "\n"))
	}
	want := `{"jsonrpc":"2.0","id":6,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":7.0,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":8,"method":"ping"}` + "\n"
	if out.String() != want {
		t.Fatalf("written:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestOriginCheck(t *testing.T) {
	for origin, ok := range map[string]bool{
		"http://localhost:5173": true, "https://127.0.0.1": true, "http://[::1]:8080": true, "http://127.9.9.9": true, "http://app.localhost:3000": true,
		"null": false, "http://evil.example": false, "file://": false, "http://localhost.evil": false, "ws://localhost": false,
	} {
		if got := loopbackOrigin(origin); got != ok {
			t.Errorf("%q: %v, want %v", origin, got, ok)
		}
	}
	h := HTTPHandler(nil, 0)
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
	req.Header.Set("Origin", "https://evil.example")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("foreign origin: %d", rec.Code)
	}
}
