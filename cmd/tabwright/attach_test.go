package main

// End-to-end tests of attaching to the user's browser: `tabwright mcp
// --cdp-url` with a Chromium started here with --remote-debugging-port, as a
// user would start their own browser, which it must leave as it found it;
// and `tabwright mcp --attach` through the paired extension.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/internal/testbrowser"
)

// attachedBrowser is a headless Chromium with a DevTools port, not started
// by the server under test.
type attachedBrowser struct {
	*testbrowser.Browser
}

// startAttachedBrowser starts Chromium on the DevTools port ("0" for any) and
// kills it when the test ends.
func startAttachedBrowser(t *testing.T, port string) *attachedBrowser {
	t.Helper()
	path, err := launch.FindHeadless()
	if err != nil {
		t.Fatalf("no browser to test with: %v", err)
	}
	b, err := testbrowser.Start(path, port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Kill)
	return &attachedBrowser{b}
}

// devtools does a request on the browser's DevTools HTTP endpoint and
// decodes the JSON answer into out.
func (b *attachedBrowser) devtools(t *testing.T, method, path string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, b.HTTPURL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: HTTP %d %s", method, path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("%s %s: %v\n%s", method, path, err, body)
	}
}

type devtoolsTarget struct {
	ID, Type, URL, Title string
}

// openTab opens a tab through /json/new and waits until it shows title. A
// poll: the headless shell does not report a tab's title change as an
// event (waiting on Target.targetInfoChanged missed it under load).
func (b *attachedBrowser) openTab(t *testing.T, url, title string) devtoolsTarget {
	t.Helper()
	var created, shown devtoolsTarget
	b.devtools(t, http.MethodPut, "/json/new?"+url, &created)
	if created.ID == "" {
		t.Fatalf("/json/new gave no tab id: %+v", created)
	}
	waitFor(t, "tab "+created.ID+" to show "+title, 60*time.Second, func() bool {
		var ok bool
		shown, ok = b.tab(t, created.ID)
		return ok && shown.Title == title
	})
	return shown
}

// tab returns the page target with id, from /json/list.
func (b *attachedBrowser) tab(t *testing.T, id string) (devtoolsTarget, bool) {
	t.Helper()
	var list []devtoolsTarget
	b.devtools(t, http.MethodGet, "/json/list", &list)
	for _, tb := range list {
		if tb.ID == id && tb.Type == "page" {
			return tb, true
		}
	}
	return devtoolsTarget{}, false
}

func (b *attachedBrowser) running() bool {
	select {
	case <-b.Exited():
		return false
	default:
		return pidRuns(b.Pid())
	}
}

func findTab(list []any, id string) map[string]any {
	for _, tb := range list {
		if m := tb.(map[string]any); m["tab_id"] == id {
			return m
		}
	}
	return nil
}

