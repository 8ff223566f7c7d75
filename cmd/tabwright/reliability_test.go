package main

// The reliability suite (make reliability): each scenario a test that prints
// its figure as a FIGURE line. Scenarios elsewhere that belong to it:
// TestHTTPIdleSessionReleasesClaims, TestStdioCancelledCallIsNotAnswered,
// TestClaimsAcrossProcesses, TestNoOrphanBrowserAfterServerDies.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/cdp"
)

// relPage has a control for every action kind that opens a dialog when
// armed (window.arm = true), a log the batch scenario appends to, and a
// button whose handler never returns.
const relPage = `<!doctype html><title>Rel</title>
<style>body{height:3000px}</style>
<input id="in"><button id="push" onclick="document.getElementById('log').textContent += document.getElementById('in').value + ';'">Push</button>
<pre id="log"></pre>
<button id="click" onclick="arm && alert('click')">Click</button>
<button id="hover" onmouseover="arm && alert('hover')">Hover</button>
<input id="fill" oninput="arm && alert('fill')">
<input id="type" onkeydown="arm && alert('type')">
<select id="sel" onchange="arm && alert('select')"><option>a</option><option>b</option></select>
<button id="later" onclick="setTimeout(() => alert('later'), 300)">Later</button>
<button id="spin" onclick="while (true) {}">Spin</button>
<button id="armit" onclick="arm = true; scrollTo(0, 0)">Arm</button>
<button id="disarm" onclick="arm = false">Disarm</button>
<script>
window.arm = false;
addEventListener('keydown', (e) => { if (arm && e.key === 'F2') alert('key'); });
addEventListener('scroll', () => { if (arm && scrollY > 100) { arm = false; alert('scroll'); } });
</script>`

const unloadPage = `<!doctype html><title>Leave?</title><button id="b">B</button>
<script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });</script>`

func relSite(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/rel", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, relPage) })
	mux.HandleFunc("/unload", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, unloadPage) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "<title>%s</title>ok", r.URL.Path) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func open(t testing.TB, sess *mcp.ClientSession, url string) string {
	t.Helper()
	return mustCall(t, sess, "browser_open_tab", map[string]any{"url": url})["tab_handle"].(string)
}

func batchCall(t testing.TB, sess *mcp.ClientSession, h string, steps ...map[string]any) (map[string]any, bool) {
	t.Helper()
	list := make([]any, len(steps))
	for i, s := range steps {
		list[i] = s
	}
	return call(t, sess, "browser_batch", map[string]any{"tab_handle": h, "steps": list})
}

// The browser SIGKILLed while a batch waits: the batch fails at once, not
// at its step's deadline, the handle is dead, the next call relaunches.
func TestReliabilityBrowserKilledMidBatch(t *testing.T) {
	t.Parallel()
	site := relSite(t)
	s, progress := progressServer(t, nil, "--tools", "full")
	h := open(t, s.sess, site.URL+"/rel")
	pgid, _ := browserGroup(t, s.cmd.Process.Pid)
	done := callInFlight(t, s.sess, progress, "browser_batch", map[string]any{"tab_handle": h, "steps": []any{
		map[string]any{"action": "fill", "selector": "#in", "text": "x"},
		map[string]any{"action": "wait", "condition": "text", "selector": "#log", "expected": "never", "timeout_ms": 20000}}})
	killPid(pgid)
	killed := time.Now()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	code, _, _ := errorOf(t, r.out, r.isErr)
	figure(t, "pending batch failed after the browser's SIGKILL", "%d ms, code %s", r.at.Sub(killed).Milliseconds(), code)
	// "At once" against the step's 20 s; the bound is generous for a loaded
	// machine (the figure says how fast: tens of ms when quiet).
	if code != "browser_unavailable" || r.at.Sub(killed) > 10*time.Second {
		t.Fatalf("pending batch: %v after %v", r.out, r.at.Sub(killed))
	}
	if code, _, _ := callErr(t, s.sess, "browser_observe", map[string]any{"tab_handle": h}); code != "invalid_handle" {
		t.Fatalf("handle of the dead browser: %s", code)
	}
	start := time.Now()
	open(t, s.sess, site.URL+"/after")
	figure(t, "next call relaunched the browser and opened a tab in", "%d ms", time.Since(start).Milliseconds())
}

