package act

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// frameSites serves a page on 127.0.0.1 with a same-origin iframe (which
// nests another) and a cross-origin one on localhost, which Chromium runs
// in its own process.
func frameSites(t *testing.T) string {
	t.Helper()
	inner := `<title>%s</title><button id="b" onclick="document.getElementById('out').textContent='clicked %s'">%s</button><input id="i" placeholder="in %s"><p id="out"></p>`
	other := http.NewServeMux()
	other.HandleFunc("/cross.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, inner, "Cross", "cross", "Cross", "cross")
	})
	// A frame whose script takes every pointer move before anyone else
	// hears it: a click there must not wait for a move it cannot see.
	other.HandleFunc("/swallow.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<script>addEventListener('mousemove', (e) => e.stopImmediatePropagation(), true)</script>`)
		fmt.Fprintf(w, inner, "Swallow", "swallow", "Swallow", "swallow")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	crossSrv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: other}}
	crossSrv.Start()
	t.Cleanup(crossSrv.Close)
	crossURL := strings.Replace(crossSrv.URL, "127.0.0.1", "localhost", 1) + "/cross.html"

	mux := http.NewServeMux()
	mux.HandleFunc("/top.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Top</title><div style="height:300px">spacer</div>
<iframe id="outer" src="/outer.html" style="width:600px;height:300px;border:7px solid #000;padding:5px"></iframe>
<iframe id="cross" src="%s" style="width:400px;height:150px"></iframe>`, crossURL)
	})
	mux.HandleFunc("/swallowed.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Swallowed</title><iframe src="%s" style="width:400px;height:150px"></iframe>`, strings.Replace(crossURL, "/cross.html", "/swallow.html", 1))
	})
	// The cross-origin frame under a veil of the top page that lifts when
	// the pointer first moves over it, as a hover preview does. The frame's
	// own checks cannot see the veil; the browser routes input by what it
	// last drew, which still shows the veil for a frame or more after.
	mux.HandleFunc("/veiled.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Veiled</title><iframe id="cross" src="%s" style="position:absolute;left:40px;top:40px;width:400px;height:150px;border:0"></iframe>
<div id="veil" style="position:absolute;left:40px;top:40px;width:400px;height:150px;background:rgba(0,0,0,.2)" onmousemove="this.remove()"></div>`, crossURL)
	})
	mux.HandleFunc("/outer.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Outer</title><div style="height:40px"></div><iframe id="nested" src="/nested.html" style="width:400px;height:150px"></iframe>`+inner, "Outer", "outer", "Outer", "outer")
	})
	mux.HandleFunc("/nested.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, inner, "Nested", "nested", "Nested", "nested")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestFrames(t *testing.T) {
	t.Parallel()
	frameSteps(t, page(t, "basics.html"))
}

// The same steps in a browser that runs each site in its own renderer, as
// Chrome and Edge do (the headless shell keeps every site in one): the
// cross-origin frame is out of process, and the browser routes input to it
// from the last drawn frame. Its click came right after scrolling the frame
// into view and landed where the frame had been.
func TestFramesOutOfProcess(t *testing.T) {
	t.Parallel()
	m, err := tabs.New(tabs.Options{Launch: launch.Options{Args: []string{"--site-per-process"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opened, err := m.Open(ctx, tabs.OpenOptions{Owner: "test", URL: "about:blank", Active: true, Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	base := frameSteps(t, opened.Tab)
	cross := locate.Locator{Selector: "#b", Frame: &locate.FrameSpec{Title: "Cross"}}
	if f, err := locate.FrameOf(ctx, opened.Tab, cross); err != nil || f == nil || f.Session() == opened.Tab.Session() {
		t.Fatalf("the cross-origin frame is not out of process (%v): nothing here tests it", err)
	}

	// clickedAfter loads page, runs step and waits for the #out of the
	// step's frame to say want.
	clickedAfter := func(page string, step Step, want string) {
		t.Helper()
		if _, err := opened.Tab.Navigate(ctx, tabs.Navigation{URL: base + page, WaitUntil: tabs.WaitNetworkIdle}); err != nil {
			t.Fatal(err)
		}
		must(t, opened.Tab, &step)
		frameSays(t, opened.Tab, step.Locator, want)
	}
	// The click's move lifts the veil; the press must wait until the
	// browser routes to the frame, or it lands on the top page.
	clickedAfter("/veiled.html", Step{Action: Click, Locator: cross}, "clicked cross")
	// A drag's press waits for the same: under a fresh veil, it reaches
	// the button (which a press and a release on it click).
	clickedAfter("/veiled.html", Step{Action: Drag, Locator: cross, DX: ptr(2.0)}, "clicked cross")
	// A frame that swallows every move: the press goes out after the last
	// try, well within the step's timeout, and lands.
	swallow := locate.Locator{Selector: "#b", Frame: &locate.FrameSpec{Title: "Swallow"}}
	clickedAfter("/swallowed.html", Step{Action: Click, Locator: swallow, TimeoutMS: ptr(5000)}, "clicked swallow")
}

// frameSays waits until the #out of loc's frame says want.
func frameSays(t *testing.T, tab *tabs.Tab, loc locate.Locator, want string) {
	t.Helper()
	loc.Selector = "#out"
	must(t, tab, &Step{Action: Wait, Condition: "text", Locator: loc, Expected: &Expected{Str: ptr(want)}})
}

// frameSteps runs the frame cases on tab, and returns the fixture's URL.
func frameSteps(t *testing.T, tab *tabs.Tab) string {
	base := frameSites(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := tab.Navigate(ctx, tabs.Navigation{URL: base + "/top.html", WaitUntil: tabs.WaitNetworkIdle}); err != nil {
		t.Fatal(err)
	}

	byPath := func(path ...string) locate.Locator {
		return locate.Locator{Selector: "#b", Frame: &locate.FrameSpec{Path: path}}
	}

	// Same-origin, then nested: trusted clicks land at the right point.
	must(t, tab, &Step{Action: Click, Locator: byPath("#outer")})
	frameSays(t, tab, byPath("#outer"), "clicked outer")
	must(t, tab, &Step{Action: Click, Locator: byPath("#outer", "#nested")})
	frameSays(t, tab, byPath("#outer", "#nested"), "clicked nested")

	// Cross-origin, by url and by title.
	cross := locate.Locator{Selector: "#b", Frame: &locate.FrameSpec{Title: "Cross"}}
	must(t, tab, &Step{Action: Click, Locator: cross})
	frameSays(t, tab, cross, "clicked cross")
	must(t, tab, &Step{Action: Fill, Locator: locate.Locator{Selector: "in cross", SelectorType: locate.Placeholder, Frame: &locate.FrameSpec{Path: []string{"#cross"}}}, Text: ptr("typed across origins")})
	must(t, tab, &Step{Action: Click, Locator: locate.Locator{Selector: "button", SelectorType: locate.Role, Name: ptr("Nested"), Frame: &locate.FrameSpec{Title: "Nested"}}})

	_, err := run(t, tab, &Step{Action: Click, Locator: locate.Locator{Selector: "#b", Frame: &locate.FrameSpec{Path: []string{"iframe"}}}})
	wantCode(t, err, errs.Ambiguous, "2 elements")
	if errs.As(err).Path != "frame.path[0]" {
		t.Fatalf("path %q", errs.As(err).Path)
	}
	_, err = run(t, tab, &Step{Action: Click, Locator: locate.Locator{Selector: "#b", Frame: &locate.FrameSpec{Title: "Nope"}}})
	wantCode(t, err, errs.NotFound, `"Cross"`)
	return base
}