func TestAttachToRunningBrowser(t *testing.T) {
	t.Parallel()
	site := fixtures(t)
	b := startAttachedBrowser(t, "0")
	pre := b.openTab(t, site.URL+"/pre", "Page /pre")

	s := startServer(t, "--cdp-url", b.HTTPURL)
	browserID := "cdp:127.0.0.1:" + b.Port

	list := mustCall(t, s.sess, "browser_discover", map[string]any{"kind": "browsers"})["browsers"].([]any)
	if len(list) != 1 {
		t.Fatalf("browsers: %v, want exactly the attached one", list)
	}
	if bi := list[0].(map[string]any); bi["browser_id"] != browserID || bi["kind"] != "cdp" {
		t.Fatalf("browser %v, want id %s kind cdp", bi, browserID)
	}

	tabsOut := mustCall(t, s.sess, "browser_discover", map[string]any{"kind": "tabs"})
	if tabsOut["browser_id"] != browserID {
		t.Fatalf("tabs of %v, want %s", tabsOut["browser_id"], browserID)
	}
	tb := findTab(tabsOut["tabs"].([]any), pre.ID)
	if tb == nil || tb["url"] != site.URL+"/pre" || tb["title"] != "Page /pre" || tb["claimed"] != false {
		t.Fatalf("the pre-existing tab %s in %v", pre.ID, tabsOut)
	}
	list = mustCall(t, s.sess, "browser_discover", map[string]any{"kind": "browsers"})["browsers"].([]any)
	if bi := list[0].(map[string]any); bi["connected"] != true || !strings.Contains(fmt.Sprint(bi["version"]), "/") {
		t.Fatalf("browser after first use: %v", bi)
	}

	// Claim the user's tab, guarded by its URL.
	if code, _, msg := callErr(t, s.sess, "browser_claim_tab", map[string]any{"tab_id": pre.ID, "expected_url": site.URL + "/elsewhere"}); code != "tab_mismatch" || !strings.Contains(msg, site.URL+"/pre") {
		t.Fatalf("wrong expected_url: %s %s", code, msg)
	}
	claimed := mustCall(t, s.sess, "browser_claim_tab", map[string]any{"tab_id": pre.ID, "browser_id": browserID, "expected_url": site.URL + "/pre"})
	h, _ := claimed["tab_handle"].(string)
	if h == "" || claimed["browser_id"] != browserID {
		t.Fatalf("claim: %v", claimed)
	}
	obs := mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h})
	if err := observationSchema(t).Validate(obs); err != nil {
		t.Fatalf("observation does not validate: %v\n%v", err, obs)
	}
	if env, _ := obs["environment"].(string); !strings.HasSuffix(env, " cdp") || !strings.Contains(env, "/") {
		t.Fatalf("environment %q, want browser/version cdp", obs["environment"])
	}
	if obs["url"] != site.URL+"/pre" || obs["title"] != "Page /pre" || !strings.Contains(fmt.Sprint(obs["textpreview"]), "Hello from /pre") {
		t.Fatalf("observation of the pre-existing tab: %v", obs)
	}

	// A tab the server opens in the attached browser.
	opened := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/opened"})
	oh, _ := opened["tab_handle"].(string)
	if oh == "" || opened["status"] != float64(200) || opened["title"] != "Page /opened" {
		t.Fatalf("open: %v", opened)
	}
	if obs := mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": oh}); obs["url"] != site.URL+"/opened" {
		t.Fatalf("observation of the opened tab: %v", obs)
	}
	if _, ok := b.tab(t, opened["tab_id"].(string)); !ok {
		t.Fatalf("the opened tab %v is not in the browser's /json/list", opened["tab_id"])
	}
	all := mustCall(t, s.sess, "browser_discover", map[string]any{"kind": "tabs"})["tabs"].([]any)
	for _, id := range []string{pre.ID, opened["tab_id"].(string)} {
		if tb := findTab(all, id); tb == nil || tb["claimed"] != true || tb["claimed_by"] != "you" {
			t.Fatalf("tab %s after claiming: %v", id, all)
		}
	}

	// The client hangs up: the server exits on its own and leaves the
	// browser and the user's tab alone.
	// The SDK's client sends SIGTERM after 2s (TerminateDuration), so an
	// exit within 1.9s is the server's own.
	start := time.Now()
	if err := s.sess.Close(); err != nil {
		t.Fatalf("server exit: %v", err)
	}
	if st := s.cmd.ProcessState; st == nil || !st.Success() || time.Since(start) > 1900*time.Millisecond {
		t.Fatalf("server did not exit cleanly on its own: %v after %v", st, time.Since(start))
	}
	if !b.running() {
		t.Fatal("the attached browser died with the server")
	}
	var ver struct{ Browser string }
	b.devtools(t, http.MethodGet, "/json/version", &ver)
	if !strings.Contains(ver.Browser, "/") {
		t.Fatalf("/json/version after the server exited: %+v", ver)
	}
	if tb, ok := b.tab(t, pre.ID); !ok || tb.URL != site.URL+"/pre" {
		t.Fatalf("the pre-existing tab after the server exited: %+v %v", tb, ok)
	}
}

// An attached browser that dies fails the calls on it; once a browser runs
// on the endpoint again, the next call attaches to it. Nothing is launched
// in its place. Not parallel: between its two browsers the port is free,
// and another test's listener could take it.
func TestAttachedBrowserDiesAndComesBack(t *testing.T) {
	site := fixtures(t)
	b := startAttachedBrowser(t, "0")
	s := startServer(t, "--cdp-url", b.HTTPURL)
	h := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/first"})["tab_handle"].(string)

	b.Kill()
	code, _, _ := callErr(t, s.sess, "browser_observe", map[string]any{"tab_handle": h})
	if code != "invalid_handle" && code != "browser_unavailable" {
		t.Fatalf("handle on the dead browser: %s", code)
	}
	if code, _, msg := callErr(t, s.sess, "browser_discover", map[string]any{"kind": "tabs"}); code != "browser_unavailable" {
		t.Fatalf("tabs of the dead browser: %s %s", code, msg)
	}
	if code, _, _ := callErr(t, s.sess, "browser_observe", map[string]any{"tab_handle": h}); code != "invalid_handle" {
		t.Fatalf("handle after the browser died: %s", code)
	}
	if pids := childrenOf(s.cmd.Process.Pid); len(pids) != 0 {
		t.Fatalf("the attached server launched processes %v", pids)
	}

	again := startAttachedBrowser(t, b.Port)
	opened := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/second"})
	if opened["title"] != "Page /second" {
		t.Fatalf("open after the browser came back: %v", opened)
	}
	if _, ok := again.tab(t, opened["tab_id"].(string)); !ok {
		t.Fatal("the tab did not open in the browser that came back")
	}
}

