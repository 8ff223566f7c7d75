package locate

// Role locators: the browser's accessibility tree, asked when the page
// cannot be sure of its answer, and the documents kept for asking it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/tabs"
)

// roleDocs keeps, per tab, a reference to each world's document, for
// accessibility queries: read once per document, it lives as long as the
// world.
type roleDocs struct {
	mu   sync.Mutex
	docs map[string]runtime.RemoteObjectID
}

const roleDocsKey = "locate.roledocs"

// maxWorlds bounds the set: a tab that navigated this often starts afresh.
const maxWorlds = 64

func roleDocsOf(t *tabs.Tab) *roleDocs {
	return t.State(roleDocsKey, func() any { return &roleDocs{docs: map[string]runtime.RemoteObjectID{}} }).(*roleDocs)
}

// document is the reference to the document of world key, if one is kept.
func (w *roleDocs) document(key string) (runtime.RemoteObjectID, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	doc, ok := w.docs[key]
	return doc, ok && key != ""
}

// keep keeps doc, read in world key.
func (w *roleDocs) keep(key string, doc runtime.RemoteObjectID) {
	if key == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.docs) >= maxWorlds {
		clear(w.docs)
	}
	w.docs[key] = doc
}

func (w *roleDocs) forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.docs, key)
}

// resolveRole finds the element through the browser's accessibility tree,
// then checks actionability in the page like every other locator.
//
// The page answers first when it can be sure of the tree's answer (one
// element of a common role with that name, on a page of plain HTML: see
// byRole in find.js), in one page call and without the browser computing
// the tree; otherwise, and for nth, the tree is asked.
func resolveRole(ctx context.Context, t *tabs.Tab, fr *frameChain, loc Locator, need Need, then *Then, out any, deadline time.Time) (*Target, error) {
	if loc.Nth == nil && loc.Name != nil && loc.bound == nil {
		pl := pageLocator{Selector: loc.Selector, Type: Role, Name: loc.Name}
		target, err := resolvePage(ctx, t, fr, loc, pl, need, then, out, deadline)
		if !errors.Is(err, errDOMUnsure) {
			return target, err
		}
	}
	return resolveRoleTree(ctx, t, fr, loc, need, then, out, deadline)
}

// errDOMUnsure is the page's "ask the accessibility tree" for a role.
var errDOMUnsure = errors.New("the DOM cannot answer this role for sure")

// resolveRoleTree finds the element through the accessibility tree.
func resolveRoleTree(ctx context.Context, t *tabs.Tab, fr *frameChain, loc Locator, need Need, then *Then, out any, deadline time.Time) (*Target, error) {
	f := fr.frame()
	sess := t.Session()
	if f != nil {
		sess = f.Session()
	}
	// The queries keep the same margin as page-side waits, fixed at the
	// start, so running out of time reads as "not found", not as a browser
	// that stopped answering.
	until := pageUntil(deadline)
	for {
		nodes, err := queryRole(ctx, t, f, sess, loc, until)
		if errs.Code(err) == errs.Timeout {
			return nil, errs.New(errs.NotFound, "nothing matches %s in the accessibility tree within %s", loc, within(ctx)).
				WithHint("roles are ARIA roles (button, link, textbox, checkbox…); name must equal the accessible name exactly")
		}
		if err != nil {
			return nil, err
		}
		switch {
		case len(nodes) > 1 && loc.Nth == nil:
			names := make([]string, 0, 5)
			for _, n := range nodes[:min(5, len(nodes))] {
				names = append(names, fmt.Sprintf("%s %q", loc.Selector, axName(n)))
			}
			return nil, errs.New(errs.Ambiguous, "%s matches %d elements: %s", loc, len(nodes), strings.Join(names, ", ")).
				WithHint("add name (the exact accessible name), or pick one with nth (zero-based, in accessibility tree order)")
		case loc.Nth != nil && *loc.Nth < len(nodes) || loc.Nth == nil && len(nodes) == 1:
			i := 0
			if loc.Nth != nil {
				i = *loc.Nth
			}
			target, err := resolveNode(ctx, t, fr, loc, nodes[i].BackendDOMNodeID, need, then, out, deadline)
			if target != nil {
				target.Count = len(nodes)
			}
			return target, err
		}
		if time.Now().After(deadline) {
			where := "in the accessibility tree"
			if loc.Nth != nil && len(nodes) > 0 {
				return nil, errs.New(errs.NotFound, "%s: nth %d asked but only %d element(s) match %s", loc, *loc.Nth, len(nodes), where)
			}
			return nil, errs.New(errs.NotFound, "nothing matches %s %s within %s", loc, where, within(ctx)).
				WithHint("roles are ARIA roles (button, link, textbox, checkbox…); name must equal the accessible name exactly")
		}
		select {
		case <-time.After(100 * time.Millisecond): // the accessibility tree has no change event to wait on
		case <-ctx.Done():
			return nil, errs.New(errs.NotFound, "nothing matches %s in the accessibility tree within %s", loc, within(ctx)).
				WithHint("roles are ARIA roles (button, link, textbox, checkbox…); name must equal the accessible name exactly")
		}
	}
}

