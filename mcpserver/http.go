package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabwright/tabwright/engine/netgate"
)

// sessionHeader carries the streamable HTTP session id (MCP transport spec).
const sessionHeader = "Mcp-Session-Id"

// DefaultSessionIdle is how long an HTTP session may go without a request
// or an open stream before it ends and its claims are released.
const DefaultSessionIdle = 60 * time.Second

// MaxHeaderBytes bounds a request's headers (http.Server.MaxHeaderBytes; a
// request over it gets 431). MCP's headers are short; net/http's default of
// 1 MiB would let any local process make us hold a megabyte per request.
const MaxHeaderBytes = 64 << 10

// MaxSessions bounds the HTTP sessions open at once; a new one past it gets
// 503 until one ends (DELETE, or --session-idle).
const MaxSessions = 1024

// HTTPHandler serves srv over streamable HTTP for loopback clients. Requests
// whose Origin is not a loopback origin are refused (403), so a web page
// the user visits cannot drive their browser; a request without Origin
// (every non-browser client) is served.
//
// Sessions end as a DELETE would end them, which releases their claims:
//   - when their client is gone: no request in flight and no stream open
//     for idle;
//   - at once when the client's connection drops mid-call with nothing else
//     of the session open: the call's answer can no longer be delivered
//     (there is no event store to resume from), so the call is cancelled.
//
// A call cancelled by notifications/cancelled gets no answer, as the MCP
// spec asks. Only sessions the SDK created are tracked: a request naming
// any other id gets the SDK's 404 and costs nothing lasting.
//
// The SDK's own SessionTimeout is not used: it counts POSTs only, so it
// would end a live client that just holds its event stream open.
func HTTPHandler(srv *mcp.Server, idle time.Duration) http.Handler {
	_, h := newHTTPHandler(srv, idle)
	return h
}

func newHTTPHandler(srv *mcp.Server, idle time.Duration) (*idleSessions, http.Handler) {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	tr := &idleSessions{idle: idle, srv: srv, live: map[string]*liveSession{}}
	tr.end = func(id string) {
		req, _ := http.NewRequest(http.MethodDelete, "/", nil)
		req.Header.Set(sessionHeader, id)
		sdk.ServeHTTP(discard{}, req)
	}
	tr.cancel = func(id string, call jsonrpc.ID) {
		sdk.ServeHTTP(discard{}, cancelRequest(id, call))
	}
	return tr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
			http.Error(w, "Forbidden: origin "+o+" is not a loopback origin", http.StatusForbidden)
			return
		}
		id := r.Header.Get(sessionHeader)
		switch {
		case id == "":
			tr.serveNew(sdk, w, r)
		case !tr.busy(id):
			sdk.ServeHTTP(w, r) // not a session of ours: the SDK's 404
		case r.Method == http.MethodPost:
			tr.done(id, tr.servePOST(sdk, id, w, r))
		case r.Method == http.MethodDelete:
			// Forgotten as the DELETE is answered, so a client that ends one
			// session and opens the next is never refused by MaxSessions.
			sdk.ServeHTTP(w, r)
			tr.forget(id)
		default:
			sdk.ServeHTTP(w, r)
			tr.done(id, false)
		}
	})
}

// serveNew serves a request that names no session: it may create one,
// whose id shows in the response headers.
func (tr *idleSessions) serveNew(sdk http.Handler, w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && tr.count() >= MaxSessions {
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("Service Unavailable: %d sessions are open; end one (DELETE) or wait for idle ones to end", MaxSessions), http.StatusServiceUnavailable)
		return
	}
	if r.Method == http.MethodPost && !negotiateByBody(w, r) {
		return
	}
	cw := &captureID{ResponseWriter: w, tr: tr}
	sdk.ServeHTTP(cw, r)
	cw.learn()
	if cw.id != "" {
		tr.done(cw.id, false)
	}
}

// negotiateByBody makes an initialize POST negotiate its protocol version
// from its body, as it does on stdio. The Mcp-Protocol-Version header is
// defined for the requests after initialize; a client that sends a
// sessionless revision's version there (2026-07-28, which this stateful
// handler does not serve) on its initialize would otherwise get -32022,
// where the same initialize on stdio is answered with 2025-11-25. It
// reports false when the body could not be read (and answered that).
func negotiateByBody(w http.ResponseWriter, r *http.Request) bool {
	body, ok := readBody(w, r)
	if !ok {
		return false
	}
	if msg, err := jsonrpc.DecodeMessage(body); err == nil {
		if req, isReq := msg.(*jsonrpc.Request); isReq && req.IsCall() && req.Method == "initialize" {
			r.Header.Del(protocolVersionHeader)
		}
	}
	return true
}