// A renderer that crashes, and a page whose script never returns: the call
// ends at its deadline (or at once) with a code, and the browser goes on.
func TestReliabilityCrashAndEndlessLoop(t *testing.T) {
	t.Parallel()
	site := relSite(t)
	b := startAttachedBrowser(t, "0")
	s, progress := progressServer(t, []string{"XDG_RUNTIME_DIR=" + t.TempDir()}, "--cdp-url", b.HTTPURL, "--tools", "full")

	// Endless loop: a click whose handler never returns.
	h := open(t, s.sess, site.URL+"/rel")
	start := time.Now()
	code, _, msg := callErr(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "#spin", "timeout_ms": 1500})
	took := time.Since(start)
	figure(t, "click into an endless loop ended", "after %d ms (timeout_ms 1500), code %s", took.Milliseconds(), code)
	// The message shows the call's own deadline ended it; the bound only
	// tells "ended" from "hung", with room for a loaded machine.
	if code != "timeout" || took > 10*time.Second || !strings.Contains(msg, "timeout_ms (1500 ms)") {
		t.Fatalf("endless loop: %s %q after %v", code, msg, took)
	}
	start = time.Now()
	code, _, _ = callErr(t, s.sess, "browser_observe", map[string]any{"tab_handle": h, "timeout_ms": 1000})
	if code != "timeout" || time.Since(start) > 10*time.Second { // ended, not hung (as above)
		t.Fatalf("observe of the spinning page: %s after %v", code, time.Since(start))
	}
	mustCall(t, s.sess, "browser_tab_control", map[string]any{"tab_handle": h, "action": "close"})
	start = time.Now()
	h2 := open(t, s.sess, site.URL+"/fresh")
	figure(t, "browser usable after the spinning tab was closed", "new tab in %d ms", time.Since(start).Milliseconds())

	// Renderer crash: the page's process is killed under a pending wait.
	h3 := open(t, s.sess, site.URL+"/rel")
	done := callInFlight(t, s.sess, progress, "browser_wait", map[string]any{"tab_handle": h3, "condition": "text", "selector": "#log", "expected": "never", "timeout_ms": 10000})
	crashed := time.Now()
	crashRenderer(t, b, site.URL+"/rel")
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	code, _, msg = errorOf(t, r.out, r.isErr)
	figure(t, "wait on a crashed renderer ended", "%d ms after Page.crash was sent, code %s", r.at.Sub(crashed).Milliseconds(), code)
	// Well before the wait's own 10 s deadline; generous for a loaded machine.
	if code != "tab_crashed" || r.at.Sub(crashed) > 5*time.Second {
		t.Fatalf("crash: %s %q after %v", code, msg, r.at.Sub(crashed))
	}
	// Calls fail at once until a navigation loads a page again.
	if code, _, _ := callErr(t, s.sess, "browser_observe", map[string]any{"tab_handle": h3}); code != "tab_crashed" {
		t.Fatalf("observe of the crashed tab: %s", code)
	}
	start = time.Now()
	mustCall(t, s.sess, "browser_navigate", map[string]any{"tab_handle": h3, "url": site.URL + "/reloaded", "timeout_ms": 5000})
	mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h3})
	figure(t, "crashed tab recovered by a navigation in", "%d ms", time.Since(start).Milliseconds())
	mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h2})
}

