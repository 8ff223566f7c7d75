package hub

// Joining a hub. One tabwright process runs the hub on the paired port; a
// second `tabwright mcp --attach` finds the port taken and joins that hub as
// a client instead: a control WebSocket (/client) on which the hub sends the
// paired profiles whenever they change, and one WebSocket per engine
// connection (/cdp/<profile id>) that carries plain CDP, routed by the hub
// like the hub's own process's (see Profile). Joining takes the pairing key,
// and a browser cannot join at all: browsers send an Origin header with
// every WebSocket, and a client upgrade that has one is refused.

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// ClientProtocol is the WebSocket subprotocol of a tabwright process that
// joins a hub.
const ClientProtocol = "tabwright-client-1"

// profileInfo is what a joined process learns about a paired profile.
type profileInfo struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Product    string `json:"product"`
	Connected  bool   `json:"connected"`
	FileAccess bool   `json:"fileAccess"`
}

type profilesMsg struct {
	Type     string        `json:"type"` // "profiles"
	Profiles []profileInfo `json:"profiles"`
}

// authClient admits a joining process: no Origin at all, since a web page
// always sends one and only a tabwright process may join.
func (h *Hub) authClient(w http.ResponseWriter, r *http.Request) bool {
	return h.admit(w, r, "client ", ClientProtocol, func(origin string) string {
		if origin != "" {
			return fmt.Sprintf("origin %q (only a tabwright process may join, not a page)", origin)
		}
		return ""
	})
}

func acceptClientWS(w http.ResponseWriter, r *http.Request) (*websocket.Conn, error) {
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols:    []string{ClientProtocol},
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(maxMessage)
	return conn, nil
}

// serveClient sends a joined process the paired profiles, again whenever
// they change, and a ping between.
func (h *Hub) serveClient(w http.ResponseWriter, r *http.Request) {
	if !h.authClient(w, r) {
		return
	}
	conn, err := acceptClientWS(w, r)
	if err != nil {
		h.logf("upgrade of client %s failed: %v", r.RemoteAddr, err)
		return
	}
	h.logf("tabwright process %s joined", r.RemoteAddr)
	ctx := conn.CloseRead(context.Background())
	tick := time.NewTicker(h.opt.Heartbeat)
	defer tick.Stop()
	for {
		h.mu.Lock()
		changed, closed := h.changed, h.closed
		h.mu.Unlock()
		if closed {
			conn.Close(websocket.StatusGoingAway, "hub stopping")
			return
		}
		msg := profilesMsg{Type: "profiles", Profiles: []profileInfo{}}
		for _, p := range h.Profiles() {
			msg.Profiles = append(msg.Profiles, p.info())
		}
		data, _ := json.Marshal(msg)
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := conn.Write(wctx, websocket.MessageText, data)
		cancel()
		if err != nil {
			h.logf("tabwright process %s left", r.RemoteAddr)
			conn.CloseNow()
			return
		}
		select {
		case <-changed:
		case <-tick.C:
		case <-ctx.Done():
			h.logf("tabwright process %s left", r.RemoteAddr)
			return
		}
	}
}

// serveCDP carries one engine connection of a joined process: plain CDP on
// a link of the profile named in the path.
func (h *Hub) serveCDP(w http.ResponseWriter, r *http.Request) {
	if !h.authClient(w, r) {
		return
	}
	id := strings.TrimPrefix(r.URL.Path, "/cdp/")
	p := h.Profile(id)
	if p == nil {
		httpError(w, http.StatusNotFound, errs.Input("browser_id", "no paired browser profile %q", id))
		return
	}
	l, err := p.open("tabwright process " + r.RemoteAddr)
	if err != nil {
		httpError(w, http.StatusServiceUnavailable, errs.As(err))
		return
	}
	conn, err := acceptClientWS(w, r)
	if err != nil {
		l.Close()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		defer cancel()
		for {
			data, err := l.ReadMessage()
			if err != nil {
				conn.Close(websocket.StatusGoingAway, truncate(err.Error(), 120))
				return
			}
			wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
			err = conn.Write(wctx, websocket.MessageText, data)
			wcancel()
			if err != nil {
				conn.CloseNow()
				return
			}
		}
	}()
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			l.fail(fmt.Errorf("the connection of %s ended: %v", l.who, err))
			return
		}
		l.WriteMessage(data)
	}
}

