package observe

import (
	"context"
	"fmt"
	"strings"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// framedPage is a tracked test page that reaches its same-origin child
// frames: the frame an iframe shows (matched by its src), read in an
// isolated world of its own.
type framedPage struct{ *tracked }

func (p framedPage) ChildFrame(ctx context.Context, path []string) (Page, error) {
	if len(path) != 1 {
		return nil, fmt.Errorf("the test page reaches one level of frames")
	}
	var src string
	if err := p.mainEval(ctx, `document.querySelector(`+jsString(path[0])+`).src`, &src); err != nil {
		return nil, err
	}
	tree, err := cdproto.Call(ctx, p.sess, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		return nil, err
	}
	for _, c := range tree.FrameTree.ChildFrames {
		if c.Frame.URL == src {
			w, err := cdproto.Call(ctx, p.sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: c.Frame.ID, WorldName: "tabwright"})
			if err != nil {
				return nil, err
			}
			return &tab{sess: p.sess, world: w.ExecutionContextID}, nil
		}
	}
	return nil, fmt.Errorf("no frame shows %s", src)
}

// brokenFrames reaches no frame.
type brokenFrames struct{ framedPage }

func (brokenFrames) ChildFrame(context.Context, []string) (Page, error) {
	return nil, fmt.Errorf("no way in")
}

// openFramed opens a page with frames and waits until each has loaded.
func openFramed(t testing.TB, ctx context.Context, path string) framedPage {
	t.Helper()
	p := framedPage{openTracked(t, ctx, path, nil)}
	waitFor(t, ctx, p.tab, `[...document.querySelectorAll('iframe')].every((f) => f.contentDocument && f.contentDocument.readyState === 'complete')`)
	return p
}

// waitFor waits in the page until cond holds: it is checked again on every
// DOM change and every load (a frame's or an image's, caught on the way
// down), the events that can make a test page's condition true.
func waitFor(t testing.TB, ctx context.Context, p *tab, cond string) {
	t.Helper()
	expr := `new Promise((resolve) => {
		const check = () => { if (` + cond + `) { resolve(true); return true; } return false; };
		if (check()) return;
		const changes = new MutationObserver(() => check() && changes.disconnect());
		changes.observe(document, {subtree: true, childList: true, attributes: true});
		document.addEventListener('load', () => check() && changes.disconnect(), true);
	})`
	res, err := cdproto.Call(ctx, p.sess, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, AwaitPromise: ptr(true), ReturnByValue: ptr(true)})
	if err == nil && res.ExceptionDetails != nil {
		err = fmt.Errorf("%s", res.ExceptionDetails.Text)
	}
	if err != nil {
		t.Fatalf("waiting for %s: %v", cond, err)
	}
}

// The frame's form and controls are part of the page's observation, with
// the frame path a batch takes and refs of the frame's own document.
func TestFramesInline(t *testing.T) {
	ctx := testCtx(t)
	p := openFramed(t, ctx, "/iframe.html")
	o, raw := observeOK(t, ctx, p, Options{})
	if len(o.Forms) != 1 || o.Forms[0].Frame == nil || o.Forms[0].Frame.Path[0] != "#signin" || len(o.Forms[0].Fields) != 4 {
		t.Fatalf("the frame's form: %s", raw)
	}
	var framed []Element
	for _, e := range o.Interactive {
		if e.Frame != nil {
			framed = append(framed, e)
		}
	}
	if len(framed) != 4 || framed[0].Label != "Email" || refTag(t, framed[0].Ref) == refTag(t, o.Interactive[0].Ref) {
		t.Fatalf("the frame's elements, under a tag of their own: %s", raw)
	}
	if back, err := Decode(raw); err != nil || back.Interactive[1].Frame == nil || back.Forms[0].Fields[0].Ref != framed[0].Ref {
		t.Errorf("decoded: %+v, %v", back, err)
	}
	text := Render(o)
	if !strings.Contains(text, framed[0].Ref+` "Email" [email]* [name=email]`) || !strings.Contains(text, `in frame {"path":["#signin"]}`) {
		t.Errorf("text form:\n%s", text)
	}
	if len(raw) > 1500 || len(text) > 1500 {
		t.Errorf("iframe page: %d chars of JSON, %d of text; budget 1500", len(raw), len(text))
	}
	// A frame added before it: the first keeps its tag, the new one gets
	// another, so an older ref never reaches into another frame.
	var added bool
	if err := p.mainEval(ctx, `(() => { const f = document.createElement('iframe'); f.id = 'extra'; f.src = '/frame-form.html?2'; f.width = 300; f.height = 200; document.body.prepend(f); return true; })()`, &added); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, p.tab, `document.getElementById('extra').contentDocument?.readyState === 'complete' && document.getElementById('extra').contentDocument.URL.endsWith('?2')`)
	o2, raw2 := observeOK(t, ctx, p, Options{})
	prefixes := map[string]string{}
	for _, e := range o2.Interactive {
		if e.Frame != nil && e.Label == "Email" {
			prefixes[e.Frame.Path[0]] = e.Ref
		}
	}
	if prefixes["#signin"] != framed[0].Ref || prefixes["#extra"] == "" || refTag(t, prefixes["#extra"]) == refTag(t, framed[0].Ref) {
		t.Errorf("tags after a new frame: %v (was %s): %s", prefixes, framed[0].Ref, raw2)
	}
	// A frame that cannot be read is named, in both forms.
	broken := framedPage{p.tracked}
	o, raw = observeOK(t, ctx, brokenFrames{broken}, Options{})
	if o.Reserved["frames"] == nil || !strings.Contains(Render(o), `… frame {"path":["#signin"]} not read (no way in): observe it with frame`) {
		t.Errorf("unread frame: %s\n%s", raw, Render(o))
	}
	// A budget of 2 elements leaves the rest of the 9 (a link, 4 in each frame) out, and says so.
	o, _ = observeOK(t, ctx, p, Options{MaxInteractive: 2})
	if tr := o.Truncated(); len(o.Interactive) != 2 || tr == nil || tr.Interactive == nil || tr.Interactive.Omitted != 7 {
		t.Errorf("bounded: %d listed, %+v", len(o.Interactive), tr)
	}
}