// queryRole reads the frame's document and lists its elements with loc's
// role and name, by until.
func queryRole(ctx context.Context, t *tabs.Tab, f *tabs.Frame, sess *cdp.Session, loc Locator, until time.Time) ([]*accessibility.Node, error) {
	ctx, cancel := context.WithDeadline(ctx, until)
	defer cancel()
	kept := roleDocsOf(t)
	if doc, ok := kept.document(t.WorldKey(f)); ok {
		nodes, err := roleNodes(ctx, sess, doc, loc.Selector, loc.Name)
		var pe *cdp.ProtocolError
		if !errors.As(err, &pe) {
			return nodes, err
		}
		kept.forget(t.WorldKey(f)) // the object went with its world: read it again
	}
	doc, err := t.EvalObjectIn(ctx, f, "document")
	if err != nil {
		if ctx.Err() != nil {
			return nil, errs.New(errs.Timeout, "the accessibility query ran out of time")
		}
		return nil, err
	}
	kept.keep(t.WorldKey(f), doc)
	return roleNodes(ctx, sess, doc, loc.Selector, loc.Name)
}

// roleNodes lists the elements with the role (and, when name is set, that
// accessible name) under doc, in tree order. Names compare with whitespace
// normalised on both sides, as the browser shows them: the browser's own
// filter is exact, so when it finds nothing the role's nodes are filtered here.
func roleNodes(ctx context.Context, sess *cdp.Session, doc runtime.RemoteObjectID, role string, name *string) ([]*accessibility.Node, error) {
	want := ""
	if name != nil {
		want = NormSpace(*name)
	}
	q := accessibility.QueryAXTreeParams{ObjectID: doc, Role: role, AccessibleName: want} // "" means any name
	res, err := cdproto.Call(ctx, sess, accessibility.QueryAXTree, q)
	if err == nil && len(res.Nodes) == 0 && want != "" {
		q.AccessibleName = ""
		res, err = cdproto.Call(ctx, sess, accessibility.QueryAXTree, q)
	}
	if err != nil {
		return nil, err
	}
	var nodes []*accessibility.Node
	for _, n := range res.Nodes {
		if n.Ignored || n.BackendDOMNodeID == 0 {
			continue
		}
		if name != nil && NormSpace(axName(n)) != want {
			continue
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// NormSpace collapses runs of white space (no-break spaces included) to one
// space and trims the ends, as accessible names are compared.
func NormSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func axName(n *accessibility.Node) string {
	if n.Name == nil || len(n.Name.Value) == 0 {
		return ""
	}
	var s string
	json.Unmarshal(n.Name.Value, &s)
	return s
}

// resolveNode runs the page-side resolve on a DOM node the browser named
// (by backend id): the node is handed to the page as the object a
// function is called on, held there, and checked, in one round trip. Its
// object reference is released without waiting for the answer.
func resolveNode(ctx context.Context, t *tabs.Tab, fr *frameChain, loc Locator, node cdproto.BackendNodeID, need Need, then *Then, out any, deadline time.Time) (*Target, error) {
	f := fr.frame()
	world, err := t.WorldID(ctx, f)
	if err != nil {
		return nil, err
	}
	sess := t.Session()
	if f != nil {
		sess = f.Session()
	}
	obj, err := cdproto.Call(ctx, sess, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node, ExecutionContextID: world})
	if err != nil {
		return nil, err
	}
	if obj.Object == nil {
		return nil, errs.New(errs.NotFound, "the element left the page while we located it")
	}
	defer t.ReleaseObjectLater(ctx, f, obj.Object.ObjectID)
	// The helpers are in this world: queryRole's document read installed them.
	args := []any{need, pageBudget(deadline)}
	if then != nil {
		args = append(args, then)
	}
	var res pageResult
	answerCtx, stop := awaitAnswer(ctx, deadline)
	defer stop()
	var raw json.RawMessage
	err = t.CallOnIn(answerCtx, f, obj.Object.ObjectID, injected.CallOnHeld(injected.FnResolve, args...), &raw)
	if err == nil {
		err = decodeAnswer(raw, &res)
	}
	return targetOf(ctx, fr, loc, then, out, &res, err)
}
