package mcpserver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
)

// The client's bytes reach the SDK unchanged, however they are split.
func FuzzStdioFilter(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}` + "\n" + `{"id":4}`))
	f.Add([]byte("\n\n{\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"x\"}}"))
	f.Add(bytes.Repeat([]byte("a"), 70<<10))
	f.Fuzz(func(t *testing.T, in []byte) {
		c := &cancelled{ids: map[string]bool{}}
		r := &watchCancels{br: newLineReader(bytes.NewReader(in)), c: c}
		got, err := io.ReadAll(iotest.OneByteReader(r))
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("filter changed the stream: %v\nin  %q\nout %q", err, in, got)
		}
	})
}

func TestCancelledAnswerIsDropped(t *testing.T) {
	var out bytes.Buffer
	c := &cancelled{ids: map[string]bool{}}
	r := &watchCancels{br: newLineReader(strings.NewReader(
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1"}}` + "\n")), c: c}
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
		"http://localhost:5173": true, "https://127.0.0.1": true, "http://[::1]:8080": true, "http://127.9.9.9": true,
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