func childrenOf(pid int) []int {
	var out []int
	for _, p := range readProcs() {
		if p.ppid == pid {
			out = append(out, p.pid)
		}
	}
	return out
}

func TestAttachUnreachableBrowser(t *testing.T) {
	t.Parallel()
	url := strings.TrimSuffix(closedPort(t), "/")
	s := startServer(t, "--cdp-url", url)
	list := mustCall(t, s.sess, "browser_discover", map[string]any{"kind": "browsers"})["browsers"].([]any)
	if bi := list[0].(map[string]any); len(list) != 1 || bi["browser_id"] != "cdp:"+strings.TrimPrefix(url, "http://") || bi["kind"] != "cdp" || bi["connected"] != false {
		t.Fatalf("browsers: %v", list)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"browser_discover", map[string]any{"kind": "tabs"}},
		{"browser_open_tab", map[string]any{"url": "about:blank"}},
	} {
		out, isErr := call(t, s.sess, c.tool, c.args)
		code, _, msg := errorOf(t, out, isErr)
		hint, _ := out["error"].(map[string]any)["hint"].(string)
		if code != "browser_unavailable" || !strings.Contains(msg, url) || !strings.Contains(hint, "--remote-debugging-port") {
			t.Fatalf("%s: %s %q hint %q", c.tool, code, msg, hint)
		}
	}
	if pids := childrenOf(s.cmd.Process.Pid); len(pids) != 0 {
		t.Fatalf("the attached server launched processes %v", pids)
	}
}

func TestAttachBadCDPURL(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "mcp", "--cdp-url", "localhost:9222")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 3 || !strings.Contains(stderr.String(), "invalid_input: cdp_url") {
		t.Fatalf("bad --cdp-url: %v\n%s", err, stderr.String())
	}
}

// ---- attach mode through the extension, end to end over MCP

// syncBuf collects a process's stderr and tells waiters of each write.
type syncBuf struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{} // closed and replaced by each write
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// next returns what was written so far and a channel closed by the next write.
func (s *syncBuf) next() (string, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.b.String(), s.changed
}

// waitText waits until the process's stderr shows want, looking again at
// each write.
func (s *syncBuf) waitText(t *testing.T, want string, within time.Duration) {
	t.Helper()
	timeout := time.After(within)
	for {
		text, changed := s.next()
		if strings.Contains(text, want) {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("waited %v for %q in:\n%s", within, want, s.String())
		}
	}
}

// startAttachServer runs `tabwright mcp --attach` with env (which names the
// tabwright home with the pairing) and returns it with its stderr.
func startAttachServer(t *testing.T, env []string) (*server, *syncBuf) {
	t.Helper()
	stderr := &syncBuf{}
	cmd := exec.Command(binary, "mcp", "--attach", "--tools", "full", "--allow-evaluate")
	cmd.Env = env
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		sess.Close()
		if t.Failed() {
			t.Logf("stderr of %v:\n%s", cmd.Args, stderr.String())
		}
	})
	return &server{cmd: cmd, sess: sess}, stderr
}

// userBrowser is the user's Chromium with the extension loaded; the test
// plays the user through its own DevTools port.
type userBrowser struct {
	conn *cdp.Conn
}

