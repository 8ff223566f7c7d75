package main

// End-to-end tests of `tabwright mcp --cdp-url`: the server attaches to a
// Chromium started here with --remote-debugging-port, as a user would start
// their own browser, and must leave that browser and its tabs as it found them.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

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

// openTab opens a tab through /json/new and waits until it shows title.
func (b *attachedBrowser) openTab(t *testing.T, url, title string) devtoolsTarget {
	t.Helper()
	var created devtoolsTarget
	b.devtools(t, http.MethodPut, "/json/new?"+url, &created)
	if created.ID == "" {
		t.Fatalf("/json/new gave no tab id: %+v", created)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if tb, ok := b.tab(t, created.ID); ok && tb.Title == title {
			return tb
		}
		if time.Now().After(deadline) {
			t.Fatalf("tab %s never showed the title %q", created.ID, title)
		}
	}
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
		return syscall.Kill(b.Pid(), 0) == nil
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
// in its place.
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "mcp", "--cdp-url", "localhost:9222")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "invalid_input: cdp_url") {
		t.Fatalf("bad --cdp-url: %v\n%s", err, stderr.String())
	}
}
