package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// initializeAsking is an initialize whose body asks for version.
func initializeAsking(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}

// negotiatedOnStdio is the version a server on the stdio transport answers
// an initialize asking for version with.
func negotiatedOnStdio(t *testing.T, version string) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "peer", Version: "1"}, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Run(ctx, Stdio(inR, outW))
	go inW.Write([]byte(initializeAsking(version) + "\n"))
	line, err := bufio.NewReader(outR).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	return negotiated(t, line)
}

// negotiatedOverHTTP is the same over streamable HTTP, with the request's
// Mcp-Protocol-Version header set to header.
func negotiatedOverHTTP(t *testing.T, url, version, header string) (string, *http.Response) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeAsking(version)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(protocolVersionHeader, header)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("initialize asking %s with header %s: %d %s", version, header, res.StatusCode, body)
	}
	_, data, _ := strings.Cut(string(body), "data: ")
	return negotiated(t, []byte(data)), res
}

func negotiated(t *testing.T, answer []byte) string {
	t.Helper()
	var res struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal(answer, &res); err != nil || res.Result.ProtocolVersion == "" {
		t.Fatalf("not an initialize result: %s (%v)", answer, err)
	}
	return res.Result.ProtocolVersion
}

// An initialize negotiates its version from its body on both transports,
// whatever Mcp-Protocol-Version header it carries: before, an initialize
// carrying 2026-07-28 there got HTTP 400 (-32022) while stdio answered it.
func TestInitializeNegotiatesTheSameOnBothTransports(t *testing.T) {
	_, ts := startHTTPPeer(t)
	for _, c := range []struct{ body, header string }{
		{"2026-07-28", "2026-07-28"},
		{"2025-11-25", "2026-07-28"},
		{"2099-01-01", "2099-01-01"},
		{"2025-06-18", "2025-06-18"},
	} {
		want := negotiatedOnStdio(t, c.body)
		got, res := negotiatedOverHTTP(t, ts.URL, c.body, c.header)
		if got != want {
			t.Errorf("initialize asking %s (header %s): %s over HTTP, %s on stdio", c.body, c.header, got, want)
		}
		// The session then speaks the version it negotiated.
		session := res.Header.Get(sessionHeader)
		if r := postWithVersion(t, ts.URL, session, got, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.StatusCode != http.StatusAccepted {
			t.Fatalf("initialized: %d", r.StatusCode)
		}
		if r := postWithVersion(t, ts.URL, session, got, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.StatusCode != http.StatusOK {
			t.Fatalf("ping at %s: %d", got, r.StatusCode)
		}
	}
}

// After initialize the header is the transport's check, as the spec asks:
// a version the session does not speak gets 400 with the versions it does.
func TestRequestsAfterInitializeCheckTheirVersion(t *testing.T) {
	_, ts := startHTTPPeer(t)
	_, res := negotiatedOverHTTP(t, ts.URL, "2025-11-25", "2025-11-25")
	session := res.Header.Get(sessionHeader)
	postWithVersion(t, ts.URL, session, "2025-11-25", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if r := postWithVersion(t, ts.URL, session, "2099-01-01", `{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.StatusCode != http.StatusBadRequest {
		t.Fatalf("ping with an unknown version: %d, want 400", r.StatusCode)
	}
}

// A client of the sessionless revision (the Go SDK's prefers 2026-07-28)
// connects over HTTP: the server lists the versions it serves there, and
// the client falls back to one.
func TestSessionlessClientFallsBackOverHTTP(t *testing.T) {
	_, ts := startHTTPPeer(t)
	cl := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Fatalf("negotiated %s", v)
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

func postWithVersion(t *testing.T, url, session, version, body string) *http.Response {
	t.Helper()
	return postWith(t, url, body, map[string]string{sessionHeader: session, protocolVersionHeader: version})
}