// crashRenderer sends Page.crash to the tab showing url, over the test's own
// DevTools connection (as a renderer crash looks to tabwright).
func crashRenderer(t testing.TB, b *attachedBrowser, url string) {
	t.Helper()
	var list []struct {
		ID, URL, Type        string
		WebSocketDebuggerURL string
	}
	b.devtools(t.(*testing.T), http.MethodGet, "/json/list", &list)
	for _, tg := range list {
		if tg.Type == "page" && tg.URL == url {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			tr, err := cdp.DialWebSocket(ctx, tg.WebSocketDebuggerURL, nil)
			if err != nil {
				t.Fatal(err)
			}
			conn := cdp.New(tr)
			defer conn.Close()
			conn.Browser().Call(ctx, "Page.crash", struct{}{}, nil) // the answer never comes: the page is gone
			return
		}
	}
	t.Fatalf("no tab on %s to crash", url)
}

// Dialogs opened during every action kind, beforeunload on navigate and on
// close: every call returns (dialog_pending, or done under accept), and the
// tab works afterwards.
func TestReliabilityDialogsNeverHang(t *testing.T) {
	t.Parallel()
	site := relSite(t)
	s := startServer(t, "--tools", "full")
	h := open(t, s.sess, site.URL+"/rel")
	arm := func() { mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "#armit"}) }
	actions := []map[string]any{
		{"tool": "browser_click", "selector": "#click"},
		{"tool": "browser_hover", "selector": "#hover"},
		{"tool": "browser_fill", "selector": "#fill", "text": "x"},
		{"tool": "browser_type", "selector": "#type", "text": "x"},
		{"tool": "browser_select_option", "selector": "#sel", "value": "b"},
		{"tool": "browser_press_key", "key": "F2"},
		{"tool": "browser_scroll", "delta_y": 600},
	}
	slowest := time.Duration(0)
	for _, a := range actions {
		tool := a["tool"].(string)
		args := map[string]any{"tab_handle": h}
		for k, v := range a {
			if k != "tool" {
				args[k] = v
			}
		}
		arm()
		start := time.Now()
		out, isErr := call(t, s.sess, tool, args)
		took := time.Since(start)
		slowest = max(slowest, took)
		code := ""
		if isErr {
			code, _, _ = errorOf(t, out, isErr)
		}
		// A scroll may finish before the page's scroll handler opens its
		// dialog; every other action meets it. A call stuck on the dialog
		// would end at the 5 s action timeout with code timeout: the code
		// tells, and the bound is only a guard, generous for a loaded machine.
		if (code != "dialog_pending" && !(tool == "browser_scroll" && code == "")) || took > 15*time.Second {
			t.Fatalf("%s with a dialog: %v after %v", tool, out, took)
		}
		waitFor(t, "the dialog to answer", 3*time.Second, func() bool {
			_, isErr := call(t, s.sess, "browser_dialog", map[string]any{"tab_handle": h, "action": "dismiss"})
			return !isErr
		})
	}
	// A dialog during a wait, and one met under accept.
	mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "#disarm"})
	out, isErr := batchCall(t, s.sess, h,
		map[string]any{"action": "click", "selector": "#later"},
		map[string]any{"action": "wait", "condition": "text", "selector": "#log", "expected": "never", "timeout_ms": 5000})
	if code, _, _ := errorOf(t, out, isErr); code != "dialog_pending" {
		t.Fatalf("dialog during a wait: %v", out)
	}
	mustCall(t, s.sess, "browser_dialog", map[string]any{"tab_handle": h, "action": "accept"})
	arm()
	mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "#click", "dialog_policy": "accept"})

	// beforeunload: navigate and close both return.
	u := open(t, s.sess, site.URL+"/unload")
	mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": u, "selector": "#b"}) // the page needs a user gesture to ask
	start := time.Now()
	out, isErr = call(t, s.sess, "browser_navigate", map[string]any{"tab_handle": u, "url": site.URL + "/away", "timeout_ms": 5000})
	navTook := time.Since(start)
	if code, _, _ := errorOf(t, out, isErr); code != "dialog_pending" || navTook > 15*time.Second { // as above
		t.Fatalf("navigate away from beforeunload: %v after %v", out, navTook)
	}
	{
		mustCall(t, s.sess, "browser_dialog", map[string]any{"tab_handle": u, "action": "accept"})
		mustCall(t, s.sess, "browser_wait", map[string]any{"tab_handle": u, "condition": "url", "expected": "/away"})
	}
	mustCall(t, s.sess, "browser_navigate", map[string]any{"tab_handle": u, "url": site.URL + "/unload"})
	mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": u, "selector": "#b"})
	start = time.Now()
	mustCall(t, s.sess, "browser_tab_control", map[string]any{"tab_handle": u, "action": "close"})
	closeTook := time.Since(start)
	figure(t, "calls meeting a dialog returned", "slowest of %d action kinds %d ms; beforeunload: navigate %d ms, close %d ms", len(actions), slowest.Milliseconds(), navTook.Milliseconds(), closeTook.Milliseconds())
	mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h})
}