func httpError(w http.ResponseWriter, status int, e *errs.Error) {
	data, _ := json.Marshal(e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// remoteHub is a hub another process runs, joined as a client.
type remoteHub struct {
	addr string
	key  []byte
	conn *websocket.Conn
	done chan struct{} // closed when the control connection ends

	mu   sync.Mutex
	list []profileInfo
}

func dialClient(ctx context.Context, addr, path string, key []byte) (*websocket.Conn, *http.Response, error) {
	return websocket.Dial(ctx, "ws://"+addr+path, &websocket.DialOptions{
		Subprotocols:    []string{ClientProtocol, keyPrefix + hex.EncodeToString(key)},
		CompressionMode: websocket.CompressionDisabled,
	})
}

// joinHub connects to the hub on addr as a client and waits for its first
// list of profiles.
func joinHub(addr string, key []byte) (*remoteHub, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, resp, err := dialClient(ctx, addr, "/client", key)
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusUnauthorized {
			return nil, errs.New(errs.BrowserUnavailable, "the attach hub on %s refused this process's pairing key", addr).
				WithHint("another tabwright with another pairing runs the hub there; use the same TABWRIGHT_HOME, or run `tabwright setup --port N` for another port")
		}
		return nil, errs.Wrap(errs.BrowserUnavailable, err, "port "+addr+" is taken, and not by a tabwright attach hub this process can join").
			WithHint("stop what holds the port, or run `tabwright setup --port N` for another one (and reload the extension)")
	}
	conn.SetReadLimit(maxMessage)
	r := &remoteHub{addr: addr, key: key, conn: conn, done: make(chan struct{})}
	if err := r.read(ctx); err != nil {
		conn.CloseNow()
		return nil, errs.Wrap(errs.BrowserUnavailable, err, "the attach hub on "+addr+" did not list its profiles")
	}
	go func() {
		defer close(r.done)
		for {
			// the hub writes at least every heartbeat (20 s by default)
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			err := r.read(ctx)
			cancel()
			if err != nil {
				conn.CloseNow()
				return
			}
		}
	}()
	return r, nil
}

func (r *remoteHub) read(ctx context.Context) error {
	_, data, err := r.conn.Read(ctx)
	if err != nil {
		return err
	}
	var m profilesMsg
	if err := json.Unmarshal(data, &m); err != nil || m.Type != "profiles" {
		return errors.New("not a list of profiles")
	}
	r.mu.Lock()
	r.list = m.Profiles
	r.mu.Unlock()
	return nil
}

func (r *remoteHub) profiles() []profileInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]profileInfo(nil), r.list...)
}

func (r *remoteHub) close() { r.conn.Close(websocket.StatusNormalClosure, "leaving") }

// open starts an engine connection to a profile through the hub.
func (r *remoteHub) open(id string) (cdp.Transport, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := dialClient(ctx, r.addr, "/cdp/"+id, r.key)
	if err != nil {
		if resp != nil && resp.Body != nil {
			var e errs.Error
			if json.NewDecoder(resp.Body).Decode(&e) == nil && e.Code != "" {
				return nil, &e
			}
		}
		return nil, errs.Wrap(errs.BrowserUnavailable, err, "reaching browser profile "+id+" through the attach hub on "+r.addr)
	}
	conn.SetReadLimit(maxMessage)
	life, stop := context.WithCancel(context.Background())
	return &clientTransport{conn: conn, ctx: life, stop: stop}, nil
}

// clientTransport is a joined process's engine connection to a profile.
type clientTransport struct {
	conn *websocket.Conn
	ctx  context.Context
	stop context.CancelFunc
}

func (t *clientTransport) ReadMessage() ([]byte, error) {
	_, data, err := t.conn.Read(t.ctx)
	if err != nil {
		var ce websocket.CloseError
		if errors.As(err, &ce) && ce.Reason != "" {
			return nil, errors.New(ce.Reason)
		}
	}
	return data, err
}

func (t *clientTransport) WriteMessage(data []byte) error {
	return t.conn.Write(t.ctx, websocket.MessageText, data)
}

func (t *clientTransport) Close() error {
	defer t.stop()
	return t.conn.CloseNow()
}
