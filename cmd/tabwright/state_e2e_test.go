package main

// Screenshots, logs, evaluate, pdf, emulation, storage and downloads over
// MCP, against real Chromium.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stateSite serves the pages of these tests.
func stateSite(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/shot", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Shot</title><style>body{margin:0}</style>
<div style="height:3000px;background:#ddd"><button id="go" style="position:absolute;top:2000px;left:40px;width:120px;height:40px">Go</button>
<a href="/x" style="position:absolute;top:10px;left:10px">Top link</a></div>`)
	})
	mux.HandleFunc("/framed", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Framed</title><style>body{margin:0}</style><div style="height:150px"></div><iframe id="f" src="/inner" style="margin-left:70px;width:300px;height:200px;border:5px solid #000"></iframe>`)
	})
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<style>body{margin:0}</style><div style="height:30px"></div><div id="blue" style="margin-left:20px;width:100px;height:50px;background:#00f"></div>`)
	})
	mux.HandleFunc("/multi", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Multi</title><select id="s" multiple><option value="a">A</option><option value="b">B</option><option value="c">C</option></select>`)
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "planted-cookie-123"})
		fmt.Fprint(w, `{"ok":true}`)
	})
	mux.HandleFunc("/logs", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Logs</title><script>
document.cookie = "sid=planted-" + "cookie-123"; // the page's own text is no header: spelled apart
console.warn("configured-secret-value is here");
fetch("/api", {headers: {Authorization: "Bearer planted-" + "token-456"}});
</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// callFull calls a tool and returns the whole result.
func callFull(t testing.TB, sess *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &out)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %v", name, args, out)
	}
	return res, out
}

// imageOf decodes the image content of a result.
func imageOf(t testing.TB, res *mcp.CallToolResult) (image.Config, string, []byte) {
	t.Helper()
	for _, c := range res.Content {
		if img, ok := c.(*mcp.ImageContent); ok {
			cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
			if err != nil {
				t.Fatalf("image content does not decode: %v", err)
			}
			if img.MIMEType != "image/"+format {
				t.Fatalf("image content says %s, is %s", img.MIMEType, format)
			}
			return cfg, format, img.Data
		}
	}
	t.Fatalf("no image content in %d items", len(res.Content))
	return image.Config{}, "", nil
}

func openOn(t testing.TB, sess *mcp.ClientSession, url string) string {
	t.Helper()
	return mustCall(t, sess, "browser_open_tab", map[string]any{"url": url})["tab_handle"].(string)
}

func TestScreenshotOverMCP(t *testing.T) {
	t.Parallel()
	site := stateSite(t)
	outDir := t.TempDir()
	s := startServer(t, "--output-dir", outDir)
	h := openOn(t, s.sess, site.URL+"/shot")

	res, out := callFull(t, s.sess, "browser_screenshot", map[string]any{"tab_handle": h})
	cfg, _, _ := imageOf(t, res)
	if max(cfg.Width, cfg.Height) > 1568 || cfg.Width*cfg.Height > 1_150_000 || out["width"] != float64(cfg.Width) {
		t.Fatalf("viewport image %dx%d, result %v", cfg.Width, cfg.Height, out)
	}

	save := filepath.Join(outDir, "full.jpg")
	res, out = callFull(t, s.sess, "browser_screenshot", map[string]any{"tab_handle": h, "full_page": true, "format": "jpeg", "quality": 60, "save_path": save, "max_long_side": 1000})
	cfg, format, data := imageOf(t, res)
	if format != "jpeg" || cfg.Height > 1000 || cfg.Height < 990 {
		t.Fatalf("full page: %s %dx%d", format, cfg.Width, cfg.Height)
	}
	if disk, err := os.ReadFile(save); err != nil || !bytes.Equal(disk, data) || out["saved"] != save {
		t.Fatalf("saved file: %v, %d bytes vs %d; %v", err, len(disk), len(data), out["saved"])
	}

	res, out = callFull(t, s.sess, "browser_screenshot", map[string]any{"tab_handle": h, "selector": "button", "selector_type": "role", "name": "Go", "groundings": true})
	cfg, _, _ = imageOf(t, res)
	if cfg.Width != 120 || cfg.Height != 40 {
		t.Fatalf("element image %dx%d: %v", cfg.Width, cfg.Height, out)
	}
	gs, _ := out["groundings"].([]any)
	if len(gs) != 1 || gs[0].(map[string]any)["role"] != "button" || fmt.Sprint(gs[0].(map[string]any)["box"]) != "[0 0 120 40]" {
		t.Fatalf("groundings of the element shot: %v", out["groundings"])
	}

	// An element inside a child frame: the frame's offset is counted.
	fh := openOn(t, s.sess, site.URL+"/framed")
	res, out = callFull(t, s.sess, "browser_screenshot", map[string]any{"tab_handle": fh, "selector": "#blue", "frame": map[string]any{"path": []any{"#f"}}})
	cfg, _, data = imageOf(t, res)
	shot, err := png.Decode(bytes.NewReader(data))
	if err != nil || cfg.Width != 100 || cfg.Height != 50 {
		t.Fatalf("framed element %dx%d (%v): %v", cfg.Width, cfg.Height, err, out)
	}
	for _, p := range []image.Point{{2, 2}, {50, 25}, {97, 47}} {
		if r, g, b, _ := shot.At(p.X, p.Y).RGBA(); r>>8 > 20 || g>>8 > 20 || b>>8 < 235 {
			t.Fatalf("pixel %v of the framed element is %d,%d,%d, not blue", p, r>>8, g>>8, b>>8)
		}
	}

	code, path, _ := callErr(t, s.sess, "browser_screenshot", map[string]any{"tab_handle": h, "full_page": true, "ref": "e1"})
	if code != "invalid_input" || path != "full_page" {
		t.Fatalf("full_page with a ref: %s %s", code, path)
	}

	// The observation's vision section carries the image too.
	res, out = callFull(t, s.sess, "browser_observe", map[string]any{"tab_handle": h, "include": []any{"vision"}})
	cfg, _, _ = imageOf(t, res)
	v, _ := out["vision"].(map[string]any)
	img, _ := v["image"].(map[string]any)
	if img == nil || img["width"] != float64(cfg.Width) || (v["ocr"] == nil && v["ocrnote"] == nil) {
		t.Fatalf("vision: %v", v)
	}
}

