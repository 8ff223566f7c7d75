package act

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"

	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/locate"
)

// A role locator answered from the DOM (byRole in find.js) must be the
// accessibility tree's answer: on every fixture page, for every role the
// DOM answers and every name the tree or the page shows, a DOM answer is
// exactly one element and the tree has exactly that one element with that
// role and name. roles.html holds the cases the DOM may misread (hidden
// twins, names from CSS or images, explicit roles, a closed shadow root).
func TestRoleDOMAnswerIsTheTreeAnswer(t *testing.T) {
	t.Parallel()
	roles := []string{"button", "checkbox", "radio", "textbox", "link"}
	answered := 0
	for _, name := range []string{"roles.html", "roleshadow.html", "basics.html", "hard.html", "mcp.html", "multiselect.html", "secret.html"} {
		tab := page(t, name)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		doc, err := tab.EvalObjectIn(ctx, nil, injected.Actions().Installing("document"))
		if err != nil {
			t.Fatal(err)
		}
		world, err := tab.WorldID(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, role := range roles {
			res, err := cdproto.Call(ctx, tab.Session(), accessibility.QueryAXTree, accessibility.QueryAXTreeParams{ObjectID: doc, Role: role})
			if err != nil {
				t.Fatal(err)
			}
			tree := map[string][]cdproto.BackendNodeID{}
			for _, n := range res.Nodes {
				if !n.Ignored && n.BackendDOMNodeID != 0 {
					nm := ""
					if n.Name != nil {
						json.Unmarshal(n.Name.Value, &nm)
					}
					tree[locate.NormSpace(nm)] = append(tree[locate.NormSpace(nm)], n.BackendDOMNodeID)
				}
			}
			var pageNames []string
			if err := locate.Eval(ctx, tab, nil, fmt.Sprintf(`(() => { const tw = globalThis.__tabwright;
				return tw.everything().filter((el) => tw.role(el) === %q).map((el) => tw.accName(el)) })()`, role), &pageNames); err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for nm := range tree {
				names[nm] = true
			}
			for _, nm := range pageNames {
				names[locate.NormSpace(nm)] = true
			}
			for nm := range names {
				var count int
				q, _ := json.Marshal([]string{role, nm})
				if err := locate.Eval(ctx, tab, nil, fmt.Sprintf(`(() => { const r = globalThis.__tabwright.byRole(...%s); return r == null ? -1 : r.length })()`, q), &count); err != nil {
					t.Fatal(err)
				}
				if count == -1 {
					continue
				}
				answered++
				ids := tree[nm]
				if count != 1 || len(ids) != 1 {
					t.Errorf("%s: role %s name %q: the DOM answers %d element(s), the tree has %d", name, role, nm, count, len(ids))
					continue
				}
				obj, err := cdproto.Call(ctx, tab.Session(), dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: ids[0], ExecutionContextID: world})
				if err != nil || obj.Object == nil {
					t.Fatalf("resolve node: %v", err)
				}
				var same bool
				fn := fmt.Sprintf(`function() { return globalThis.__tabwright.byRole(...%s)[0] === this }`, q)
				if err := tab.CallOnIn(ctx, nil, obj.Object.ObjectID, fn, &same); err != nil {
					t.Fatal(err)
				}
				if !same {
					t.Errorf("%s: role %s name %q: the DOM answers another element than the tree", name, role, nm)
				}
			}
		}
		cancel()
	}
	t.Logf("%d role and name pairs answered from the DOM", answered)
	if answered == 0 {
		t.Fatal("the DOM answered no role: the test compared nothing")
	}
}