// protocolVersionHeader names the negotiated revision on each request after
// initialize (MCP streamable HTTP transport).
const protocolVersionHeader = "Mcp-Protocol-Version"

// readBody reads a POST's body, bounded as the SDK bounds it, and puts it
// back for the SDK; a body it cannot read is answered here.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", tooBig.Limit), http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "failed to read body", http.StatusBadRequest)
		}
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

// servePOST serves a client message of a live session; lost reports that
// the client's connection dropped before its calls were answered.
func (tr *idleSessions) servePOST(sdk http.Handler, id string, w http.ResponseWriter, r *http.Request) (lost bool) {
	body, ok := readBody(w, r)
	if !ok {
		return false
	}
	calls, cancels := readPOST(body)
	s := tr.session(id)
	if s == nil {
		sdk.ServeHTTP(w, r) // it ended meanwhile
		return false
	}
	for _, call := range cancels {
		s.dropAnswer(call) // before the SDK sees the cancellation and answers
	}
	if len(calls) == 0 {
		sdk.ServeHTTP(w, r)
		return false
	}
	cw := &callWriter{ResponseWriter: w, pending: map[jsonrpc.ID]bool{}}
	for _, call := range calls {
		cw.pending[call] = true
	}
	s.register(cw, calls)
	sdk.ServeHTTP(cw, r)
	s.unregister(calls)
	unanswered := cw.unanswered()
	if r.Context().Err() == nil || len(unanswered) == 0 {
		return false
	}
	for _, call := range unanswered {
		tr.cancel(id, call)
	}
	return true
}

// readPOST lists the calls a POST body carries and the calls its
// notifications/cancelled name. A body the SDK will refuse lists nothing.
func readPOST(body []byte) (calls, cancels []jsonrpc.ID) {
	raws := []json.RawMessage{body}
	if b := bytes.TrimLeft(body, " \t\r\n"); len(b) > 0 && b[0] == '[' {
		if json.Unmarshal(b, &raws) != nil {
			return nil, nil
		}
	}
	for _, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		req, ok := msg.(*jsonrpc.Request)
		switch {
		case err != nil || !ok:
		case req.IsCall():
			calls = append(calls, req.ID)
		case req.Method == "notifications/cancelled":
			if call, ok := cancelledID(req.Params); ok {
				cancels = append(cancels, call)
			}
		}
	}
	return calls, cancels
}

// cancelledID is the request a notifications/cancelled names.
func cancelledID(params json.RawMessage) (jsonrpc.ID, bool) {
	var p map[string]any // keys matched exactly, as the SDK does
	if json.Unmarshal(params, &p) != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(p["requestId"])
	return id, err == nil && id.IsValid()
}

