package tabs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/injected"
)

// Every new document of a claimed tab holds the page helpers before any page
// call sent them: the main frame's world, a same-origin child frame's and an
// out-of-process frame's (its first document, which waits for us to set its
// session up, and the next one) pass both bundles' guards, and the page's
// own scripts see none of it.
func TestNewDocumentsHoldTheHelpers(t *testing.T) {
	t.Parallel()
	cross := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<p>cross %s</p>", r.URL.Path)
	}))
	t.Cleanup(cross.Close)
	crossURL := strings.Replace(cross.URL, "127.0.0.1", "localhost", 1) // another site: its own renderer
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<iframe id="same" srcdoc="<p>same</p>"></iframe><iframe id="cross" src="%s/first"></iframe>`+
			`<script>document.title = typeof __tabwright</script>`, crossURL)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opened, err := siteIsolated(t).Open(ctx, OpenOptions{Owner: "t", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := opened.Tab
	if _, err := tab.Navigate(ctx, Navigation{URL: srv.URL}); err != nil { // its load waits for the frames'
		t.Fatal(err)
	}

	holds := func(f *Frame) string {
		t.Helper()
		var got []any
		probe := "[" + injected.Actions().IfInstalled("true") + ", " + injected.Extractors().IfInstalled("true") + "]"
		if err := tab.EvalIn(ctx, f, probe, &got); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(got)
	}
	frame := func(id string) *Frame {
		t.Helper()
		obj, err := tab.EvalObjectIn(ctx, nil, "document.getElementById('"+id+"')")
		if err != nil {
			t.Fatal(err)
		}
		f, err := tab.ChildFrame(ctx, nil, obj)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if got := holds(nil); got != "[true true]" {
		t.Errorf("main frame: guards answer %s, want both installed", got)
	}
	if got := holds(frame("same")); got != "[true true]" {
		t.Errorf("same-origin frame: guards answer %s, want both installed", got)
	}
	crossFrame := frame("cross")
	if crossFrame.sess == tab.sess {
		t.Fatal("the cross-origin frame runs in the page's renderer: nothing out of process is tested")
	}
	if got := holds(crossFrame); got != "[true true]" {
		t.Errorf("out-of-process frame's first document: guards answer %s, want both installed", got)
	}
	var loaded bool
	navigateCross := `new Promise((done) => { const f = document.getElementById('cross');` +
		` f.addEventListener('load', () => done(true), { once: true }); f.src = ` + fmt.Sprintf("%q", crossURL+"/second") + ` })`
	if err := tab.Eval(ctx, navigateCross, &loaded); err != nil || !loaded {
		t.Fatalf("navigating the cross-origin frame: %v, %v", loaded, err)
	}
	if got := holds(frame("cross")); got != "[true true]" {
		t.Errorf("out-of-process frame's next document: guards answer %s, want both installed", got)
	}
	var title string
	if err := tab.Eval(ctx, "document.title", &title); err != nil || title != "undefined" {
		t.Errorf("the page's own script sees __tabwright as %q (%v), want undefined", title, err)
	}
}