func TestLogsOverMCP(t *testing.T) {
	t.Parallel()
	site := stateSite(t)
	secrets := filepath.Join(t.TempDir(), "secrets")
	if err := os.WriteFile(secrets, []byte("# test\nAPI_KEY=configured-secret-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, "--secrets-file", secrets)
	h := openOn(t, s.sess, site.URL+"/logs")
	var out map[string]any
	waitFor(t, "the /api request in the log", 10*time.Second, func() bool {
		_, out = callFull(t, s.sess, "browser_logs", map[string]any{"tab_handle": h, "headers": true, "bodies": true})
		return strings.Contains(fmt.Sprint(out["entries"]), `url:`+site.URL+`/api]`)
	})
	all, _ := json.Marshal(out)
	for _, secret := range []string{"planted-token-456", "planted-cookie-123", "configured-secret-value"} {
		if strings.Contains(string(all), secret) {
			t.Fatalf("%q shows in browser_logs: %s", secret, all)
		}
	}
	var api map[string]any
	for _, e := range out["entries"].([]any) {
		if e := e.(map[string]any); e["kind"] == "network" && strings.HasSuffix(fmt.Sprint(e["url"]), "/api") {
			api = e
		}
	}
	if api == nil || api["status"] != float64(200) || api["body"] != `{"ok":true}` || api["request_headers"].(map[string]any)["Authorization"] != "[redacted]" {
		t.Fatalf("the /api entry: %v", api)
	}
	next := out["next_seq"].(float64)
	_, later := callFull(t, s.sess, "browser_logs", map[string]any{"tab_handle": h, "after_seq": next, "kind": []any{"console"}})
	if len(later["entries"].([]any)) != 0 || later["next_seq"] != next {
		t.Fatalf("after next_seq: %v", later)
	}
	if code, path, _ := callErr(t, s.sess, "browser_logs", map[string]any{"tab_handle": h, "kind": []any{"dom"}}); code != "invalid_input" || path != "kind[0]" {
		t.Fatalf("bad kind: %s %s", code, path)
	}
}

func TestEvaluateOverMCP(t *testing.T) {
	t.Parallel()
	site := stateSite(t)
	plain := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := plain.sess.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "browser_evaluate" {
			t.Fatal("browser_evaluate is listed without --allow-evaluate")
		}
	}
	if res, err := plain.sess.CallTool(ctx, &mcp.CallToolParams{Name: "browser_evaluate", Arguments: map[string]any{"tab_handle": "h", "expression": "1"}}); err == nil && !res.IsError {
		t.Fatalf("browser_evaluate ran without --allow-evaluate: %v", res)
	}

	s := startServer(t, "--allow-evaluate")
	h := openOn(t, s.sess, site.URL+"/shot")
	_, out := callFull(t, s.sess, "browser_evaluate", map[string]any{"tab_handle": h, "expression": "async () => ({title: document.title, n: [1, 2, 3]})"})
	if out["json"] != `{"title":"Shot","n":[1,2,3]}` || out["type"] != "object" {
		t.Fatalf("evaluate: %v", out)
	}
	// A large value in pages, without running it again.
	_, out = callFull(t, s.sess, "browser_evaluate", map[string]any{"tab_handle": h, "expression": "window.runs = (window.runs || 0) + 1, 'x'.repeat(250)", "max_chars": 100})
	got := out["json"].(string)
	for out["next_cursor"] != nil {
		_, out = callFull(t, s.sess, "browser_evaluate", map[string]any{"tab_handle": h, "cursor": out["next_cursor"], "max_chars": 100})
		got += out["json"].(string)
	}
	if got != `"`+strings.Repeat("x", 250)+`"` {
		t.Fatalf("pages joined: %q", got)
	}
	_, out = callFull(t, s.sess, "browser_evaluate", map[string]any{"tab_handle": h, "expression": "window.runs"})
	if out["json"] != "1" {
		t.Fatalf("the paged script ran %v times", out["json"])
	}
	_, out = callFull(t, s.sess, "browser_evaluate", map[string]any{"tab_handle": h, "expression": "document.querySelector('#go')", "result_type": "element"})
	ref, _ := out["ref"].(string)
	if ref == "" {
		t.Fatalf("element: %v", out)
	}
	mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "ref": ref})

	// A busy loop: logs answer meanwhile, the loop ends at its deadline,
	// and the tab observes normally afterwards.
	done := make(chan [3]string, 1)
	go func() {
		code, _, msg := callErr(t, s.sess, "browser_evaluate", map[string]any{"tab_handle": h, "expression": "console.log('spinning'); while (true) {}", "timeout_ms": 3000})
		done <- [3]string{code, msg}
	}()
	waitFor(t, "the spinning page's log entry", 5*time.Second, func() bool {
		_, logs := callFull(t, s.sess, "browser_logs", map[string]any{"tab_handle": h, "kind": []any{"console"}})
		return strings.Contains(fmt.Sprint(logs["entries"]), "spinning")
	})
	r := <-done
	if r[0] != "timeout" || !strings.Contains(r[1], "terminated") {
		t.Fatalf("busy loop: %v", r)
	}
	if obs := mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h}); obs["title"] != "Shot" {
		t.Fatalf("observe after the loop: %v", obs)
	}
	if code, _, msg := callErr(t, s.sess, "browser_evaluate", map[string]any{"tab_handle": h, "expression": "null.x"}); code != "script_error" || !strings.Contains(msg, "TypeError") {
		t.Fatalf("a throw: %s %s", code, msg)
	}
}

