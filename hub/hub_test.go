package hub

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

const testExtID = "fdblnkdnocfaepcaikfpoankifcokefa"

type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startHub(t testing.TB, grace time.Duration) (*Hub, string, *logBuf) {
	t.Helper()
	key := NewKey()
	c := &Config{Key: key}
	kb, err := c.KeyBytes()
	if err != nil {
		t.Fatal(err)
	}
	log := &logBuf{}
	h, err := Start(Options{Addr: "127.0.0.1:0", Key: kb, ExtensionID: testExtID, Log: log, Grace: grace, Heartbeat: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, key, log
}

// dial connects as the extension would, with the given origin and key.
func dial(t *testing.T, h *Hub, origin, key string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	protos := []string{Protocol}
	if key != "" {
		protos = append(protos, keyPrefix+key)
	}
	hdr := http.Header{}
	if origin != "" {
		hdr.Set("Origin", origin)
	}
	return websocket.Dial(ctx, "ws://"+h.Addr()+"/relay", &websocket.DialOptions{Subprotocols: protos, HTTPHeader: hdr})
}

func TestRefusals(t *testing.T) {
	h, key, log := startHub(t, time.Minute)
	good := "chrome-extension://" + testExtID
	cases := []struct {
		name, origin, key string
		status            int
		logged            string
	}{
		{"wrong key", good, NewKey(), http.StatusUnauthorized, "wrong pairing key"},
		{"short key", good, "abcd", http.StatusUnauthorized, "wrong pairing key"},
		{"missing key", good, "", http.StatusUnauthorized, "no pairing key"},
		{"wrong origin", "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", key, http.StatusForbidden, "is not the tabwright extension"},
		{"web origin", "http://evil.example", key, http.StatusForbidden, "is not the tabwright extension"},
		{"no origin", "", key, http.StatusForbidden, "is not the tabwright extension"},
	}
	for _, c := range cases {
		conn, resp, err := dial(t, h, c.origin, c.key)
		if err == nil {
			conn.CloseNow()
			t.Fatalf("%s: accepted", c.name)
		}
		if resp == nil || resp.StatusCode != c.status {
			t.Fatalf("%s: got %v %v, want HTTP %d", c.name, resp, err, c.status)
		}
		if !strings.Contains(log.String(), c.logged) {
			t.Fatalf("%s: refusal not logged: %s", c.name, log.String())
		}
	}
	if len(h.Profiles()) != 0 {
		t.Fatal("a refused client became a profile")
	}
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", ":0"} {
		if _, err := Start(Options{Addr: addr, Key: make([]byte, 32), ExtensionID: testExtID}); errs.Code(err) != errs.InvalidInput {
			t.Fatalf("listening on %s: %v", addr, err)
		}
	}
}

// fakeExtension answers Browser.getVersion and echoes other commands, after
// an optional delay.
type fakeExtension struct {
	conn *websocket.Conn
	slow chan struct{} // gets a value when Slow.call, which is never answered, arrives

	mu   sync.Mutex
	seen []string // attach and detach commands, in order
}

func (f *fakeExtension) commands() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

// connectFake connects a fake extension that holds the sessions named in
// claims (as a restarted service worker does).
func connectFake(t *testing.T, h *Hub, key, id, name string, claims ...string) *fakeExtension {
	t.Helper()
	conn, _, err := dial(t, h, "chrome-extension://"+testExtID, key)
	if err != nil {
		t.Fatal(err)
	}
	held := []map[string]any{}
	for _, sid := range claims {
		held = append(held, map[string]any{"tabId": 1, "sessionId": sid})
	}
	hello, _ := json.Marshal(map[string]any{"type": "hello", "profile": map[string]string{"id": id, "name": name}, "product": "Chrome/156.0.1.2", "claims": held})
	if err := conn.Write(context.Background(), websocket.MessageText, hello); err != nil {
		t.Fatal(err)
	}
	f := &fakeExtension{conn: conn, slow: make(chan struct{}, 1)}
	go f.run()
	return f
}

func (f *fakeExtension) run() {
	ctx := context.Background()
	for {
		_, data, err := f.conn.Read(ctx)
		if err != nil {
			return
		}
		var m struct {
			ID        int64  `json:"id"`
			SessionID string `json:"sessionId"`
			Method    string `json:"method"`
			Type      string `json:"type"`
		}
		json.Unmarshal(data, &m)
		if m.Type == "ping" {
			f.conn.Write(ctx, websocket.MessageText, []byte(`{"type":"pong"}`))
			continue
		}
		if m.Method == "Slow.call" {
			select {
			case f.slow <- struct{}{}:
			default:
			}
			continue // never answered
		}
		var out []byte
		if m.Method == "Target.attachToTarget" || m.Method == "Target.detachFromTarget" {
			var c browserCmd
			json.Unmarshal(data, &c)
			sid := c.Params.SessionID
			if m.Method == "Target.attachToTarget" {
				sid = "S-" + c.Params.TargetID
				ev, _ := json.Marshal(map[string]any{"method": "Target.attachedToTarget", "params": map[string]any{"sessionId": sid, "targetInfo": map[string]any{"targetId": c.Params.TargetID, "type": "page"}}})
				f.conn.Write(ctx, websocket.MessageText, ev)
				out, _ = json.Marshal(map[string]any{"id": m.ID, "result": map[string]any{"sessionId": sid}})
			} else {
				ev, _ := json.Marshal(map[string]any{"method": "Target.detachedFromTarget", "params": map[string]any{"sessionId": sid, "targetId": strings.TrimPrefix(sid, "S-")}})
				f.conn.Write(ctx, websocket.MessageText, ev)
				out, _ = json.Marshal(map[string]any{"id": m.ID, "result": map[string]any{}})
			}
			f.mu.Lock()
			f.seen = append(f.seen, m.Method+" "+c.Params.TargetID+c.Params.SessionID)
			f.mu.Unlock()
		} else if m.Method == "Browser.getVersion" {
			out, _ = json.Marshal(map[string]any{"id": m.ID, "result": map[string]string{"product": "Chrome/156.0.1.2"}})
		} else {
			ev, _ := json.Marshal(map[string]any{"method": "Test.event", "sessionId": m.SessionID, "params": map[string]string{"for": m.Method}})
			f.conn.Write(ctx, websocket.MessageText, ev)
			out, _ = json.Marshal(map[string]any{"id": m.ID, "sessionId": m.SessionID, "result": map[string]string{"echo": m.Method}})
		}
		f.conn.Write(ctx, websocket.MessageText, out)
	}
}

func TestRelayAcrossReconnects(t *testing.T) {
	t.Parallel()
	h, key, _ := startHub(t, 3*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	f := connectFake(t, h, key, "p1", "Work")
	connectFake(t, h, key, "p2", "Home")
	p, err := h.WaitProfile(ctx, func(p *Profile) bool { return p.Name() == "Work" })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.WaitProfile(ctx, func(p *Profile) bool { return p.Name() == "Home" }); err != nil {
		t.Fatal(err)
	}
	if p.Product() != "Chrome/156.0.1.2" || p.ID() != "p1" {
		t.Fatalf("profile %s %s", p.ID(), p.Product())
	}
	tr, err := p.Open()
	if err != nil {
		t.Fatal(err)
	}
	conn := cdp.New(tr)
	defer conn.Close()

	var v struct {
		Product string `json:"product"`
	}
	if err := conn.Browser().Call(ctx, "Browser.getVersion", nil, &v); err != nil || v.Product != "Chrome/156.0.1.2" {
		t.Fatalf("getVersion: %v %+v", err, v)
	}
	sess, err := conn.Attach(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	events, stop := sess.Subscribe("Test.event")
	defer stop()
	var echo struct {
		Echo string `json:"echo"`
	}
	if err := sess.Call(ctx, "Page.enable", map[string]any{}, &echo); err != nil || echo.Echo != "Page.enable" {
		t.Fatalf("session call: %v %+v", err, echo)
	}
	select {
	case <-events:
	case <-time.After(2 * time.Second):
		t.Fatal("the event of the session did not arrive")
	}

	// A command in flight when the extension goes away fails at once.
	errc := make(chan error, 1)
	go func() { errc <- sess.Call(ctx, "Slow.call", nil, nil) }()
	select {
	case <-f.slow: // the command reached the extension
	case <-time.After(5 * time.Second):
		t.Fatal("the slow command never reached the fake extension")
	}
	f.conn.CloseNow()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "disconnected before answering") {
			t.Fatalf("in-flight call: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the in-flight call hung after the extension left")
	}
	// While away, calls fail fast, and the connection lives on.
	waitFor(t, func() bool { return !p.Connected() })
	if err := sess.Call(ctx, "Page.enable", nil, nil); err == nil || !strings.Contains(err.Error(), "reconnecting") {
		t.Fatalf("call while away: %v", err)
	}
	if conn.Err() != nil {
		t.Fatalf("the connection died while the extension was away: %v", conn.Err())
	}

	// Back within the grace period, holding the tab: the same connection
	// works again.
	connectFake(t, h, key, "p1", "Work", "S-s1")
	waitFor(t, p.Connected)
	if err := sess.Call(ctx, "Page.enable", nil, &echo); err != nil {
		t.Fatalf("after reconnecting: %v", err)
	}

	// Away for longer than the grace period: the connection fails.
	h.Profile("p1").mu.Lock()
	s := h.Profile("p1").sock
	h.Profile("p1").mu.Unlock()
	s.conn.CloseNow()
	select {
	case <-conn.Done():
		if errs.Code(conn.Err()) != errs.BrowserUnavailable {
			t.Fatalf("after the grace period: %v", conn.Err())
		}
	case <-time.After(6 * time.Second):
		t.Fatal("the connection outlived the grace period")
	}
}

// waitFor asks cond again until it holds: for hub state announced to no
// one (a connection counted, a profile gone); each ask checks the condition
// itself, so the pause between asks stands in for nothing.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("condition not met in 5s")
		}
	}
}

