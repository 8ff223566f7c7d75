package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/agent/agenttest"
	"github.com/tabwright/tabwright/quickstart/appbrowser"
	"github.com/tabwright/tabwright/quickstart/docs"
	qsrun "github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// A web quickstart followed as a person does: the model reads the docs,
// writes the page and serves it, opens it in tabwright's browser, clicks
// the button and sees the counter go up. The browser reaches the app on
// loopback only: not the docs host, whether asked directly or by the page.
// On both backends: in the sandbox the server the agent left running in one
// bash call still serves when the browser comes, through the gate. The
// model also takes a screenshot and gets the image in its next request
// (Claude on one backend, Chat Completions on the other).
func TestQSAgentBrowserWebQuickstart(t *testing.T) {
	t.Parallel()
	t.Run(sandbox.Local, func(t *testing.T) { agentBrowserWebQuickstart(t, sandbox.Local, "claude") })
	t.Run(sandbox.Isolated, func(t *testing.T) { agentBrowserWebQuickstart(t, sandbox.Isolated, "openai") })
}

func agentBrowserWebQuickstart(t *testing.T, backend, vendor string) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	app := fmt.Sprintf("http://127.0.0.1:%d/", port)
	docsSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><body><main><article><h1>Counter quickstart</h1><p>Write index.html with a button #inc and a span #count, serve the folder with <code>python3 -m http.server</code>, open it and click the button: the count goes up by one.</p><p>That is the whole quickstart, and this sentence makes the article long enough.</p></article></main></body></html>`)
	}))
	defer docsSrv.Close()
	// The docs and the app share the host 127.0.0.1 (issue 23: the app was
	// refused as "not on the loopback"); the page asks the docs' port by
	// the loopback's other name.
	docsURL := docsSrv.URL + "/start"
	docsByOtherName := strings.Replace(docsURL, "127.0.0.1", "localhost", 1)
	page := `<html><body><button id=inc onclick="c.textContent=+c.textContent+1">Increment</button> count: <span id=count>0</span><script>var c=document.getElementById('count')</script><img src="` + docsByOtherName + `/pixel.png"></body></html>`
	serve := fmt.Sprintf("cat > index.html <<'EOF'\n%s\nEOF\n(python3 -m http.server %d --bind 127.0.0.1 >/dev/null 2>&1 &)\nfor i in $(seq 100); do python3 -c 'import urllib.request,sys; urllib.request.urlopen(sys.argv[1])' %s 2>/dev/null && exit 0; sleep 0.1; done; exit 1", page, port, app)
	// The tab handle is in browser_open_tab's answer; later turns use it.
	handleRE, handle := regexp.MustCompile(`tab_handle (\S+)`), ""
	withHandle := func(name string, args map[string]any) agenttest.Turn {
		return agenttest.Turn{Build: func(req agenttest.Request) agenttest.Turn {
			if m := handleRE.FindStringSubmatch(agenttest.LastToolText(req)); m != nil {
				handle = m[1]
			}
			args["tab_handle"] = handle
			return agenttest.Turn{Calls: []agenttest.Call{{Name: name, Input: args}}}
		}}
	}
	turns := []agenttest.Turn{
		{Calls: []agenttest.Call{{Name: "read_docs", Input: map[string]any{"url": docsURL}}}},
		{Calls: []agenttest.Call{{Name: "bash", Input: map[string]any{"command": serve}}}},
		{Calls: []agenttest.Call{{Name: "browser_open_tab", Input: map[string]any{"url": docsURL}}, {Name: "browser_open_tab", Input: map[string]any{"url": app}}}},
		withHandle("browser_click", map[string]any{"selector": "#inc"}),
		withHandle("browser_screenshot", map[string]any{}),
		withHandle("browser_observe", map[string]any{}),
		{Text: "Clicked Increment; the count went from 0 to 1."},
	}
	srv, spec := agenttest.Anthropic(turns...), "claude:claude-test"
	if vendor == "openai" {
		srv, spec = agenttest.OpenAI(turns...), "openai:gpt-test"
	}
	defer srv.Close()
	a, err := agent.New(agent.Config{Agent: spec, BaseURL: srv.BaseURL()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := docs.NewBrowser()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.yaml"), []byte("name: counter\ngoal: Click the counter once.\ndocs:\n  path: ["+docsURL+"]\nsuccess:\n  script: test -f index.html || qs_fail no page\n"), 0o644)
	tk, err := task.Load(filepath.Join(dir, "t.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := qsrun.Attempt(context.Background(), tk, 1, qsrun.Options{Docs: &docs.Reader{Browser: b}, Agent: a, AgentTools: browserTools("test"), Backend: backend})
	if r.Classification != qsrun.Passed || r.Backend != backend {
		t.Fatalf("%s %s %s %s\n%s", r.Backend, r.Classification, r.StopReason, r.Detail, r.Trace.JSONL())
	}
	var calls, blocked []map[string]any
	for _, e := range r.Trace.Events() {
		switch trace.TypeOf(e) {
		case trace.BrowserCall:
			calls = append(calls, e)
		case trace.BrowserRefused:
			blocked = append(blocked, e)
		}
	}
	if len(calls) != 5 || calls[0]["is_error"] != true || calls[1]["is_error"] != false || calls[4]["tool"] != "browser_observe" {
		t.Fatalf("browser calls: %v", calls)
	}
	if out := fmt.Sprint(calls[0]["output"]); !strings.Contains(out, "agent_browser.docs_port") || strings.Contains(out, "not on this machine's loopback") {
		t.Errorf("the docs page is refused for another reason than its port: %s", out)
	}
	if out := fmt.Sprint(calls[4]["output"]); !strings.Contains(out, "count: 1") {
		t.Errorf("the click did not count: %s", out)
	}
	checkScreenshotSent(t, r.Trace, calls[3], srv.Requests()[5])
	// The page's own request to the docs host was refused by the gate.
	if len(blocked) == 0 || blocked[0]["host"] != "localhost" {
		t.Errorf("blocked: %v", blocked)
	}
	// The agent saw the MCP server's tools as it lists them.
	first := srv.Requests()[0].Raw
	for _, name := range []string{"browser_open_tab", "browser_click", "browser_observe", "browser_batch"} {
		if !strings.Contains(first, `"name":"`+name+`"`) {
			t.Errorf("tool %s not offered", name)
		}
	}
	if len(r.DocsPagesRead) != 1 {
		t.Errorf("pages read: %v", r.DocsPagesRead)
	}
	for _, e := range srv.Errs() {
		t.Errorf("protocol: %s", e)
	}
}

// checkScreenshotSent: the screenshot's PNG went to the model in the
// request after it, and the trace holds its size, not its bytes.
func checkScreenshotSent(t *testing.T, tr *trace.Trace, call map[string]any, next agenttest.Request) {
	t.Helper()
	ims, _ := call["images"].([]any)
	if call["tool"] != "browser_screenshot" || call["is_error"] != false || len(ims) != 1 {
		t.Fatalf("screenshot call: %v", call)
	}
	im := ims[0].(map[string]any)
	w, _ := im["width"].(int)
	n, _ := im["bytes"].(int)
	if im["media_type"] != "image/png" || w < 100 || n < 100 {
		t.Errorf("image facts: %v", im)
	}
	const pngStart = "data\":\"iVBORw0KGgo" // base64 of the PNG signature
	sent := strings.Contains(next.Raw, `"media_type":"image/png"`) && strings.Contains(next.Raw, pngStart)
	if strings.Contains(next.Path, "chat") {
		sent = strings.Contains(next.Raw, `"url":"data:image/png;base64,iVBORw0KGgo`)
	}
	if !sent || !agenttest.HasImages(next) {
		t.Errorf("the screenshot is not in the next request: %s", trace.Clip(next.Raw, 3000))
	}
	if strings.Contains(string(tr.JSONL()), "iVBORw0KGgo") {
		t.Error("the trace holds the image's bytes")
	}
	want := fmt.Sprintf("[image %vx%v, %v bytes]", im["width"], im["height"], im["bytes"])
	if out := qsrun.Transcript(tr.Events(), false); !strings.Contains(out, want) {
		t.Errorf("transcript lacks %q:\n%s", want, out)
	}
}

// What the model's API would refuse (and keep refusing, the image staying
// in the conversation) is not sent: the text says why, the trace has only
// the images sent. save_path is refused: the browser is outside the sandbox.
func TestQSAgentBrowserImageLimits(t *testing.T) {
	t.Parallel()
	enc := func(w, h int) []byte {
		var b bytes.Buffer
		png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h)))
		return b.Bytes()
	}
	small := enc(10, 10)
	r := agent.ToolAnswer{Text: "shot", Images: []agent.Image{
		{MediaType: "image/png", Data: small},
		{MediaType: "image/png", Data: enc(agent.MaxImageSide+1, 1)},
		{MediaType: "image/png", Data: append(enc(10, 10), make([]byte, agent.MaxImageBytes)...)},
		{MediaType: "image/jpeg", Data: small},
	}}
	facts := appbrowser.FitImages(&r)
	if len(r.Images) != 1 || len(facts) != 1 || facts[0] != (trace.Image{MediaType: "image/png", Width: 10, Height: 10, Bytes: len(small)}) || strings.Count(r.Text, "is not shown") != 3 {
		t.Errorf("%v %v\n%s", len(r.Images), facts, r.Text)
	}
	b := &browserBridge{tr: trace.New(nil)}
	got := b.Call(context.Background(), "browser_screenshot", []byte(`{"tab_handle":"t1","save_path":"/tmp/x.png"}`))
	if !got.IsError || !strings.Contains(got.Text, "save_path is not available") {
		t.Errorf("%+v", got)
	}
}