func TestPDFEmulateStorageDownloadOverMCP(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/file.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="notes.txt"`)
		fmt.Fprint(w, "twelve bytes")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>State</title><h1>Hello</h1><a id="dl" href="/file.txt">Get</a>`)
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	dir := t.TempDir()
	s := startServer(t, "--downloads-dir", dir, "--output-dir", dir)
	h := openOn(t, s.sess, site.URL+"/")

	out := mustCall(t, s.sess, "browser_pdf", map[string]any{"tab_handle": h, "paper": "a4"})
	if pdf, err := os.ReadFile(fmt.Sprint(out["path"])); err != nil || !bytes.HasPrefix(pdf, []byte("%PDF")) || filepath.Dir(fmt.Sprint(out["path"])) != dir {
		t.Fatalf("pdf %v: %v", out, err)
	}

	out = mustCall(t, s.sess, "browser_emulate", map[string]any{"tab_handle": h, "width": 500, "height": 400, "device_scale": 2, "color_scheme": "dark"})
	if p := out["page"].(map[string]any); p["width"] != float64(500) || p["device_scale"] != float64(2) || p["prefers_dark"] != true {
		t.Fatalf("emulate: %v", out)
	}

	state := filepath.Join(dir, "state.json")
	out = mustCall(t, s.sess, "browser_storage_state", map[string]any{"tab_handle": h, "action": "export", "path": state})
	if out["cookies"] == nil || out["path"] != state {
		t.Fatalf("export: %v", out)
	}
	if raw, err := os.ReadFile(state); err != nil || !json.Valid(raw) {
		t.Fatalf("state file: %v", err)
	}
	out = mustCall(t, s.sess, "browser_storage_state", map[string]any{"tab_handle": h, "action": "import", "path": state})
	if out["cookies"] == nil {
		t.Fatalf("import: %v", out)
	}

	mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "selector": "#dl"})
	var entry map[string]any
	waitFor(t, "the download entry", 10*time.Second, func() bool {
		_, logs := callFull(t, s.sess, "browser_logs", map[string]any{"tab_handle": h, "kind": []any{"download"}})
		if list := logs["entries"].([]any); len(list) == 1 {
			entry = list[0].(map[string]any)
		}
		return entry != nil
	})
	if data, err := os.ReadFile(fmt.Sprint(entry["path"])); err != nil || string(data) != "twelve bytes" || entry["bytes"] != float64(12) || entry["path"] != filepath.Join(dir, "notes.txt") {
		t.Fatalf("download %v: %q %v", entry, data, err)
	}
}