func TestCommandID(t *testing.T) {
	cases := []struct {
		in  string
		id  int64
		sid string
	}{
		{`{"id":12,"sessionId":"AB","method":"X"}`, 12, "AB"},
		{`{"id":7,"method":"X"}`, 7, ""},
		{`{"method":"X","id":9,"sessionId":"Q"}`, 9, "Q"},
		{`{"id":3}`, 3, ""},
	}
	for _, c := range cases {
		id, sid := commandID([]byte(c.in))
		if id != c.id || sid != c.sid {
			t.Fatalf("%s: %d %q", c.in, id, sid)
		}
	}
}

func TestConfig(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadConfig(dir); errs.Code(err) != errs.InvalidInput {
		t.Fatalf("missing config: %v", err)
	}
	c := &Config{Port: DefaultPort, Key: NewKey()}
	if err := SaveConfig(dir, c); err != nil {
		t.Fatal(err)
	}
	got, err := LoadConfig(dir)
	if err != nil || *got != *c {
		t.Fatalf("%v %+v", err, got)
	}
	if err := InstallExtension(dir+"/ext", c, "Test"); err != nil {
		t.Fatal(err)
	}
}

// TestClientsShareAProfile: a second process's node finds the hub's port
// taken and joins it; both use the same profile, and a tab one holds the
// other can neither attach nor detach. When the hub stops, the joined node
// takes the port over.
func TestClientsShareAProfile(t *testing.T) {
	h, key, log := startHub(t, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := connectFake(t, h, key, "p1", "Work")
	p, err := h.WaitProfile(ctx, func(p *Profile) bool { return p.Name() == "Work" })
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := (&Config{Key: key}).KeyBytes()

	// a wrong key, and a page (any Origin), cannot join
	if _, err := StartOrJoin(Options{Addr: h.Addr(), Key: make([]byte, 32), ExtensionID: testExtID}); errs.Code(err) != errs.BrowserUnavailable || !strings.Contains(err.Error(), "refused this process's pairing key") {
		t.Fatalf("joining with a wrong key: %v", err)
	}
	hdr := http.Header{"Origin": {"http://localhost:3000"}}
	if c, resp, err := websocket.Dial(ctx, "ws://"+h.Addr()+"/client", &websocket.DialOptions{Subprotocols: []string{ClientProtocol, keyPrefix + key}, HTTPHeader: hdr}); err == nil {
		c.CloseNow()
		t.Fatal("a client with an Origin joined")
	} else if resp == nil || resp.StatusCode != http.StatusForbidden || !strings.Contains(log.String(), "only a tabwright process may join") {
		t.Fatalf("client with an Origin: %v %v", resp, err)
	}

	other := &logBuf{}
	n, err := StartOrJoin(Options{Addr: h.Addr(), Key: kb, ExtensionID: testExtID, Log: other, Heartbeat: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if n.Role() != RoleClient || !strings.Contains(other.String(), "joined the attach hub") {
		t.Fatalf("role %s, log %s", n.Role(), other.String())
	}
	np, err := n.WaitProfile(ctx, func(p *NodeProfile) bool { return p.Name() == "Work" })
	if err != nil || np.ID() != "p1" || np.Product() != "Chrome/156.0.1.2" {
		t.Fatalf("the joined node's profile: %v %+v", err, np)
	}

	trA, err := p.Open()
	if err != nil {
		t.Fatal(err)
	}
	a := cdp.New(trA)
	defer a.Close()
	trB, err := np.Open()
	if err != nil {
		t.Fatal(err)
	}
	b := cdp.New(trB)

	if _, err := a.Attach(ctx, "T1"); err != nil {
		t.Fatal(err)
	}
	_, err = b.Attach(ctx, "T1")
	if e := errs.As(err); e == nil || e.Code != errs.TabInUse || e.Path != "tab_id" || !strings.Contains(e.Message, "another tabwright process") || e.Hint == "" {
		t.Fatalf("the other process attaching a held tab: %#v", err)
	}
	sb, err := b.Attach(ctx, "T2")
	if err != nil {
		t.Fatal(err)
	}
	events, stop := sb.Subscribe("Test.event")
	defer stop()
	var echo struct {
		Echo string `json:"echo"`
	}
	if err := sb.Call(ctx, "Page.enable", map[string]any{}, &echo); err != nil || echo.Echo != "Page.enable" {
		t.Fatalf("a call through the joined hub: %v %+v", err, echo)
	}
	select {
	case <-events:
	case <-time.After(2 * time.Second):
		t.Fatal("the session's event did not reach the joined process")
	}
	// neither may use or end the other's session
	if err := a.SessionByID("S-T2").Call(ctx, "Page.enable", nil, nil); errs.Code(err) != errs.TabNotFound {
		t.Fatalf("using another process's session: %v", err)
	}
	if err := a.Browser().Call(ctx, "Target.detachFromTarget", map[string]any{"sessionId": "S-T2"}, nil); errs.Code(err) != errs.TabNotFound {
		t.Fatalf("detaching another process's session: %v", err)
	}

	// the joined process goes: the hub detaches what it held, and only that
	b.Close()
	waitFor(t, func() bool {
		c := f.commands()
		return len(c) > 0 && c[len(c)-1] == "Target.detachFromTarget S-T2"
	})
	for _, c := range f.commands() {
		if strings.Contains(c, "S-T1") && strings.HasPrefix(c, "Target.detach") {
			t.Fatalf("the hub detached the other process's tab: %v", f.commands())
		}
	}
	// a fresh connection of the joined node attaches what is free again
	trB, err = np.Open()
	if err != nil {
		t.Fatal(err)
	}
	b = cdp.New(trB)
	defer b.Close()
	if _, err := b.Attach(ctx, "T2"); err != nil {
		t.Fatalf("attaching a tab freed by the process that held it: %v", err)
	}

	// the hub's process stops: the joined node takes the port over
	h.Close()
	waitFor(t, func() bool { return n.Role() == RoleHub })
	if !strings.Contains(other.String(), "taking over") {
		t.Fatalf("log of the node that took over: %s", other.String())
	}
	if list := n.Profiles(); len(list) != 1 || list[0] != np || np.Connected() {
		t.Fatalf("profiles after the takeover: %v (connected %v)", list, np.Connected())
	}
	connectFake(t, n.Hub(), key, "p1", "Work")
	if _, err := n.WaitProfile(ctx, func(p *NodeProfile) bool { return p == np }); err != nil {
		t.Fatalf("the extension did not pair with the new hub: %v", err)
	}
}

// TestDefaultBrowser: with exactly one paired profile a call that names no
// browser uses it; with two it is the managed browser again.
func TestDefaultBrowser(t *testing.T) {
	h, key, _ := startHub(t, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := tabs.New(tabs.Options{Extensions: h})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got := m.DefaultBrowser(); got != tabs.ManagedID {
		t.Fatalf("default with nothing paired: %s", got)
	}
	connectFake(t, h, key, "p1", "Work")
	if _, err := h.WaitProfile(ctx, func(p *Profile) bool { return p.ID() == "p1" }); err != nil {
		t.Fatal(err)
	}
	if got := m.DefaultBrowser(); got != "extension:p1" {
		t.Fatalf("default with one paired profile: %s", got)
	}
	if bi, err := m.Browser(""); err != nil || bi.BrowserID != "extension:p1" || bi.Name != "Work" {
		t.Fatalf("the default browser: %+v %v", bi, err)
	}
	connectFake(t, h, key, "p2", "Home")
	if _, err := h.WaitProfile(ctx, func(p *Profile) bool { return p.ID() == "p2" }); err != nil {
		t.Fatal(err)
	}
	if got := m.DefaultBrowser(); got != tabs.ManagedID {
		t.Fatalf("default with two paired profiles: %s", got)
	}
}
