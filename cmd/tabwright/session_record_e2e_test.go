package main

import (
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/mcpserver/session"
)

// orderSite serves an order form (a name, a colour, a submit button) whose
// page logs to the console and fetches its stock; /done takes the order
// and keeps each one it got, for a test to compare.
type orderSite struct {
	*httptest.Server
	mu     sync.Mutex
	orders []string
}

func newOrderSite(t testing.TB) *orderSite {
	s := &orderSite{}
	mux := http.NewServeMux()
	mux.HandleFunc("/order", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><meta charset="utf-8"><title>Order</title>
<h1>Order a mug</h1>
<form action="/done" method="get">
<label for="customer">Name</label> <input id="customer" name="customer">
<label for="colour">Colour</label> <select id="colour" name="colour"><option value="">pick one</option><option value="red">Red</option><option value="blue">Blue</option></select>
<button type="submit">Place order</button>
</form>
<p id="stock">checking stock</p>
<script>console.log("order page ready <b>not bold</b>");
fetch("/stock").then(r => r.text()).then(t => document.getElementById("stock").textContent = t);</script>`)
	})
	mux.HandleFunc("/stock", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "12 mugs left") })
	mux.HandleFunc("/done", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		order := q.Get("customer") + " / " + q.Get("colour")
		s.mu.Lock()
		s.orders = append(s.orders, order)
		s.mu.Unlock()
		fmt.Fprintf(w, `<!doctype html><title>Thanks</title><h1 id="receipt">Order taken: %s</h1>`, order)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *orderSite) taken() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.orders...)
}

// recordOrder runs an agent's session on the order form under
// --save-session: fill and click by ref, select by label, one call that
// fails, and a wait for the receipt. It returns the session's folder.
func recordOrder(t *testing.T, site *orderSite, secret string, extra ...string) string {
	t.Helper()
	root := t.TempDir()
	secrets := filepath.Join(t.TempDir(), "secrets")
	if err := os.WriteFile(secrets, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, append([]string{"--save-session", root, "--secrets-file", secrets}, extra...)...)
	h := openOn(t, s.sess, site.URL+"/order?campaign="+secret)
	obs := mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h})
	mustCall(t, s.sess, "browser_fill", map[string]any{"tab_handle": h, "ref": refOf(t, obs, "Name"), "text": "Ada"})
	mustCall(t, s.sess, "browser_select_option", map[string]any{"tab_handle": h, "selector": "Colour", "selector_type": "label", "label": "Red"})
	if _, isErr := call(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "#missing", "timeout_ms": 300}); !isErr {
		t.Fatal("a click on a missing element succeeded")
	}
	mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "ref": refOf(t, obs, "Place order")})
	mustCall(t, s.sess, "browser_wait", map[string]any{"tab_handle": h, "condition": "visible", "selector": "#receipt"})
	s.sess.Close()
	s.cmd.Wait()
	entries, err := os.ReadDir(root)
	if err != nil || len(entries) != 1 {
		t.Fatalf("want one session folder in the --save-session folder, got %v (%v)", entries, err)
	}
	return filepath.Join(root, entries[0].Name())
}

// A session of fill + click + select on a form page is recorded (every
// call, redacted, with screenshots and the tab's console and network),
// viewed in Chromium and replayed by tabwright batch to the same order.
func TestSessionRecordedViewedAndReplayed(t *testing.T) {
	t.Parallel()
	site := newOrderSite(t)
	const secret = "sk-campaign-77f1c2"
	dir := recordOrder(t, site, secret)
	if got := site.taken(); len(got) != 1 || got[0] != "Ada / red" {
		t.Fatalf("the agent's order: %v", got)
	}
	s, err := session.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkRecorded(t, s)
	noSecretIn(t, dir, secret)

	t.Run("view", func(t *testing.T) { checkView(t, dir) })
	t.Run("batch replays the order", func(t *testing.T) {
		stepsFile := filepath.Join(t.TempDir(), "steps.json")
		out, notes, code := runCLI(t, nil, "session", "batch", dir)
		if code != 0 {
			t.Fatalf("session batch: exit %d\n%s", code, notes)
		}
		if strings.Contains(out, `"ref"`) || !strings.Contains(out, `"selector": "#customer"`) {
			t.Fatalf("the steps name refs, or the filled field not by its selector:\n%s", out)
		}
		for _, want := range []string{"call 5 (browser_click): failed (not_found)", "only read the page", "replay: tabwright batch --url"} {
			if !strings.Contains(notes, want) {
				t.Fatalf("the notes do not say %q:\n%s", want, notes)
			}
		}
		if err := os.WriteFile(stepsFile, []byte(out), 0o600); err != nil {
			t.Fatal(err)
		}
		start := s.Calls[0].URLAfter
		if _, stderr, code := runCLI(t, nil, "batch", "--url", start, "--steps", stepsFile); code != 0 {
			t.Fatalf("replay: exit %d\n%s", code, stderr)
		}
		if got := site.taken(); len(got) != 2 || got[1] != got[0] {
			t.Fatalf("the replay's order differs from the agent's: %v", got)
		}
	})
}

// checkRecorded: every call is there in order, with what the model saw,
// its duration, the error of the one that failed, a ref's selector, a
// screenshot after each action and the page's console and network.
func checkRecorded(t *testing.T, s *session.Loaded) {
	t.Helper()
	tools := []string{"browser_open_tab", "browser_observe", "browser_fill", "browser_select_option", "browser_click", "browser_click", "browser_wait"}
	if len(s.Calls) != len(tools) || s.Skipped != 0 {
		t.Fatalf("recorded %d calls (%d skipped), want %d", len(s.Calls), s.Skipped, len(tools))
	}
	var console, network bool
	for i, c := range s.Calls {
		if c.Seq != i+1 || c.Tool != tools[i] || c.DurationMS <= 0 || c.Text == "" {
			t.Fatalf("call %d: %+v", i+1, c)
		}
		acts := c.Tool != "browser_observe" && c.Tool != "browser_wait"
		if acts != (c.Shot != nil) {
			t.Fatalf("call %d (%s): screenshot %+v, shot error %q", c.Seq, c.Tool, c.Shot, c.ShotError)
		}
		if c.Shot != nil {
			checkShot(t, filepath.Join(s.Dir, c.Shot.File), c.Shot)
		}
		for _, l := range entriesOf(c) {
			console = console || l.Kind == "console" && strings.Contains(l.Text, "order page ready")
			network = network || l.Kind == "network" && strings.HasSuffix(l.URL, "/stock") && l.Status == 200
		}
	}
	if !console || !network {
		t.Fatalf("the page's console line (%v) or its fetch (%v) is not recorded", console, network)
	}
	if fill := s.Calls[2]; fill.Stable[""].Selector != "#customer" {
		t.Fatalf("the fill by ref has no selector recorded: %+v (%s)", fill.Stable, fill.StableError)
	}
	if failed := s.Calls[4]; !failed.IsError || failed.Error == nil || failed.Error.Code != "not_found" || !strings.Contains(failed.Text, "not_found") {
		t.Fatalf("the failed click: %+v", failed)
	}
}

func entriesOf(c session.Call) []session.LogLine {
	if c.Logs == nil {
		return nil
	}
	return c.Logs.Entries
}

// checkShot: a small JPEG, as large as its record says.
func checkShot(t *testing.T, path string, s *session.Shot) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, format, err := image.DecodeConfig(f)
	if err != nil || format != "jpeg" || cfg.Width != s.Width || cfg.Height != s.Height || max(cfg.Width, cfg.Height) > 800 {
		t.Fatalf("%s: %s %dx%d (%v), record %+v", path, format, cfg.Width, cfg.Height, err, s)
	}
	if info, _ := f.Stat(); info.Size() != int64(s.Bytes) || s.Bytes > 100_000 {
		t.Fatalf("%s: %d bytes, record says %d (bound 100,000)", path, info.Size(), s.Bytes)
	}
}

// noSecretIn: no file of the session holds the secret (its pixels aside).
func noSecretIn(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && !strings.HasSuffix(path, ".jpg") {
			raw, _ := os.ReadFile(path)
			if strings.Contains(string(raw), secret) {
				t.Errorf("%s holds the secret", path)
			}
			if strings.HasSuffix(path, session.CallsFile) && !strings.Contains(string(raw), "campaign=[redacted]") {
				t.Errorf("%s does not show the redacted argument", path)
			}
		}
		return nil
	})
}

// checkView opens the session's HTML page in Chromium: it loads with no
// console message and no request, shows every call and its screenshots,
// and the page's text stays text.
func checkView(t *testing.T, dir string) {
	out := filepath.Join(t.TempDir(), "view.html")
	if stdout, stderr, code := runCLI(t, nil, "session", "view", dir, "-o", out); code != 0 || strings.TrimSpace(stdout) != out {
		t.Fatalf("session view: exit %d, %q\n%s", code, stdout, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), "<b>not bold</b>") || !strings.Contains(string(page), "&lt;b&gt;not bold&lt;/b&gt;") {
		t.Fatal("the page's console text is not escaped in the view")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/view.html" {
			t.Errorf("the view asked for %s", r.URL.Path)
			http.NotFound(w, r)
			return
		}
		w.Write(page)
	}))
	defer srv.Close()
	viewer := startServer(t, "--allow-evaluate")
	h := openOn(t, viewer.sess, srv.URL+"/view.html")
	counts := mustCall(t, viewer.sess, "browser_evaluate", map[string]any{"tab_handle": h, "expression": `({
		calls: document.querySelectorAll("details.call").length,
		failed: document.querySelectorAll("details.call.failed").length,
		shots: [...document.images].filter(i => i.complete && i.naturalWidth > 0).length,
		images: document.images.length,
		tools: [...document.querySelectorAll("summary .tool")].map(e => e.textContent).join(" "),
	})`})
	var v map[string]any
	if err := json.Unmarshal([]byte(counts["json"].(string)), &v); err != nil {
		t.Fatalf("evaluate: %v %v", counts, err)
	}
	if v["calls"] != 7.0 || v["failed"] != 1.0 || v["shots"] != 5.0 || v["images"] != 5.0 || !strings.Contains(v["tools"].(string), "browser_fill browser_select_option browser_click") {
		t.Fatalf("the view shows %v", v)
	}
	logs := mustCall(t, viewer.sess, "browser_logs", map[string]any{"tab_handle": h, "kind": []any{"console", "error", "network"}})
	for _, e := range logs["entries"].([]any) {
		entry := e.(map[string]any)
		url, _ := entry["url"].(string)
		if entry["kind"] != "network" || !strings.HasSuffix(url, "/view.html") && !strings.HasPrefix(url, "data:image/jpeg;base64,") {
			t.Fatalf("the view logged or loaded more than itself and its embedded screenshots: %.300v", entry)
		}
	}
	if *updateDocs {
		mustCall(t, viewer.sess, "browser_emulate", map[string]any{"tab_handle": h, "width": 1200, "height": 1100})
		res := callAny(t, viewer.sess, "browser_screenshot", map[string]any{"tab_handle": h, "format": "png", "max_long_side": 1200})
		for _, c := range res.Content {
			if img, ok := c.(*mcp.ImageContent); ok {
				if err := os.WriteFile("../../docs/session-view.png", img.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// The session commands and the cap refuse what they cannot use, as usage
// errors that say what was wrong.
func TestSessionInputsAreRefused(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"mcp", "--save-session", empty, "--save-session-max-mb", "0"}, "--save-session-max-mb"},
		{[]string{"session"}, "give view or batch"},
		{[]string{"session", "replay", empty}, "unknown subcommand"},
		{[]string{"session", "view"}, "give the session's folder"},
		{[]string{"session", "view", empty}, "holds no recorded session"},
		{[]string{"session", "batch", empty, "--tab"}, "flag needs an argument"},
	} {
		_, stderr, code := runCLI(t, nil, c.args...)
		if code != int(exitUsage) || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, want %d saying %q:\n%s", c.args, code, exitUsage, c.says, stderr)
		}
	}
}