func TestMultiSelectOverMCP(t *testing.T) {
	t.Parallel()
	site := stateSite(t)
	s := startServer(t)
	h := openOn(t, s.sess, site.URL+"/multi")
	out := mustCall(t, s.sess, "browser_select_option", map[string]any{"tab_handle": h, "selector": "#s", "values": []any{"a", "c"}})
	if fmt.Sprint(out["selected"]) != "map[options:[map[label:A value:a] map[label:C value:c]]]" {
		t.Fatalf("multi-select: %v", out)
	}
	if code, path, _ := callErr(t, s.sess, "browser_select_option", map[string]any{"tab_handle": h, "selector": "#s", "values": []any{"a"}, "index": 1}); code != "invalid_input" || path != "values" {
		t.Fatalf("values with index: %s %s", code, path)
	}
	mustCall(t, s.sess, "browser_select_option", map[string]any{"tab_handle": h, "selector": "#s", "value": "b"}) // one option, as in a batch
	// The batch contract stays exact: values is not a step field.
	if code, _, _ := callErr(t, s.sess, "browser_batch", map[string]any{"tab_handle": h, "steps": []any{map[string]any{"action": "select_option", "selector": "#s", "values": []any{"a"}}}}); code != "invalid_input" {
		t.Fatalf("values in a batch step: %s", code)
	}
}

// relayedStateTools calls the screenshot, logs, evaluate, emulation and
// storage tools on a tab of the user's browser, through the extension
// relay (TestAttachModeOverMCP).
func relayedStateTools(t *testing.T, sess *mcp.ClientSession, h string) {
	t.Helper()
	res, out := callFull(t, sess, "browser_screenshot", map[string]any{"tab_handle": h, "groundings": true})
	if cfg, _, _ := imageOf(t, res); cfg.Width == 0 || len(out["groundings"].([]any)) == 0 {
		t.Fatalf("screenshot through the relay: %v", out)
	}
	if _, logs := callFull(t, sess, "browser_logs", map[string]any{"tab_handle": h}); out["next_seq"] == nil && logs["next_seq"] == nil {
		t.Fatalf("logs through the relay: %v", logs)
	}
	if _, ev := callFull(t, sess, "browser_evaluate", map[string]any{"tab_handle": h, "expression": "() => document.title"}); ev["json"] != `"Signed in"` {
		t.Fatalf("evaluate through the relay: %v", ev)
	}
	if code, _, msg := callErr(t, sess, "browser_evaluate", map[string]any{"tab_handle": h, "expression": "while (true) {}", "timeout_ms": 1500}); code != "timeout" || !strings.Contains(msg, "terminated") {
		t.Fatalf("busy loop through the relay: %s %s", code, msg)
	}
	if em := mustCall(t, sess, "browser_emulate", map[string]any{"tab_handle": h, "color_scheme": "dark"}); em["page"].(map[string]any)["prefers_dark"] != true {
		t.Fatalf("emulate through the relay: %v", em)
	}
	mustCall(t, sess, "browser_emulate", map[string]any{"tab_handle": h, "reset": true})
	if code, _, _ := callErr(t, sess, "browser_storage_state", map[string]any{"tab_handle": h, "action": "export", "path": "s.json"}); code != "unsupported" {
		t.Fatalf("storage state of the user's browser: %s", code)
	}
}