func startUserBrowser(t *testing.T, extDir string) *userBrowser {
	t.Helper()
	path, err := launch.Find() // the headless shell cannot load extensions
	if err != nil {
		t.Fatalf("no browser to test with: %v", err)
	}
	browser, err := testbrowser.StartWithExtension(path, extDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(browser.Kill)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := cdp.DialWebSocket(ctx, browser.WSURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := &userBrowser{conn: cdp.New(tr)}
	t.Cleanup(func() { b.conn.Close() })
	return b
}

func (b *userBrowser) target(t *testing.T, id string) *target.Info {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := cdproto.Call(ctx, b.conn.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range res.TargetInfos {
		if string(ti.TargetID) == id {
			return ti
		}
	}
	return nil
}

// open opens a tab as the user would and waits until it shows title.
func (b *userBrowser) open(t *testing.T, url, title string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cdproto.Call(ctx, b.conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	id := string(res.TargetID)
	whenTargetsChange(t, b.conn.Browser(), "tab "+id+" to show "+title, 60*time.Second, func() bool { ti := b.target(t, id); return ti != nil && ti.Title == title })
	return id
}

// whenTargetsChange checks cond now and again at each target the browser
// on sess reports created, changed or destroyed, until cond holds. Its
// bound is only a guard against a hang: waiting on events costs nothing
// when things work, so it is generous for a loaded machine.
func whenTargetsChange(t testing.TB, sess *cdp.Session, what string, within time.Duration, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var events []<-chan jsonv2.Value
	for _, method := range []string{"Target.targetCreated", "Target.targetInfoChanged", "Target.targetDestroyed"} {
		ch, stop := sess.Subscribe(method)
		defer stop()
		events = append(events, ch)
	}
	if err := sess.Call(ctx, "Target.setDiscoverTargets", map[string]any{"discover": true}, nil); err != nil {
		t.Fatal(err)
	}
	for !cond() {
		select {
		case <-events[0]:
		case <-events[1]:
		case <-events[2]:
		case <-ctx.Done():
			t.Fatalf("waited %v for %s", within, what)
		}
	}
}

func waitFor(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	// Asking again is the only signal for what the server does on its own
	// and tells no client (a session ended, its claims released, its tabs
	// closed): each ask checks the condition itself, so the pause between
	// asks stands in for nothing.
	for end := time.Now().Add(within); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("waited %v for %s", within, what)
		}
	}
}

// attachSite serves a signed-in page with a form, a same-origin iframe and
// a cross-origin one (localhost against 127.0.0.1: its own process).
func attachSite(t *testing.T) string {
	t.Helper()
	inner := `<title>%s</title><input id="i" aria-label="in %s"><button id="b" onclick="document.getElementById('out').textContent='clicked ' + document.getElementById('i').value">Go</button><p id="out"></p>`
	cross := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, inner, "Cross", "cross") }))
	t.Cleanup(cross.Close)
	crossURL := strings.Replace(cross.URL, "127.0.0.1", "localhost", 1) + "/cross.html"
	mux := http.NewServeMux()
	mux.HandleFunc("/account.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Signed in</title><h1>Account</h1>
<form onsubmit="event.preventDefault(); document.getElementById('status').textContent = 'Saved ' + document.getElementById('email').value">
<label for="email">Email</label><input id="email" name="email">
<label for="plan">Plan</label><select id="plan" name="plan"><option>Free</option><option>Pro</option></select>
<button type="submit">Save</button></form>
<p id="status" role="status"></p>
<iframe id="same" src="/inner.html" style="width:400px;height:120px"></iframe>
<iframe id="cross" src="%s" style="width:400px;height:120px"></iframe>`, crossURL)
	})
	mux.HandleFunc("/inner.html", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, inner, "Inner", "inner") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// pairedProfile waits until browser_discover lists the profile by name,
// connected, and returns it.
func pairedProfile(t *testing.T, s *server, name string) map[string]any {
	t.Helper()
	var found map[string]any
	waitFor(t, "browser_discover to list the connected profile "+name, 30*time.Second, func() bool {
		for _, b := range mustCall(t, s.sess, "browser_discover", map[string]any{"kind": "browsers"})["browsers"].([]any) {
			if bi := b.(map[string]any); bi["name"] == name && bi["connected"] == true {
				found = bi
				return true
			}
		}
		return false
	})
	return found
}

// TestAttachModeOverMCP: `tabwright setup` pairs, `tabwright mcp --attach`
// runs the hub, and Chromium loads the extension setup wrote. Over MCP:
// discover the profile by name (the default browser), claim a tab the user
// opened before, observe, fill and click (also in both iframes), a batch,
// release (tab open, debugger detached). Then a second `tabwright mcp
// --attach` joins the hub: both list the profile, claims are exclusive
// across the two processes, and when the first exits the second takes the
// hub over and the extension pairs with it.
func TestAttachModeOverMCP(t *testing.T) {
	t.Parallel()
	site := attachSite(t)
	home := t.TempDir()
	env := append(os.Environ(), "TABWRIGHT_HOME="+home)
	port := freePort(t)
	setup := exec.Command(binary, "setup", "--port", strconv.Itoa(port), "--name", "E2E Profile")
	setup.Env = env
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	a, aLog := startAttachServer(t, env)
	aLog.waitText(t, fmt.Sprintf("attach hub on 127.0.0.1:%d", port), 10*time.Second)
	b := startUserBrowser(t, filepath.Join(home, "extension"))
	tabID := b.open(t, site+"/account.html", "Signed in")

	prof := pairedProfile(t, a, "E2E Profile")
	pid, _ := prof["browser_id"].(string)
	caps := fmt.Sprint(prof["capabilities"])
	if prof["kind"] != "extension" || !strings.HasPrefix(pid, "extension:") || !strings.HasPrefix(fmt.Sprint(prof["version"]), "Chrome/") ||
		!strings.Contains(caps, "claim_tab") || !strings.Contains(caps, "file_urls") {
		t.Fatalf("the paired profile in browser_discover: %v", prof)
	}

	// The default browser is the paired profile: no browser_id anywhere.
	listed := mustCall(t, a.sess, "browser_discover", map[string]any{"kind": "tabs"})
	if listed["browser_id"] != pid {
		t.Fatalf("tabs listed of %v, want the paired profile %s", listed["browser_id"], pid)
	}
	if tb := findTab(listed["tabs"].([]any), tabID); tb == nil || tb["url"] != site+"/account.html" || tb["title"] != "Signed in" || tb["claimed"] != false {
		t.Fatalf("the user's tab in discovery: %v", listed)
	}
	if b.target(t, tabID).Attached {
		t.Fatal("the tab is attached before any claim")
	}
	claimed := mustCall(t, a.sess, "browser_claim_tab", map[string]any{"tab_id": tabID, "expected_url": site + "/account.html", "expected_title": "Signed in"})
	h, _ := claimed["tab_handle"].(string)
	if h == "" || claimed["browser_id"] != pid {
		t.Fatalf("claim: %v", claimed)
	}
	if !b.target(t, tabID).Attached {
		t.Fatal("the claimed tab has no debugger attached")
	}

	relayedStateTools(t, a.sess, h)
	obs := mustCall(t, a.sess, "browser_observe", map[string]any{"tab_handle": h})
	if err := observationSchema(t).Validate(obs); err != nil {
		t.Fatalf("observation does not validate: %v\n%v", err, obs)
	}
	if env, _ := obs["environment"].(string); !strings.HasPrefix(env, "chrome/") || !strings.HasSuffix(env, " extension") {
		t.Fatalf("environment %q", obs["environment"])
	}
	// The page's form, and its two frames' fields read inline (same-origin
	// and cross-site, through the relay).
	forms, _ := obs["forms"].([]any)
	framed := 0
	for _, f := range forms {
		if f.(map[string]any)["frame"] != nil {
			framed++
		}
	}
	if obs["title"] != "Signed in" || !strings.Contains(fmt.Sprint(obs["textpreview"]), "Account") || len(forms) != 3 || framed != 2 {
		t.Fatalf("observation: %v", obs)
	}

	mustCall(t, a.sess, "browser_fill", map[string]any{"tab_handle": h, "selector": "Email", "selector_type": "label", "text": "a@b.c"})
	mustCall(t, a.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "button", "selector_type": "role", "name": "Save"})
	mustCall(t, a.sess, "browser_wait", map[string]any{"tab_handle": h, "condition": "text", "selector": "#status", "expected": "Saved a@b.c", "timeout_ms": 5000})
	for _, f := range []string{"#same", "#cross"} {
		frame := map[string]any{"path": []any{f}}
		v := "typed in " + f
		mustCall(t, a.sess, "browser_fill", map[string]any{"tab_handle": h, "selector": "#i", "frame": frame, "text": v})
		mustCall(t, a.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "#b", "frame": frame})
		mustCall(t, a.sess, "browser_wait", map[string]any{"tab_handle": h, "condition": "text", "selector": "#out", "frame": frame, "expected": "clicked " + v, "timeout_ms": 5000})
	}

	batch := mustCall(t, a.sess, "browser_batch", map[string]any{
		"tab_handle": h,
		"steps": jsonList(t, `[
			{"action":"fill","selector":"#email","text":"batch@example.com"},
			{"action":"select_option","selector":"Plan","selector_type":"label","label":"Pro"},
			{"action":"click","selector":"button[type=submit]"},
			{"action":"wait","condition":"text","selector":"#status","expected":"Saved batch@example.com"}
		]`),
		"observe": map[string]any{"selector": "#status"},
	})
	if o, _ := batch["observe"].(map[string]any); batch["ok"] != true || len(batch["steps"].([]any)) != 4 || o == nil || o["text"] != "Saved batch@example.com" {
		t.Fatalf("batch: %v", batch)
	}

	mustCall(t, a.sess, "browser_tab_control", map[string]any{"tab_handle": h, "action": "release"})
	whenTargetsChange(t, b.conn.Browser(), "the debugger to detach", 60*time.Second, func() bool { ti := b.target(t, tabID); return ti != nil && !ti.Attached })
	if ti := b.target(t, tabID); ti == nil || ti.URL != site+"/account.html" {
		t.Fatalf("the tab after release: %+v", ti)
	}
	if code, _, _ := callErr(t, a.sess, "browser_observe", map[string]any{"tab_handle": h}); code != "invalid_handle" {
		t.Fatalf("the released handle: %s", code)
	}

	// A second process joins the hub; claims are exclusive across both.
	c, cLog := startAttachServer(t, env)
	cLog.waitText(t, "joined the attach hub of another tabwright process", 10*time.Second)
	if other := pairedProfile(t, c, "E2E Profile"); other["browser_id"] != pid {
		t.Fatalf("the joined process lists %v, want %s", other, pid)
	}
	h = mustCall(t, a.sess, "browser_claim_tab", map[string]any{"tab_id": tabID})["tab_handle"].(string)
	listed = mustCall(t, c.sess, "browser_discover", map[string]any{"kind": "tabs"})
	if tb := findTab(listed["tabs"].([]any), tabID); listed["browser_id"] != pid || tb == nil || tb["claimed"] != true || tb["claimed_by"] != "another session" {
		t.Fatalf("the joined process's view of the tab the first holds: %v", listed)
	}
	if code, path, msg := callErr(t, c.sess, "browser_claim_tab", map[string]any{"tab_id": tabID}); code != "tab_in_use" || path != "tab_id" || !strings.Contains(msg, "another tabwright process") {
		t.Fatalf("the joined process claiming the first's tab: %s %s %q", code, path, msg)
	}
	opened := mustCall(t, c.sess, "browser_open_tab", map[string]any{"url": site + "/inner.html"})
	ch, _ := opened["tab_handle"].(string)
	if opened["browser_id"] != pid || opened["title"] != "Inner" || ch == "" {
		t.Fatalf("the joined process opening a tab: %v", opened)
	}
	if obs := mustCall(t, c.sess, "browser_observe", map[string]any{"tab_handle": ch}); obs["title"] != "Inner" {
		t.Fatalf("observation through the joined process: %v", obs)
	}
	if code, _, _ := callErr(t, a.sess, "browser_claim_tab", map[string]any{"tab_id": opened["tab_id"]}); code != "tab_in_use" {
		t.Fatalf("the first process claiming the joined one's tab: %s", code)
	}
	mustCall(t, a.sess, "browser_observe", map[string]any{"tab_handle": h})

	// The first process exits: the second takes the hub over, the extension
	// pairs with it, the first's claim is gone and the tab free again.
	if err := a.sess.Close(); err != nil {
		t.Fatalf("the first server's exit: %v", err)
	}
	cLog.waitText(t, "taking over", 10*time.Second)
	cLog.waitText(t, fmt.Sprintf("attach hub on 127.0.0.1:%d", port), 10*time.Second)
	pairedProfile(t, c, "E2E Profile")
	whenTargetsChange(t, b.conn.Browser(), "the first process's tab to be detached", 60*time.Second, func() bool { return !b.target(t, tabID).Attached })
	if code, _, _ := callErr(t, c.sess, "browser_observe", map[string]any{"tab_handle": ch}); code != "invalid_handle" && code != "browser_unavailable" {
		t.Fatalf("a handle made through the old hub: %s", code)
	}
	h = mustCall(t, c.sess, "browser_claim_tab", map[string]any{"tab_id": tabID, "expected_url": site + "/account.html"})["tab_handle"].(string)
	if obs := mustCall(t, c.sess, "browser_observe", map[string]any{"tab_handle": h}); obs["title"] != "Signed in" {
		t.Fatalf("observation after the takeover: %v", obs)
	}
}