// scale reads TABWRIGHT_RELIABILITY_SCALE (default 1): the suite's counts
// are multiplied by it, so a longer run can be asked for.
func scale() int {
	n, err := strconv.Atoi(os.Getenv("TABWRIGHT_RELIABILITY_SCALE"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// concurrentBatches runs, for each session, batches on its own tab, two at
// a time: each batch pushes its id three times into the page's log. The
// queue must run every batch whole (the log holds each id three times in a
// row) and every call must come back. why keeps the first few failed
// batches' answers, so a failure says whether a batch went missing or
// came back with an error (and which).
func concurrentBatches(t *testing.T, sessions []*mcp.ClientSession, site string, perSession int) (lost, interleaved int, why []string) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for si, sess := range sessions {
		h := open(t, sess, site+"/rel")
		wg.Add(1)
		go func() {
			defer wg.Done()
			var inner sync.WaitGroup
			ids := make(chan int)
			for range 2 {
				inner.Add(1)
				go func() {
					defer inner.Done()
					for b := range ids {
						id := fmt.Sprintf("s%db%d", si, b)
						steps := []map[string]any{}
						for range 3 {
							steps = append(steps,
								map[string]any{"action": "fill", "selector": "#in", "text": id},
								map[string]any{"action": "click", "selector": "#push"})
						}
						out, isErr := batchCall(t, sess, h, steps...)
						if steps, _ := out["steps"].([]any); isErr || out["ok"] != true || len(steps) != 6 {
							raw, _ := json.Marshal(out)
							mu.Lock()
							lost++
							if len(why) < 3 {
								why = append(why, fmt.Sprintf("batch %s: %.600s", id, raw))
							}
							mu.Unlock()
						}
					}
				}()
			}
			for b := range perSession {
				ids <- b
			}
			close(ids)
			inner.Wait()
			out, _ := call(t, sess, "browser_batch", map[string]any{"tab_handle": h, "steps": []any{
				map[string]any{"action": "wait", "condition": "attached", "selector": "#log"}},
				"observe": map[string]any{"selector": "#log", "max_chars": 64000}})
			read, _ := out["observe"].(map[string]any)
			text, _ := read["text"].(string)
			seen := map[string]bool{}
			entries := strings.Split(strings.TrimSuffix(text, ";"), ";")
			for i := 0; i+2 < len(entries); i += 3 {
				if entries[i] != entries[i+1] || entries[i] != entries[i+2] || seen[entries[i]] {
					mu.Lock()
					interleaved++
					mu.Unlock()
				}
				seen[entries[i]] = true
			}
			if len(seen) != perSession || len(entries) != 3*perSession {
				mu.Lock()
				lost += perSession - len(seen)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return lost, interleaved, why
}

// perSession is how many batches each session runs in the concurrency
// scenarios. Its two workers keep two batches in flight on the session's
// tab at every moment, so every batch but the last overlaps another: a
// queue that let two batches interleave shows it within the first few,
// and 12 each makes 96 overlapping batches across the 8 tabs.
// TABWRIGHT_RELIABILITY_SCALE asks for more.
func perSession() int { return 12 * scale() }

// 8 HTTP sessions on one server, each on its own tab.
func TestReliabilityConcurrentSessionsHTTP(t *testing.T) {
	t.Parallel()
	site := relSite(t)
	endpoint, _ := startHTTP(t, "--tools", "full")
	var sessions []*mcp.ClientSession
	for range 8 {
		sessions = append(sessions, connectHTTP(t, endpoint))
	}
	per := perSession()
	start := time.Now()
	lost, interleaved, why := concurrentBatches(t, sessions, site.URL, per)
	figure(t, "8 HTTP sessions x batches on 8 tabs", "%d batches of 6 steps in %.1f s: %d interleaved, %d lost", 8*per, time.Since(start).Seconds(), interleaved, lost)
	if lost != 0 || interleaved != 0 {
		t.Fatalf("%d lost, %d interleaved; %s", lost, interleaved, strings.Join(why, "; "))
	}
}

// 2 server processes on one --cdp-url browser, 4 HTTP sessions each.
func TestReliabilityConcurrentProcesses(t *testing.T) {
	t.Parallel()
	site := relSite(t)
	b := startAttachedBrowser(t, "0")
	env := []string{"XDG_RUNTIME_DIR=" + t.TempDir()} // one claim folder for both
	var sessions []*mcp.ClientSession
	for range 2 {
		endpoint, _ := startHTTPEnv(t, env, "--cdp-url", b.HTTPURL, "--tools", "full")
		for range 4 {
			sessions = append(sessions, connectHTTP(t, endpoint))
		}
	}
	per := perSession()
	start := time.Now()
	lost, interleaved, why := concurrentBatches(t, sessions, site.URL, per)
	figure(t, "2 processes x 4 sessions on one --cdp-url browser", "%d batches of 6 steps in %.1f s: %d interleaved, %d lost", 8*per, time.Since(start).Seconds(), interleaved, lost)
	if lost != 0 || interleaved != 0 {
		t.Fatalf("%d lost, %d interleaved; %s", lost, interleaved, strings.Join(why, "; "))
	}
}

// Many observations: the server's resident memory stays bounded. After a
// short warm-up the server's RSS is flat: sampled every 100 observations
// up to 3,000 (three runs at once on a loaded machine), it stayed within
// 1 MiB of its value at 100 (21.4 to 22.8 MiB). So a 2 MiB bound, twice
// that noise, tells a leak from it, and the count only has to make any
// per-observation leak add up past the bound: n is set so that one
// observation's payload kept each time (measured below, about 1.2 KiB;
// full: true, or an unchanged page's observation would be a 353-byte
// "unchanged" note), or one goroutine left behind each time (its stack
// alone is at least goroutineStack), would pass it.
func TestReliabilityObservationMemory(t *testing.T) {
	t.Parallel()
	site := relSite(t)
	s := startServer(t)
	h := open(t, s.sess, site.URL+"/rel")
	const warmUp, growth = 200, 2 << 20
	const goroutineStack = 2 << 10 // the runtime's smallest goroutine stack
	observe := map[string]any{"tab_handle": h, "full": true}
	raw, _ := json.Marshal(mustCall(t, s.sess, "browser_observe", observe))
	n := warmUp + (max(growth/goroutineStack, growth/len(raw))+1)*scale()
	var atWarm int64
	start := time.Now()
	for i := 2; i <= n; i++ {
		mustCall(t, s.sess, "browser_observe", observe)
		if i == warmUp {
			atWarm = rssKiB(t, s.cmd.Process.Pid)
		}
	}
	end := rssKiB(t, s.cmd.Process.Pid)
	figure(t, "server RSS over observations", "%.1f MiB after %d, %.1f MiB after %d (%.1f s; Chromium not counted)", float64(atWarm)/1024, warmUp, float64(end)/1024, n, time.Since(start).Seconds())
	if end > atWarm+growth>>10 || end > 64*1024 {
		t.Fatalf("RSS grew from %d KiB to %d KiB", atWarm, end)
	}
}

func rssKiB(t testing.TB, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
