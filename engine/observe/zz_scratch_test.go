package observe

import (
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

func TestZZScratch(t *testing.T) {
	ctx := testCtx(t)
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		p := open(t, ctx, "/login.html")
		t1 := time.Now()
		Capture(ctx, p, Options{})
		t2 := time.Now()
		Capture(ctx, p, Options{})
		t3 := time.Now()
		t.Logf("open %v first %v second %v", t1.Sub(t0), t2.Sub(t1), t3.Sub(t2))
		tree, _ := cdproto.Call(ctx, p.sess, page.GetFrameTree, cdproto.Empty{})
		w2, _ := cdproto.Call(ctx, p.sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: tree.FrameTree.Frame.ID, WorldName: "tabwright"})
		t.Logf("world %v again %v", p.world, w2.ExecutionContextID)
	}
}