// cancelRequest is the notifications/cancelled a client that lost its
// connection would have sent for call.
func cancelRequest(session string, call jsonrpc.ID) *http.Request {
	id, _ := json.Marshal(call.Raw())
	body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"the client's connection closed before the answer"}}`, id)
	req, _ := http.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(sessionHeader, session)
	return req
}

// loopbackOrigin reports whether an Origin header names a page served from
// this machine's loopback (http://localhost:5173, http://app.localhost,
// http://127.0.0.1, [::1]).
// "null" (sandboxed frames, file: pages) is not one.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return netgate.IsLoopback(u.Hostname())
}

// idleSessions tracks the sessions the SDK created: which have requests in
// flight (an open event stream is one), which calls each has open, and
// ends those whose client is gone.
type idleSessions struct {
	idle   time.Duration
	srv    *mcp.Server
	end    func(id string)
	cancel func(id string, call jsonrpc.ID)

	mu   sync.Mutex
	live map[string]*liveSession
}

type liveSession struct {
	active int
	timer  *time.Timer

	mu    sync.Mutex
	calls map[jsonrpc.ID]*callWriter // calls in flight, by id, with the stream their answer goes to
}

func (tr *idleSessions) count() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.live)
}

func (tr *idleSessions) session(id string) *liveSession {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.live[id]
}

// track starts tracking a session the SDK just created, with the request
// that created it in flight, until it ends however it ends (DELETE, idle,
// a failed initialize).
func (tr *idleSessions) track(id string) {
	for ss := range tr.srv.Sessions() {
		if ss.ID() == id {
			tr.mu.Lock()
			tr.live[id] = &liveSession{active: 1, calls: map[jsonrpc.ID]*callWriter{}}
			tr.mu.Unlock()
			go func() {
				ss.Wait()
				tr.forget(id)
			}()
			return
		}
	}
}

// busy marks a request of session id in flight, reporting whether id is a
// session of ours.
func (tr *idleSessions) busy(id string) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	s := tr.live[id]
	if s == nil {
		return false
	}
	s.active++
	if s.timer != nil {
		s.timer.Stop()
	}
	return true
}

// done marks one of its requests finished; the last one starts the clock,
// or ends the session now if its connection was lost mid-call.
func (tr *idleSessions) done(id string, lost bool) {
	tr.mu.Lock()
	s := tr.live[id]
	if s == nil {
		tr.mu.Unlock()
		return
	}
	if s.active--; s.active > 0 {
		tr.mu.Unlock()
		return
	}
	if lost {
		delete(tr.live, id)
		if s.timer != nil {
			s.timer.Stop()
		}
		tr.mu.Unlock()
		go tr.end(id)
		return
	}
	tr.mu.Unlock()
	tr.clock(id, s)
}

// clock (re)starts a session's idle clock.
func (tr *idleSessions) clock(id string, s *liveSession) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.idle <= 0 || tr.live[id] != s || s.active > 0 {
		return
	}
	if s.timer == nil {
		s.timer = time.AfterFunc(tr.idle, func() { tr.expire(id, s) })
		return
	}
	s.timer.Reset(tr.idle)
}

func (tr *idleSessions) expire(id string, s *liveSession) {
	tr.mu.Lock()
	if tr.live[id] != s || s.active > 0 {
		tr.mu.Unlock()
		return // a request came in meanwhile, or the session is gone
	}
	delete(tr.live, id)
	tr.mu.Unlock()
	tr.end(id)
}

// forget drops a session that ended.
func (tr *idleSessions) forget(id string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if s := tr.live[id]; s != nil && s.timer != nil {
		s.timer.Stop()
	}
	delete(tr.live, id)
}

func (s *liveSession) register(cw *callWriter, calls []jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, call := range calls {
		s.calls[call] = cw
	}
}

func (s *liveSession) unregister(calls []jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, call := range calls {
		delete(s.calls, call)
	}
}

// dropAnswer keeps the answer to call, if it is in flight, off its stream.
func (s *liveSession) dropAnswer(call jsonrpc.ID) {
	s.mu.Lock()
	cw := s.calls[call]
	s.mu.Unlock()
	if cw != nil {
		cw.drop(call)
	}
}

// callWriter is the stream of a POST that carries calls: it notes which
// calls were answered, and leaves out the answers of cancelled ones. The
// SDK writes one event per Write.
type callWriter struct {
	http.ResponseWriter

	mu        sync.Mutex
	pending   map[jsonrpc.ID]bool // the calls not answered yet
	cancelled map[jsonrpc.ID]bool // the client cancelled these: no answer goes out
}

func (c *callWriter) drop(call jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[call] {
		if c.cancelled == nil {
			c.cancelled = map[jsonrpc.ID]bool{}
		}
		c.cancelled[call] = true
	}
}

func (c *callWriter) Write(b []byte) (int, error) {
	call, ok := answerTo(b)
	if !ok {
		return c.ResponseWriter.Write(b)
	}
	c.mu.Lock()
	delete(c.pending, call)
	dropped := c.cancelled[call]
	c.mu.Unlock()
	if dropped {
		return len(b), nil
	}
	return c.ResponseWriter.Write(b)
}

func (c *callWriter) unanswered() []jsonrpc.ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []jsonrpc.ID
	for call := range c.pending {
		out = append(out, call)
	}
	return out
}

// Unwrap lets http.ResponseController reach Flush on the real writer.
func (c *callWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// answerTo reads the response an SSE event (or a JSON body) carries.
func answerTo(b []byte) (jsonrpc.ID, bool) {
	data := b
	if i := bytes.Index(b, []byte("data: ")); i >= 0 && (i == 0 || b[i-1] == '\n') {
		data, _, _ = bytes.Cut(b[i+len("data: "):], []byte("\n"))
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if resp, ok := msg.(*jsonrpc.Response); err == nil && ok {
		return resp.ID, true
	}
	return jsonrpc.ID{}, false
}

// captureID learns a new session's id when the SDK writes the headers of
// the response that created it: before the client can use it.
type captureID struct {
	http.ResponseWriter
	tr *idleSessions
	id string
}

func (c *captureID) learn() {
	if c.id == "" {
		if id := c.Header().Get(sessionHeader); id != "" {
			c.id = id
			c.tr.track(id)
		}
	}
}

func (c *captureID) WriteHeader(code int) {
	c.learn()
	c.ResponseWriter.WriteHeader(code)
}

func (c *captureID) Write(b []byte) (int, error) {
	c.learn()
	return c.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush on the real writer.
func (c *captureID) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// discard is the response writer of the requests the handler makes itself.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
