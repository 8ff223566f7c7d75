package tabs

import (
	"strings"
	"sync"
	"sync/atomic"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/tabwright/tabwright/engine/errs"
)

// A ref names one element of one document of one frame of one tab: a tag of
// lowercase letters naming that scope, then the element's number in it
// ("c12"). The page-side extractor numbers the elements of its document
// (e1, e2, ...) in our isolated world and marks the document with a random
// nonce; the tab gives each (frame, document) it is shown a tag of its own,
// drawn from a counter of the whole process. So a ref of another tab, of an
// earlier document or of another frame never names an element here: its
// tag is unknown to the tab, or the page finds the nonce changed, and the
// ref fails with stale_ref instead of acting elsewhere.

// refScopeSeq numbers the scopes of the process; no two share a tag.
var refScopeSeq atomic.Int64

// maxRefScopes bounds the scopes a tab remembers: older tags are forgotten
// (their refs fail as stale), newest kept.
const maxRefScopes = 64

// RefScope is where a ref's element lives: a frame of the tab (Main, or the
// frame with FrameID, found by Path when an observation read it that way)
// and the document whose page-side nonce is Doc.
type RefScope struct {
	Main    bool
	FrameID cdproto.FrameID
	Path    []string
	Doc     string
}

// refScopes is a tab's table of tags.
type refScopes struct {
	mu    sync.Mutex
	byTag map[string]RefScope
	byDoc map[string]string // nonce -> tag: a document keeps its tag
	order []string          // tags, oldest first
}

// ScopeRefs returns how the page-side refs of frame f's document doc (f
// nil: the main frame) read as refs of this tab: behind the scope's tag.
// path is how the frame was reached (nil: by f's id alone). The same
// document keeps its tag, so refs stay stable across observations.
func (t *Tab) ScopeRefs(f *Frame, path []string, doc string) func(pageRef string) string {
	tag := t.scopeTag(RefScope{Main: f == nil || f.ID == t.mainFrame, FrameID: frameID(f), Path: path, Doc: doc})
	return func(pageRef string) string { return publicRef(tag, pageRef) }
}

// Refs is ScopeRefs for the main frame (observe.Scoped).
func (t *Tab) Refs(doc string) func(pageRef string) string { return t.ScopeRefs(nil, nil, doc) }

func (t *Tab) scopeTag(s RefScope) string {
	if s.Main {
		s.FrameID = ""
	}
	r := &t.refs
	r.mu.Lock()
	defer r.mu.Unlock()
	if tag, ok := r.byDoc[s.Doc]; ok {
		return tag
	}
	if r.byTag == nil {
		r.byTag, r.byDoc = map[string]RefScope{}, map[string]string{}
	}
	tag := refTag(refScopeSeq.Add(1))
	r.byTag[tag], r.byDoc[s.Doc] = s, tag
	r.order = append(r.order, tag)
	if len(r.order) > maxRefScopes {
		old := r.order[0]
		delete(r.byDoc, r.byTag[old].Doc)
		delete(r.byTag, old)
		r.order = r.order[1:]
	}
	return tag
}

func frameID(f *Frame) cdproto.FrameID {
	if f == nil {
		return ""
	}
	return f.ID
}

// LookupRef splits a ref of this tab into its scope and the page-side ref
// ("e12") of its element. A ref this tab never gave (another tab's, or one
// forgotten) is a stale_ref error at path "ref".
func (t *Tab) LookupRef(ref string) (RefScope, string, error) {
	tag, num, ok := splitRef(ref)
	if ok {
		t.refs.mu.Lock()
		s, known := t.refs.byTag[tag]
		t.refs.mu.Unlock()
		if known {
			return s, "e" + num, nil
		}
	}
	return RefScope{}, "", errs.New(errs.StaleRef, "ref %s was not given by an observation of this tab: a ref belongs to the tab, frame and document it was read from", clipRef(ref)).
		WithPath("ref").WithHint("observe this tab and use a ref from that observation, or use a selector")
}

// refTag writes n (from 1) in bijective base 26: a..z, aa..zz, aaa...
func refTag(n int64) string {
	var b []byte
	for ; n > 0; n = (n - 1) / 26 {
		b = append(b, byte('a'+(n-1)%26))
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// publicRef turns the page-side ref of an element ("e12") into the ref an
// agent sees under tag ("c12"); anything else is returned as it is.
func publicRef(tag, pageRef string) string {
	if num, ok := strings.CutPrefix(pageRef, "e"); ok && digits(num) {
		return tag + num
	}
	return pageRef
}

// splitRef cuts a ref into its tag (letters) and element number (digits).
func splitRef(ref string) (tag, num string, ok bool) {
	i := strings.IndexFunc(ref, func(r rune) bool { return r < 'a' || r > 'z' })
	if i <= 0 || !digits(ref[i:]) {
		return "", "", false
	}
	return ref[:i], ref[i:], true
}

func digits(s string) bool {
	if s == "" || len(s) > 15 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// clipRef keeps a foreign ref short in messages.
func clipRef(ref string) string {
	if len(ref) > 40 {
		return ref[:40] + "…"
	}
	return ref
}
