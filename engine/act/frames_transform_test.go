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

	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Frames under CSS transforms, out of process too: Chromium draws a
// cross-origin frame from its own renderer, whose quads are in that
// frame's viewport, so the mapping must hop across processes (issue 17).
func TestTransformedFrames(t *testing.T) {
	t.Parallel()
	inner := `<title>Inner</title><style>body { margin: 0; } button { margin: 37px 0 0 53px; width: 30px; height: 18px; }</style>
<button onclick="document.body.dataset.hit = (document.body.dataset.hit || '') + 'x'">B</button>`
	cross := http.NewServeMux()
	cross.HandleFunc("/inner.html", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, inner) })
	// A same-origin middle page holding a transformed cross-origin frame.
	cross.HandleFunc("/middle.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Middle</title><style>body { margin: 0; } iframe { margin: 20px 0 0 30px; border: 3px solid; width: 200px; height: 150px; transform: rotate(-12deg) scale(1.1); }</style>
<iframe src="%s/inner.html"></iframe>`, r.URL.Query().Get("other"))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	crossSrv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: cross}}
	crossSrv.Start()
	t.Cleanup(crossSrv.Close)
	other := strings.Replace(crossSrv.URL, "127.0.0.1", "localhost", 1)

	top := http.NewServeMux()
	top.HandleFunc("/top.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Top</title><style>body { margin: 0; } iframe { display: block; border: 2px solid; }
#a { margin: 40px 0 0 60px; width: 220px; height: 160px; transform: translate(30px, 10px) rotate(15deg) scale(0.85); }
#b { margin: 60px 0 0 90px; width: 320px; height: 260px; transform: scale(0.9) rotate(6deg); }</style>
<iframe id="a" src="%[1]s/inner.html"></iframe><iframe id="b" src="%[2]s/middle.html?other=%[1]s"></iframe>`, other, crossSrv.URL)
	})
	topSrv := httptest.NewServer(top)
	t.Cleanup(topSrv.Close)

	tab := page(t, "basics.html")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := tab.Navigate(ctx, tabs.Navigation{URL: topSrv.URL + "/top.html", WaitUntil: tabs.WaitNetworkIdle}); err != nil {
		t.Fatal(err)
	}
	for _, path := range [][]string{{"#a"}, {"#b", "iframe"}} {
		loc := locate.Locator{Selector: "button", Frame: &locate.FrameSpec{Path: path}}
		r := must(t, tab, &Step{Action: Click, Locator: loc})
		if !strings.Contains(r.Verified, "trusted click received") {
			t.Fatalf("%v: verified %q", path, r.Verified)
		}
		body := loc
		body.Selector = "body"
		must(t, tab, &Step{Action: Wait, Condition: "attached", Locator: locate.Locator{Selector: "body[data-hit=x]", Frame: body.Frame}})
	}
}
