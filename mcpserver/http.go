package mcpserver

import (
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionHeader carries the streamable HTTP session id (MCP transport spec).
const sessionHeader = "Mcp-Session-Id"

// DefaultSessionIdle is how long an HTTP session may go without a request
// or an open stream before it ends and its claims are released.
const DefaultSessionIdle = 60 * time.Second

// HTTPHandler serves srv over streamable HTTP for loopback clients. Requests
// whose Origin is not a loopback origin are refused (403), so a web page
// the user visits cannot drive their browser; a request without Origin
// (every non-browser client) is served. A session whose client is gone — no
// request in flight and no stream open for idle — is ended as a DELETE
// would end it, which releases its claims.
//
// The SDK's own SessionTimeout is not used: it counts POSTs only, so it
// would end a live client that just holds its event stream open.
func HTTPHandler(srv *mcp.Server, idle time.Duration) http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	tr := &idleSessions{idle: idle, live: map[string]*liveSession{}}
	tr.end = func(id string) {
		req, _ := http.NewRequest(http.MethodDelete, "/", nil)
		req.Header.Set(sessionHeader, id)
		sdk.ServeHTTP(discard{}, req)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
			http.Error(w, "Forbidden: origin "+o+" is not a loopback origin", http.StatusForbidden)
			return
		}
		id := r.Header.Get(sessionHeader)
		if id == "" {
			// A new session: its id shows in the response headers.
			cw := &captureID{ResponseWriter: w, tr: tr}
			sdk.ServeHTTP(cw, r)
			if cw.id != "" {
				tr.done(cw.id)
			}
			return
		}
		tr.busy(id)
		sdk.ServeHTTP(w, r)
		if r.Method == http.MethodDelete {
			tr.forget(id)
			return
		}
		tr.done(id)
	})
}

// loopbackOrigin reports whether an Origin header names a page served from
// this machine's loopback (http://localhost:5173, http://127.0.0.1, [::1]).
// "null" (sandboxed frames, file: pages) is not one.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// idleSessions ends sessions that have had no request in flight (an open
// event stream is one) for idle.
type idleSessions struct {
	idle time.Duration
	end  func(id string)

	mu   sync.Mutex
	live map[string]*liveSession
}

type liveSession struct {
	active int
	timer  *time.Timer
}

// busy marks a request of session id in flight.
func (tr *idleSessions) busy(id string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	s := tr.live[id]
	if s == nil {
		s = &liveSession{}
		tr.live[id] = s
	}
	s.active++
	if s.timer != nil {
		s.timer.Stop()
	}
}

// done marks one of its requests finished; the last one starts the clock.
func (tr *idleSessions) done(id string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	s := tr.live[id]
	if s == nil {
		return
	}
	if s.active--; s.active > 0 || tr.idle <= 0 {
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

// forget drops a session the client ended itself.
func (tr *idleSessions) forget(id string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if s := tr.live[id]; s != nil && s.timer != nil {
		s.timer.Stop()
	}
	delete(tr.live, id)
}

// captureID learns a new session's id when the SDK writes the headers of
// the response that created it.
type captureID struct {
	http.ResponseWriter
	tr *idleSessions
	id string
}

func (c *captureID) learn() {
	if c.id == "" {
		if id := c.Header().Get(sessionHeader); id != "" {
			c.id = id
			c.tr.busy(id)
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

// discard is the response writer of the DELETE that ends an idle session.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
