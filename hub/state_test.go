package hub

// Screenshots, logs, evaluate, emulation, PDF, storage state and
// multi-select through the extension relay: the engine calls the MCP tools
// make, on a tab of the user's browser.

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/tabs"
)

func TestStateToolsThroughRelay(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"ok":1}`) })
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<title>Relay start</title>`) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Relay state</title><style>body{margin:0}</style>
<div id="box" style="width:200px;height:100px;background:#f00"></div><button id="b">Go</button>
<select id="s" multiple><option value="a">A</option><option value="b">B</option></select>
<script>console.warn("relayed warning"); fetch("/api", {headers: {Authorization: "Bearer relay-secret-1"}});</script>`)
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	_, b, m, bi := pairedManager(t)
	// A titled page to wait for: about:blank's title is "" or its URL,
	// depending on when the target list is read.
	id := b.windowTab(t, site.URL+"/start", "Relay start")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tab, err := m.Claim(ctx, tabs.ClaimOptions{Owner: "agent", BrowserID: bi.BrowserID, TabID: string(id)})
	if err != nil {
		t.Fatal(err)
	}
	do := func(fn func(ctx context.Context) error) error {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return tab.Do(ctx, fn)
	}
	if _, err := tab.Navigate(ctx, tabs.Navigation{URL: site.URL + "/"}); err != nil {
		t.Fatal(err)
	}

	// Logs: the console and the request, the credential redacted.
	var page tabs.LogPage
	// A poll, not a stand-in for a signal: the relay's events fill the log
	// inside the engine, which tells no one outside it.
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		page = tab.Logs(tabs.LogQuery{})
		if hasLog(page, tabs.LogNetwork, "/api") && hasLog(page, tabs.LogConsole, "relayed warning") {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("log through the relay: %+v", page.Entries)
		}
	}
	if strings.Contains(fmt.Sprint(page), "relay-secret-1") {
		t.Fatal("the Authorization header shows in the log")
	}

	// Screenshot of an element, at the bounds.
	err = do(func(ctx context.Context) error {
		box, _, err := locate.Box(ctx, tab, locate.Locator{Selector: "#box"})
		if err != nil {
			return err
		}
		img, err := tab.Capture(ctx, tabs.Shot{Clip: &box})
		if err != nil {
			return err
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
		if err != nil || cfg.Width != int(200*img.DPR+0.5) || cfg.Height != int(100*img.DPR+0.5) {
			return fmt.Errorf("element image %dx%d at dpr %v: %v", cfg.Width, cfg.Height, img.DPR, err)
		}
		full, err := tab.Capture(ctx, tabs.Shot{FullPage: true, MaxLongSide: 300})
		if err != nil || max(full.Width, full.Height) > 300 {
			return fmt.Errorf("full page %+v: %v", full, err)
		}
		_, _, err = observe.Ground(ctx, tab, 50)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// Evaluate; a busy loop terminated at its deadline, the tab usable.
	var got *tabs.Evaluated
	if err := do(func(ctx context.Context) (err error) {
		got, err = tab.Evaluate(ctx, tabs.Evaluation{Expression: "async () => document.title"})
		return err
	}); err != nil || got.JSON != `"Relay state"` {
		t.Fatalf("evaluate: %+v %v", got, err)
	}
	loop, cancelLoop := context.WithTimeout(ctx, 1500*time.Millisecond)
	err = tab.Do(loop, func(ctx context.Context) error {
		_, err := tab.Evaluate(ctx, tabs.Evaluation{Expression: "while (true) {}"})
		return err
	})
	cancelLoop()
	if errs.Code(err) != errs.Timeout || !strings.Contains(err.Error(), "terminated") {
		t.Fatalf("busy loop through the relay: %v", err)
	}
	if err := do(func(ctx context.Context) (err error) {
		_, err = observe.Capture(ctx, tab, observe.Options{})
		return err
	}); err != nil {
		t.Fatalf("observe after the loop: %v", err)
	}

	// Emulation the page sees, and multi-select.
	err = do(func(ctx context.Context) error {
		if _, err := tab.Emulate(ctx, tabs.Emulation{Width: 500, Height: 400, ColorScheme: "dark"}); err != nil {
			return err
		}
		var w float64
		var dark bool
		if err := tab.Eval(ctx, "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(innerWidth))))", &w); err != nil {
			return err
		}
		if err := tab.Eval(ctx, "matchMedia('(prefers-color-scheme: dark)').matches", &dark); err != nil || w != 500 || !dark {
			return fmt.Errorf("emulated page: width %v dark %v (%v)", w, dark, err)
		}
		if _, err := tab.Emulate(ctx, tabs.Emulation{Reset: true}); err != nil {
			return err
		}
		r, err := act.SelectMany(ctx, tab, locate.Locator{Selector: "#s"}, act.Choice{Values: []string{"a", "b"}})
		if err != nil || len(r.Selected["options"].([]map[string]any)) != 2 {
			return fmt.Errorf("multi-select: %+v %v", r, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Storage state is the managed browser's only: the user's cookies stay theirs.
	if err := do(func(ctx context.Context) error { _, err := tab.ExportStorage(ctx); return err }); errs.Code(err) != errs.Unsupported {
		t.Fatalf("storage state of the user's browser: %v", err)
	}
	// PDF: printed, or refused with unsupported; never a false success.
	err = do(func(ctx context.Context) error {
		pdf, err := tab.PrintPDF(ctx, tabs.PDF{})
		if err == nil && !bytes.HasPrefix(pdf, []byte("%PDF")) {
			return fmt.Errorf("pdf without its header: %q", pdf[:min(8, len(pdf))])
		}
		if err != nil && errs.Code(err) != errs.Unsupported {
			return err
		}
		t.Logf("pdf through the relay: %d bytes, %v", len(pdf), err)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func hasLog(p tabs.LogPage, kind, text string) bool {
	for _, e := range p.Entries {
		if e.Kind == kind && strings.Contains(e.URL+e.Text, text) {
			return true
		}
	}
	return false
}
