package mcpserver

import (
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func startHTTPPeer(t *testing.T) (*idleSessions, *httptest.Server) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "peer", Version: "1"}, nil)
	tr, h := newHTTPHandler(srv, time.Minute)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return tr, ts
}

func postTo(t *testing.T, url, session, body string) *http.Response {
	t.Helper()
	return postWith(t, url, body, map[string]string{sessionHeader: session})
}

// postWith POSTs body with the MCP content headers and these others (an
// empty value is left out); the answer's body is read and dropped.
func postWith(t *testing.T, url, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// 20,000 forged session ids: each gets 404, none is tracked, and the heap
// after a collection is where it was.
func TestForgedSessionIDsAreNotTracked(t *testing.T) {
	tr, ts := startHTTPPeer(t)
	postTo(t, ts.URL, rand.Text(), `{}`) // the connection's own buffers
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range 20000 {
		if res := postTo(t, ts.URL, rand.Text(), `{"jsonrpc":"2.0","id":1,"method":"ping"}`); res.StatusCode != http.StatusNotFound {
			t.Fatalf("forged id: %d", res.StatusCode)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if n := tr.count(); n != 0 {
		t.Fatalf("%d forged sessions tracked", n)
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 2<<20 {
		t.Fatalf("the heap grew by %d bytes", grew)
	}
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// Past MaxSessions open sessions a new one gets 503, until one ends.
func TestOpenSessionsAreBounded(t *testing.T) {
	_, ts := startHTTPPeer(t)
	var first string
	for i := range MaxSessions {
		res := postTo(t, ts.URL, "", initBody)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("session %d: %d", i, res.StatusCode)
		}
		if first == "" {
			first = res.Header.Get(sessionHeader)
		}
	}
	if res := postTo(t, ts.URL, "", initBody); res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("session %d: %d, want 503", MaxSessions+1, res.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	req.Header.Set(sessionHeader, first)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", res, err)
	}
	if res := postTo(t, ts.URL, "", initBody); res.StatusCode != http.StatusOK {
		t.Fatalf("after a DELETE: %d", res.StatusCode)
	}
}

// The framing reads of the HTTP handler take any bytes: the calls a body
// carries are ids an answer can name.
func FuzzHTTPFraming(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}`,
		`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}]`,
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n",
		`[`, `[]`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}`, "data: ",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		calls, cancels := readPOST(b)
		for _, id := range append(calls, cancels...) {
			if !id.IsValid() {
				t.Fatalf("%q: invalid id %v", b, id)
			}
		}
		if id, ok := answerTo(b); ok && !id.IsValid() {
			t.Fatalf("%q: an answer to an invalid id", b)
		}
	})
}
