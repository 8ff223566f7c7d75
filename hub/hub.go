// Package hub is the loopback end of attach mode: the tabwright extension,
// loaded in the user's own Chrome or Edge, connects here over a WebSocket
// and relays DevTools commands for the tabs an agent claims.
//
// Design. Each paired browser profile (one extension instance) is a Profile.
// A Profile hands the engine one cdp.Transport (Open) that speaks plain CDP,
// exactly like a browser's DevTools WebSocket: the engine's tabs, locators,
// actions, batch and observation run on it unchanged. The hub forwards the
// engine's messages to the extension as they are (the engine itself sends a
// world's page-side installers once); the extension answers the few browser-level commands the engine sends (Target.getTargets,
// Target.attachToTarget, Browser.getVersion, ...) from chrome.tabs and
// chrome.debugger and passes every session command to chrome.debugger.
//
// The transport outlives the extension's WebSocket: Chrome stops the
// extension's service worker now and then, and it reconnects (woken by an
// alarm) with the same profile id and its claims kept in session storage.
// While it is away, commands fail at once with a clear error, and commands
// that were in flight are answered with an error instead of hanging; only
// when the extension stays away longer than the grace period does the
// transport fail, and with it the engine's connection and claims.
//
// Security: the listener is loopback only; the upgrade must come from the
// origin chrome-extension://<our id> and carry the pairing key (a 256-bit
// random secret, compared in constant time) as a WebSocket subprotocol;
// anything else is refused before the upgrade and logged.
package hub

