package hub

// Attach mode end to end: a real headless Chromium loads the extension,
// which pairs with a hub started here; the engine then drives the browser's
// tabs through the relay. The browser also opens a DevTools port of its own,
// which the test uses as the "user" (to open a tab before any claim, to see
// whether a tab is attached, to stop the extension's service worker) and to
// compare the relay's latency with a direct connection.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/batch"
	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/internal/testbrowser"
)

const profileName = "Test Profile"

// extBrowser is Chromium with the extension loaded and a DevTools port.
type extBrowser struct {
	direct *cdp.Conn // the test's own DevTools connection
	wsURL  string    // the browser's own DevTools endpoint
}

// startExtBrowser installs the extension paired with h into a temporary
// folder and starts the full Chromium (the headless shell has no extension
// support) with it.
func startExtBrowser(t testing.TB, h *Hub, key string) *extBrowser {
	t.Helper()
	path, err := launch.Find()
	if err != nil {
		t.Fatalf("no browser to test with: %v", err)
	}
	extDir := filepath.Join(t.TempDir(), "extension")
	if err := InstallExtension(extDir, &Config{Port: h.Port(), Key: key}, profileName); err != nil {
		t.Fatal(err)
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
	b := &extBrowser{direct: cdp.New(tr), wsURL: browser.WSURL}
	t.Cleanup(func() { b.direct.Close() })
	return b
}

// targets lists the browser's targets as its own DevTools port sees them.
func (b *extBrowser) targets(t testing.TB) []*target.Info {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := cdproto.Call(ctx, b.direct.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatal(err)
	}
	return res.TargetInfos
}

func (b *extBrowser) target(t testing.TB, id target.ID) *target.Info {
	for _, ti := range b.targets(t) {
		if ti.TargetID == id {
			return ti
		}
	}
	return nil
}

// fixture serves a form page with a same-origin iframe and a cross-origin
// one (localhost against 127.0.0.1: its own renderer process).
func fixture(t testing.TB) string {
	t.Helper()
	inner := `<title>%s</title><input id="i" aria-label="in %s"><button id="b" onclick="document.getElementById('out').textContent='clicked ' + document.getElementById('i').value">Go</button><p id="out"></p>`
	cross := http.NewServeMux()
	cross.HandleFunc("/cross.html", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, inner, "Cross", "cross") })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	crossSrv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: cross}}
	crossSrv.Start()
	t.Cleanup(crossSrv.Close)
	crossURL := strings.Replace(crossSrv.URL, "127.0.0.1", "localhost", 1) + "/cross.html"

	mux := http.NewServeMux()
	mux.HandleFunc("/form.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Signed in</title>
<h1>Account</h1>
<form onsubmit="event.preventDefault(); document.getElementById('status').textContent = 'Saved ' + document.getElementById('email').value">
<label for="email">Email</label><input id="email" name="email">
<label for="plan">Plan</label><select id="plan" name="plan"><option>Free</option><option>Pro</option></select>
<button type="submit">Save</button>
</form>
<p id="status" role="status"></p>
<iframe id="same" src="/inner.html" style="width:400px;height:120px"></iframe>
<iframe id="cross" src="%s" style="width:400px;height:120px"></iframe>`, crossURL)
	})
	mux.HandleFunc("/inner.html", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, inner, "Inner", "inner") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// pairedManager starts a hub, a browser with the extension, and a manager
// over the hub, and waits for the profile to pair.
func pairedManager(t testing.TB) (*Hub, *extBrowser, *tabs.Manager, tabs.BrowserInfo) {
	t.Helper()
	h, key, _ := startHub(t, time.Minute)
	b := startExtBrowser(t, h, key)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := h.WaitProfile(ctx, func(p *Profile) bool { return p.Name() == profileName }); err != nil {
		t.Fatal(err)
	}
	m, err := tabs.New(tabs.Options{Extensions: h})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	for _, bi := range m.Browsers() {
		if bi.Name == profileName {
			return h, b, m, bi
		}
	}
	t.Fatalf("no browser named %q in %+v", profileName, m.Browsers())
	return nil, nil, nil, tabs.BrowserInfo{}
}

// userTab opens a tab the way the user would, on the browser's own port,
// and waits until it shows title.
func (b *extBrowser) userTab(t testing.TB, url, title string) target.ID {
	return b.openTab(t, target.CreateTargetParams{URL: url}, title)
}

// windowTab is userTab in a new window, where the tab stays in front.
func (b *extBrowser) windowTab(t testing.TB, url, title string) target.ID {
	return b.openTab(t, target.CreateTargetParams{URL: url, NewWindow: ptr(true)}, title)
}

func (b *extBrowser) openTab(t testing.TB, params target.CreateTargetParams, title string) target.ID {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cdproto.Call(ctx, b.direct.Browser(), target.CreateTarget, params)
	if err != nil {
		t.Fatal(err)
	}
	b.whenTargetsChange(t, fmt.Sprintf("the tab to show %q", title), 60*time.Second, func() bool {
		ti := b.target(t, res.TargetID)
		return ti != nil && ti.Title == title
	})
	return res.TargetID
}

// whenTargetsChange checks cond now and again at each target the browser
// reports created, changed (title, URL, attached) or destroyed, until cond
// holds (and every 100 ms, for changes it does not report). Its bound is only a guard
// against a hang, generous for a loaded machine.
func (b *extBrowser) whenTargetsChange(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	sess := b.direct.Browser()
	changed := make(chan struct{}, 1)
	stop := sess.Listen(func(method string, _ jsonv2.Value) {
		if strings.HasPrefix(method, "Target.target") {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	defer stop()
	if err := sess.Call(ctx, "Target.setDiscoverTargets", map[string]any{"discover": true}, nil); err != nil {
		t.Fatal(err)
	}
	// Chromium does not report every change as an event (a file:// tab's
	// title never came as one), so cond is also asked again every 100 ms;
	// each ask checks the condition itself, so the pause stands in for nothing.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-changed:
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("waited %v for %s", within, what)
		}
	}
}

func TestAttachEndToEnd(t *testing.T) {
	t.Parallel()
	base := fixture(t)
	_, b, m, bi := pairedManager(t)
	if bi.Kind != tabs.KindExtension || !bi.Connected || !strings.HasPrefix(bi.Version, "Chrome/156") {
		t.Fatalf("profile %+v", bi)
	}
	id := b.userTab(t, base+"/form.html", "Signed in")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := m.Tabs(ctx, "agent", bi.BrowserID)
	if err != nil {
		t.Fatal(err)
	}
	var found *tabs.TabInfo
	for i := range list {
		if list[i].TabID == string(id) {
			found = &list[i]
		}
	}
	if found == nil || found.URL != base+"/form.html" || found.Title != "Signed in" || found.Claimed {
		t.Fatalf("the user's tab in discovery: %+v in %+v", found, list)
	}
	if b.target(t, id).Attached {
		t.Fatal("the tab is attached before any claim")
	}

	tab, err := m.Claim(ctx, tabs.ClaimOptions{Owner: "agent", BrowserID: bi.BrowserID, TabID: string(id), ExpectedURL: base + "/form.html", ExpectedTitle: "Signed in"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Claim(ctx, tabs.ClaimOptions{Owner: "other", BrowserID: bi.BrowserID, TabID: string(id)}); err == nil || !strings.Contains(err.Error(), "claimed by another session") {
		t.Fatalf("second claim: %v", err)
	}
	if !b.target(t, id).Attached {
		t.Fatal("the claimed tab shows no debugger attached")
	}
	if env := tab.Environment(); env != "chrome/156 extension" {
		t.Fatalf("environment %q", env)
	}

	// observe
	var obs *observe.Observation
	err = tab.Do(ctx, func(ctx context.Context) (err error) {
		obs, err = observe.Capture(ctx, tab, observe.Options{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if obs.Title != "Signed in" || !strings.Contains(obs.TextPreview, "Account") || len(obs.Forms) != 1 {
		t.Fatalf("observation: title %q text %q forms %d", obs.Title, obs.TextPreview, len(obs.Forms))
	}

	// fill and click, in the page and in both iframes
	step := func(s *act.Step) *act.Result {
		t.Helper()
		if v := s.Validate(""); len(v) > 0 {
			t.Fatalf("invalid step: %v", v)
		}
		var r *act.Result
		err := tab.Do(ctx, func(ctx context.Context) (err error) {
			r, err = act.Run(ctx, tab, s)
			return err
		})
		if err != nil {
			t.Fatalf("%s %+v: %v", s.Action, s.Locator, err)
		}
		return r
	}
	text := func(f *locate.FrameSpec, sel string) string {
		t.Helper()
		var out string
		err := tab.Do(ctx, func(ctx context.Context) error {
			fr, err := locate.FrameOf(ctx, tab, locate.Locator{Frame: f})
			if err != nil {
				return err
			}
			return tab.EvalIn(ctx, fr, "document.querySelector("+jsString(sel)+").textContent", &out)
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	text2 := "a@b.c"
	step(&act.Step{Action: "fill", Locator: locate.Locator{Selector: "Email", SelectorType: "label"}, Text: &text2})
	step(&act.Step{Action: "click", Locator: locate.Locator{Selector: "button", Name: ptr("Save"), SelectorType: "role"}})
	if got := text(nil, "#status"); got != "Saved a@b.c" {
		t.Fatalf("status after the click: %q", got)
	}
	for _, f := range []*locate.FrameSpec{{Path: []string{"#same"}}, {Path: []string{"#cross"}}} {
		v := "x" + f.Path[0][1:]
		step(&act.Step{Action: "fill", Locator: locate.Locator{Selector: "#i", Frame: f}, Text: &v})
		step(&act.Step{Action: "click", Locator: locate.Locator{Selector: "#b", Frame: f}})
		if got := text(f, "#out"); got != "clicked "+v {
			t.Fatalf("frame %v after the click: %q", f.Path, got)
		}
	}

	// a batch
	raw := json.RawMessage(`{"tab_handle":"x","steps":[
		{"action":"fill","selector":"#email","text":"batch@example.com"},
		{"action":"select_option","selector":"#plan","label":"Pro"},
		{"action":"click","selector":"button[type=submit]"},
		{"action":"wait","condition":"text","selector":"#status","expected":"Saved batch@example.com"}],
		"observe":{"selector":"#status"}}`)
	req, violations := batch.Prevalidate(raw)
	if len(violations) > 0 {
		t.Fatalf("batch: %v", violations)
	}
	var res *batch.Result
	tab.Do(ctx, func(ctx context.Context) error { res = batch.Run(ctx, tab, req); return nil })
	if !res.OK || len(res.Steps) != 4 || res.Observe == nil || res.Observe.Text != "Saved batch@example.com" {
		out, _ := json.Marshal(res)
		t.Fatalf("batch result: %s", out)
	}

	// release: the debugger detaches and the tab stays as it is
	if err := m.Release(ctx, "agent", tab.Handle()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the debugger to detach", func() bool { ti := b.target(t, id); return ti != nil && !ti.Attached })
	if ti := b.target(t, id); ti == nil || ti.URL != base+"/form.html" {
		t.Fatalf("the tab after release: %+v", ti)
	}
	if _, err := m.Get("agent", tab.Handle()); err == nil {
		t.Fatal("the handle lives after release")
	}

	// open, activate and close through the extension
	opened, err := m.Open(ctx, tabs.OpenOptions{Owner: "agent", BrowserID: bi.BrowserID, URL: base + "/inner.html", Active: true, Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Activate(ctx, "agent", opened.Tab.Handle()); err != nil {
		t.Fatal(err)
	}
	if err := m.CloseTab(ctx, "agent", opened.Tab.Handle()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the tab to close", func() bool { return b.target(t, target.ID(opened.TabID)) == nil })
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func ptr[T any](v T) *T { return &v }

// waitUntil asks cond again until it holds: for the hub's own state,
// which it announces to no one; each ask checks the condition itself, so
// the pause between asks stands in for nothing.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("waited 10s for %s", what)
		}
	}
}

// TestServiceWorkerRestart stops the extension's service worker while a tab
// is claimed: the hub sees it leave, the alarm wakes it, it reconnects, and
// the same tab handle works again.
func TestServiceWorkerRestart(t *testing.T) {
	t.Parallel()
	base := fixture(t)
	h, b, m, bi := pairedManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	id := b.userTab(t, base+"/form.html", "Signed in")
	tab, err := m.Claim(ctx, tabs.ClaimOptions{Owner: "agent", BrowserID: bi.BrowserID, TabID: string(id)})
	if err != nil {
		t.Fatal(err)
	}
	p := h.Profiles()[0]
	p.mu.Lock()
	booted := p.booted
	p.mu.Unlock()

	var worker target.ID
	for _, ti := range b.targets(t) {
		if ti.Type == "service_worker" && strings.HasSuffix(ti.URL, "/sw.js") {
			worker = ti.TargetID
		}
	}
	if worker == "" {
		t.Fatal("no service worker target for the extension")
	}
	if _, err := cdproto.Call(ctx, b.direct.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: worker}); err != nil {
		t.Fatalf("stopping the service worker: %v", err)
	}
	waitUntil(t, "the hub to see the extension leave", func() bool { return !p.Connected() })
	stopped := time.Now()
	// Chrome starts the worker again for the claimed tab's next debugger
	// event, or at the latest for its alarm (every 30 s): the browser
	// reports its new target, and the worker then dials the hub.
	b.whenTargetsChange(t, "the extension's service worker to start again", 45*time.Second, func() bool {
		for _, ti := range b.targets(t) {
			if ti.Type == "service_worker" && strings.HasSuffix(ti.URL, "/sw.js") {
				return true
			}
		}
		return false
	})
	waitUntil(t, "the restarted extension to reconnect", p.Connected)
	fmt.Printf("FIGURE %s: extension reconnected %v after its service worker was stopped, claim kept\n", t.Name(), time.Since(stopped).Round(time.Millisecond))
	p.mu.Lock()
	rebooted := p.booted
	p.mu.Unlock()
	if rebooted == booted {
		t.Fatal("the same worker reconnected: it was not stopped")
	}

	if _, err := m.Get("agent", tab.Handle()); err != nil {
		t.Fatalf("the claim did not survive: %v", err)
	}
	if !b.target(t, id).Attached {
		t.Fatal("the tab is no longer attached")
	}
	text := "after@restart"
	err = tab.Do(ctx, func(ctx context.Context) error {
		if _, err := act.Run(ctx, tab, &act.Step{Action: "fill", Locator: locate.Locator{Selector: "#email"}, Text: &text}); err != nil {
			return err
		}
		if _, err := act.Run(ctx, tab, &act.Step{Action: "click", Locator: locate.Locator{Selector: "button[type=submit]"}}); err != nil {
			return err
		}
		obs, err := observe.Capture(ctx, tab, observe.Options{})
		if err != nil {
			return err
		}
		if !strings.Contains(obs.TextPreview, "Saved after@restart") {
			return fmt.Errorf("observation after the restart: %q", obs.TextPreview)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Release(ctx, "agent", tab.Handle()); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the debugger to detach", func() bool { ti := b.target(t, id); return ti != nil && !ti.Attached })
}

// setFileAccess turns "Allow access to file URLs" for the extension on or
// off the way the user does, on chrome://extensions (developer mode on, as
// for any unpacked extension), and waits until the reloaded extension has
// paired again and reports it.
func (b *extBrowser) setFileAccess(t *testing.T, h *Hub, on bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id := b.userTab(t, "chrome://extensions", "Extensions")
	defer cdproto.Call(ctx, b.direct.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: id})
	s, err := b.direct.Attach(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	p := h.Profiles()[0]
	p.mu.Lock()
	booted := p.booted
	p.mu.Unlock()
	expr := fmt.Sprintf(`chrome.developerPrivate.updateProfileConfiguration({inDeveloperMode: true})
		.then(() => chrome.developerPrivate.updateExtensionConfiguration({extensionId: %q, fileAccess: %v}))
		.then(() => "ok", (e) => String(e))`, testExtID, on)
	res, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, AwaitPromise: ptr(true), ReturnByValue: ptr(true)})
	if err != nil || res.ExceptionDetails != nil || string(res.Result.Value) != `"ok"` {
		t.Fatalf("turning file access %v: %v %v %s", on, err, res.ExceptionDetails, res.Result.Value)
	}
	waitUntil(t, "the reloaded extension to pair again", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.sock != nil && p.booted != booted && p.fileAccess == on
	})
}

func hasCap(bi tabs.BrowserInfo, c string) bool {
	for _, x := range bi.Capabilities {
		if x == c {
			return true
		}
	}
	return false
}

// TestFileURLs: with file access (Chrome's default for an unpacked
// extension) a file:// tab is claimed like any other; without it, claiming,
// opening and loading file:// URLs fail with permission_denied saying what
// to turn on, and discovery shows the capability gone.
func TestFileURLs(t *testing.T) {
	t.Parallel()
	base := fixture(t)
	h, b, m, bi := pairedManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "local.html"), []byte("<title>Local</title><p>A file on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + filepath.Join(dir, "local.html")
	fileTab := b.userTab(t, fileURL, "Local")
	browser := func() tabs.BrowserInfo {
		t.Helper()
		got, err := m.Browser(bi.BrowserID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	if !h.Profiles()[0].FileAccess() || !hasCap(browser(), tabs.CapabilityFileURLs) {
		t.Fatalf("file access on: capabilities %v", browser().Capabilities)
	}
	tab, err := m.Claim(ctx, tabs.ClaimOptions{Owner: "agent", BrowserID: bi.BrowserID, TabID: string(fileTab), ExpectedURL: fileURL, ExpectedTitle: "Local"})
	if err != nil {
		t.Fatalf("claiming a file:// tab with file access: %v", err)
	}
	var text string
	if err := tab.Eval(ctx, "document.body.textContent", &text); err != nil || text != "A file on disk" {
		t.Fatalf("reading the file:// tab: %v %q", err, text)
	}
	if err := m.Release(ctx, "agent", tab.Handle()); err != nil {
		t.Fatal(err)
	}

	// A claim held while the user changes the setting ends with a reason:
	// Chrome reloads the extension, which detaches everything.
	held, err := m.Claim(ctx, tabs.ClaimOptions{Owner: "agent", BrowserID: bi.BrowserID, TabID: string(b.userTab(t, base+"/inner.html", "Inner"))})
	if err != nil {
		t.Fatal(err)
	}
	b.setFileAccess(t, h, false)
	if hasCap(browser(), tabs.CapabilityFileURLs) {
		t.Fatalf("file access off: capabilities %v", browser().Capabilities)
	}
	waitUntil(t, "the claim to end with the extension's reload", func() bool {
		_, err := m.Get("agent", held.Handle())
		return errs.Code(err) == errs.InvalidHandle
	})

	denied := func(what string, err error, path string) {
		t.Helper()
		e := errs.As(err)
		if e == nil || e.Code != errs.PermissionDenied || e.Path != path || !strings.Contains(e.Message, "file URLs") ||
			!strings.Contains(e.Message, fileURL) || !strings.Contains(e.Hint, `"Allow access to file URLs"`) {
			t.Fatalf("%s without file access: %#v", what, err)
		}
	}
	_, err = m.Claim(ctx, tabs.ClaimOptions{Owner: "agent", BrowserID: bi.BrowserID, TabID: string(fileTab)})
	denied("claiming a file:// tab", err, "tab_id")
	_, err = m.Open(ctx, tabs.OpenOptions{Owner: "agent", BrowserID: bi.BrowserID, URL: fileURL, Active: true})
	denied("opening a file:// URL", err, "url")
	web, err := m.Claim(ctx, tabs.ClaimOptions{Owner: "agent", BrowserID: bi.BrowserID, TabID: string(b.userTab(t, base+"/inner.html", "Inner"))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = web.Navigate(ctx, tabs.Navigation{URL: fileURL})
	denied("loading a file:// URL in a claimed tab", err, "url")
	var u string
	if err := web.Eval(ctx, "location.href", &u); err != nil || u != base+"/inner.html" {
		t.Fatalf("after the refused navigation the tab shows %q (%v)", u, err)
	}
	if ti := b.target(t, fileTab); ti == nil || ti.Attached {
		t.Fatalf("the file:// tab after the refused claim: %+v", ti)
	}

	// Turned on again, it works again.
	b.setFileAccess(t, h, true)
	if !hasCap(browser(), tabs.CapabilityFileURLs) {
		t.Fatalf("file access on again: capabilities %v", browser().Capabilities)
	}
	if _, err := m.Claim(ctx, tabs.ClaimOptions{Owner: "agent", BrowserID: bi.BrowserID, TabID: string(fileTab), ExpectedURL: fileURL}); err != nil {
		t.Fatalf("claiming the file:// tab after file access was turned on: %v", err)
	}
}

// TestHubGoneDetaches: when the hub's process is gone for good, no agent
// can hold a claim any more, and the extension detaches every tab on its
// own.
func TestHubGoneDetaches(t *testing.T) {
	t.Parallel()
	base := fixture(t)
	h, b, m, bi := pairedManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id := b.userTab(t, base+"/form.html", "Signed in")
	if _, err := m.Claim(ctx, tabs.ClaimOptions{Owner: "agent", BrowserID: bi.BrowserID, TabID: string(id)}); err != nil {
		t.Fatal(err)
	}
	if !b.target(t, id).Attached {
		t.Fatal("the claimed tab is not attached")
	}
	stopped := time.Now()
	h.Close()
	b.whenTargetsChange(t, "the tab to be detached after the hub stopped", 45*time.Second, func() bool { return !b.target(t, id).Attached })
	t.Logf("detached %v after the hub stopped", time.Since(stopped).Round(time.Millisecond))
	if ti := b.target(t, id); ti == nil || ti.URL != base+"/form.html" {
		t.Fatalf("the tab after the hub stopped: %+v", ti)
	}
}

// A claimed tab stays focused, as its page sees it, when another tab comes
// to the front of the user's browser: actions must not depend on the tab a
// window shows. A page blur and refocus was what sent text inserted for a
// field in a frame to the main frame's last caret (a field the agent had
// filled before) on a busy machine.
func TestAttachTabBehindAnotherKeepsPageFocus(t *testing.T) {
	t.Parallel()
	base := fixture(t)
	_, _, m, bi := pairedManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, _, err := m.OpenAndLoad(ctx, tabs.OpenOptions{Owner: "agent", BrowserID: bi.BrowserID, URL: base + "/inner.html", Active: true, Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	// The page counts its window's blur events, so a blur is seen even when
	// it comes after document.hasFocus() was read.
	if err := a.Tab.Eval(ctx, `window.blurs = 0; addEventListener("blur", () => window.blurs++); document.hasFocus()`, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.OpenAndLoad(ctx, tabs.OpenOptions{Owner: "agent", BrowserID: bi.BrowserID, URL: base + "/form.html", Active: true, Claim: true}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Focus bool `json:"focus"`
		Blurs int  `json:"blurs"`
	}
	if err := a.Tab.Eval(ctx, `({focus: document.hasFocus(), blurs: window.blurs})`, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Focus || got.Blurs != 0 {
		t.Fatalf("the tab behind: document.hasFocus() %v, %d blur events; want focused, none", got.Focus, got.Blurs)
	}
}