// Vision in the agent's browser leaves nothing in the host's temp folder
// and tells the model nothing of the host: no path, no missing package
// (issue 25, item 4). The image itself still comes with the result.
func TestQSAgentBrowserVisionHidesTheHost(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.TempDir: where the engine would write
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><body><h1>Counter</h1><button id=inc>Increment</button></body></html>`)
	}))
	defer app.Close()
	m, err := tabs.New(tabs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	b := &browserBridge{tr: trace.New(nil)}
	ctx := context.Background()
	if err := b.connect(ctx, m, "test"); err != nil {
		t.Fatal(err)
	}
	defer b.cs.Close()
	opened := b.Call(ctx, "browser_open_tab", []byte(fmt.Sprintf(`{"url":%q}`, app.URL)))
	h := regexp.MustCompile(`tab_handle (\S+)`).FindStringSubmatch(opened.Text)
	if opened.IsError || h == nil {
		t.Fatalf("open: %+v", opened)
	}
	r := b.Call(ctx, "browser_observe", []byte(fmt.Sprintf(`{"tab_handle":%q,"include":["vision"]}`, h[1])))
	if r.IsError || len(r.Images) != 1 || !strings.Contains(r.Text, "screenshot attached") {
		t.Fatalf("observe: %v images, %s", len(r.Images), r.Text)
	}
	for _, host := range []string{tmp, os.TempDir(), "/tmp", "shot-", ".png", "tesseract", "apt-get", "install"} {
		if strings.Contains(r.Text, host) {
			t.Errorf("the model's text names %q:\n%s", host, r.Text)
		}
	}
	filepath.WalkDir(tmp, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "shot-") {
			t.Errorf("a screenshot stayed on the host: %s", p)
		}
		return nil
	})
}