import (
	"cmp"
	"context"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/netgate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Protocol is the WebSocket subprotocol of the relay.
const Protocol = "tabwright-relay-1"

// keyPrefix marks the subprotocol entry that carries the pairing key.
const keyPrefix = "tabwright-key-"

// maxMessage bounds one relayed message, as for a DevTools WebSocket.
const maxMessage = 512 << 20

// Options configure a Hub.
type Options struct {
	Addr        string        // loopback host:port; port 0 picks a free one
	Key         []byte        // the pairing key, 32 bytes
	ExtensionID string        // the only origin accepted is chrome-extension://ExtensionID
	Log         io.Writer     // refusals and connections; nil discards
	Heartbeat   time.Duration // ping interval; default 20 s (Chrome idles a worker at 30 s)
	Grace       time.Duration // how long a profile may be away before its transport fails; default 75 s
}

// Hub accepts extension connections and keeps one Profile per paired
// browser profile.
type Hub struct {
	opt Options
	ln  net.Listener
	srv *http.Server

	mu       sync.Mutex
	profiles map[string]*Profile
	closed   bool
	changed  chan struct{} // closed and replaced whenever a profile connects or leaves
}

// Start listens on opt.Addr, which must be a loopback address, and serves
// until Close.
func Start(opt Options) (*Hub, error) {
	if len(opt.Key) != 32 {
		return nil, errs.Input("key", "the pairing key must be 32 bytes, got %d", len(opt.Key))
	}
	if opt.ExtensionID == "" {
		return nil, errs.Input("extension_id", "no extension id to accept")
	}
	if opt.Heartbeat <= 0 {
		opt.Heartbeat = 20 * time.Second
	}
	if opt.Grace <= 0 {
		opt.Grace = 75 * time.Second
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if err := RequireLoopback(opt.Addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", opt.Addr)
	if err != nil {
		return nil, errs.Wrap(errs.BrowserUnavailable, err, "the attach hub cannot listen on "+opt.Addr).
			WithHint("another tabwright may hold the port; stop it, or run `tabwright setup --port N` for another port")
	}
	if !netgate.BoundToLoopback(ln) {
		ln.Close()
		return nil, errs.Input("addr", "%q resolves to %s, not a loopback address", opt.Addr, ln.Addr()).
			WithHint("give the hub 127.0.0.1:PORT")
	}
	h := &Hub{opt: opt, ln: ln, profiles: map[string]*Profile{}, changed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/relay", h.accept)
	mux.HandleFunc("/client", h.serveClient)
	mux.HandleFunc("/cdp/", h.serveCDP)
	h.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go h.srv.Serve(ln)
	return h, nil
}

// RequireLoopback refuses an address that is not on the loopback interface.
func RequireLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return errs.Input("addr", "%q is not host:port", addr)
	}
	if !netgate.IsLoopback(host) {
		return errs.Input("addr", "%q is not a loopback address", addr).
			WithHint("the hub hands out control of the user's browser; it listens on 127.0.0.1 only")
	}
	return nil
}

// Addr returns the address the hub listens on.
func (h *Hub) Addr() string { return h.ln.Addr().String() }

// Port returns the port the hub listens on.
func (h *Hub) Port() int { return h.ln.Addr().(*net.TCPAddr).Port }

// Close stops listening and drops every extension connection; open
// transports fail.
func (h *Hub) Close() error {
	h.mu.Lock()
	h.closed = true
	list := make([]*Profile, 0, len(h.profiles))
	for _, p := range h.profiles {
		list = append(list, p)
	}
	h.mu.Unlock()
	err := h.srv.Close()
	for _, p := range list {
		p.shutdown(errors.New("the hub stopped"))
	}
	h.notify() // joined processes hear that the hub stops
	return err
}

// sortByName orders profiles by the name the user gave them, then by id, so
// listings are stable.
func sortByName[P interface {
	Name() string
	ID() string
}](ps []P) {
	slices.SortFunc(ps, func(a, b P) int {
		return cmp.Or(strings.Compare(a.Name(), b.Name()), strings.Compare(a.ID(), b.ID()))
	})
}

// Profiles returns every profile that paired since the hub started, sorted
// by name then id; Connected tells which are there now.
func (h *Hub) Profiles() []*Profile {
	h.mu.Lock()
	out := make([]*Profile, 0, len(h.profiles))
	for _, p := range h.profiles {
		out = append(out, p)
	}
	h.mu.Unlock()
	sortByName(out)
	return out
}

// Profile returns the profile with the id, or nil.
func (h *Hub) Profile(id string) *Profile {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.profiles[id]
}

// WaitProfile waits until a connected profile satisfies match.
func (h *Hub) WaitProfile(ctx context.Context, match func(*Profile) bool) (*Profile, error) {
	for {
		h.mu.Lock()
		ch := h.changed
		h.mu.Unlock()
		for _, p := range h.Profiles() {
			if p.Connected() && match(p) {
				return p, nil
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, errs.New(errs.Timeout, "no paired browser profile connected to the hub in time").
				WithHint("check that the extension is loaded and shows \"connected\" on its options page")
		}
	}
}

func (h *Hub) notify() {
	h.mu.Lock()
	close(h.changed)
	h.changed = make(chan struct{})
	h.mu.Unlock()
}

func (h *Hub) logf(format string, args ...any) {
	fmt.Fprintf(h.opt.Log, "tabwright hub: "+format+"\n", args...)
}

// admit checks what every connection needs before its upgrade: a loopback
// peer, an acceptable origin (badOrigin says why one is not), our
// subprotocol and the pairing key, compared in constant time. who names the
// kind of peer in the log ("" for an extension, "client " for a process).
func (h *Hub) admit(w http.ResponseWriter, r *http.Request, who, protocol string, badOrigin func(string) string) bool {
	peer, _, _ := net.SplitHostPort(r.RemoteAddr)
	if !netgate.IsLoopback(peer) {
		h.logf("refused %s%s: not a loopback peer", who, r.RemoteAddr)
		http.Error(w, "loopback only", http.StatusForbidden)
		return false
	}
	if why := badOrigin(r.Header.Get("Origin")); why != "" {
		h.logf("refused %s%s: %s", who, r.RemoteAddr, why)
		http.Error(w, "origin refused", http.StatusForbidden)
		return false
	}
	var key []byte
	offered := false
	for _, field := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, proto := range strings.Split(field, ",") {
			proto = strings.TrimSpace(proto)
			offered = offered || proto == protocol
			if k, ok := strings.CutPrefix(proto, keyPrefix); ok {
				key, _ = hex.DecodeString(k)
			}
		}
	}
	if !offered {
		h.logf("refused %s%s: no %s subprotocol", who, r.RemoteAddr, protocol)
		http.Error(w, "unsupported protocol", http.StatusBadRequest)
		return false
	}
	if len(key) != len(h.opt.Key) || subtle.ConstantTimeCompare(key, h.opt.Key) != 1 {
		if key == nil {
			h.logf("refused %s%s: no pairing key", who, r.RemoteAddr)
		} else {
			h.logf("refused %s%s: wrong pairing key", who, r.RemoteAddr)
		}
		http.Error(w, "pairing key refused", http.StatusUnauthorized)
		return false
	}
	return true
}

// accept admits our extension (its exact origin) and upgrades it.
func (h *Hub) accept(w http.ResponseWriter, r *http.Request) {
	want := "chrome-extension://" + h.opt.ExtensionID
	if !h.admit(w, r, "", Protocol, func(origin string) string {
		if origin != want {
			return fmt.Sprintf("origin %q is not the tabwright extension", origin)
		}
		return ""
	}) {
		return
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols:       []string{Protocol},
		InsecureSkipVerify: true, // the origin was checked above, exactly
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		h.logf("upgrade of %s failed: %v", r.RemoteAddr, err)
		return
	}
	conn.SetReadLimit(maxMessage)
	h.serve(conn)
}

// serve runs one extension connection: hello first, then the relay.
func (h *Hub) serve(conn *websocket.Conn) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &socket{conn: conn, ctx: ctx}
	hctx, hcancel := context.WithTimeout(ctx, 10*time.Second)
	_, data, err := conn.Read(hctx)
	hcancel()
	if err != nil {
		conn.Close(websocket.StatusPolicyViolation, "no hello")
		return
	}
	hello, err := parseHello(data)
	if err != nil {
		h.logf("refused a connection: %v", err)
		conn.Close(websocket.StatusPolicyViolation, err.Error())
		return
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		conn.Close(websocket.StatusGoingAway, "hub stopping")
		return
	}
	p := h.profiles[hello.Profile.ID]
	if p == nil {
		p = newProfile(h, hello.Profile.ID)
		h.profiles[p.id] = p
	}
	h.mu.Unlock()
	p.plug(s, hello)
	h.logf("profile %q (%s, %s) connected", hello.Profile.Name, hello.Profile.ID, hello.Product)
	h.notify()

	go s.heartbeat(h.opt.Heartbeat)
	why := s.readLoop(p, 3*h.opt.Heartbeat)
	p.unplug(s, why)
	h.logf("profile %q (%s) disconnected: %v", p.Name(), p.id, why)
	h.notify()
}

// ExtensionProfiles lists the paired profiles for the engine (tabs.Options.Extensions).
func (h *Hub) ExtensionProfiles() []tabs.ExtensionProfile {
	list := h.Profiles()
	out := make([]tabs.ExtensionProfile, len(list))
	for i, p := range list {
		out[i] = p
	}
	return out
}
