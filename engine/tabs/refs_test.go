package tabs

import (
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
)

func TestRefTags(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{1: "a", 5: "e", 26: "z", 27: "aa", 52: "az", 53: "ba", 702: "zz", 703: "aaa"} {
		if got := refTag(n); got != want {
			t.Errorf("refTag(%d) = %q, want %q", n, got, want)
		}
	}
	for _, c := range []struct{ ref, tag, num string }{{"a1", "a", "1"}, {"zz40", "zz", "40"}} {
		if tag, num, ok := splitRef(c.ref); !ok || tag != c.tag || num != c.num {
			t.Errorf("splitRef(%q) = %q %q %v", c.ref, tag, num, ok)
		}
	}
	for _, bad := range []string{"", "e", "12", "f1:e3", "A1", "a1b", "a-1", "a1234567890123456"} {
		if _, _, ok := splitRef(bad); ok {
			t.Errorf("splitRef(%q) accepted", bad)
		}
	}
}

// Two tabs never share a tag, a document keeps its tag, and a tab knows
// only its own: the ref of another tab is stale there.
func TestRefScopesPerTab(t *testing.T) {
	t.Parallel()
	a, b := &Tab{mainFrame: "A"}, &Tab{mainFrame: "B"}
	refA, refB := a.Refs("docA")("e1"), b.Refs("docB")("e1")
	if refA == refB || a.Refs("docA")("e7") != refA[:len(refA)-1]+"7" {
		t.Fatalf("refs %s %s", refA, refB)
	}
	if _, _, err := a.LookupRef(refB); errs.Code(err) != errs.StaleRef || errs.As(err).Path != "ref" {
		t.Errorf("tab B's ref with tab A: %v", err)
	}
	if s, local, err := a.LookupRef(refA); err != nil || !s.Main || s.Doc != "docA" || local != "e1" {
		t.Errorf("tab A's ref: %+v %s %v", s, local, err)
	}
	framed := a.ScopeRefs(&Frame{ID: "F"}, []string{"#f"}, "docF")("e1")
	if s, _, err := a.LookupRef(framed); err != nil || s.Main || s.FrameID != "F" || s.Path[0] != "#f" {
		t.Errorf("a frame's ref: %+v %v", s, err)
	}
	// The oldest scopes are forgotten past the bound.
	for i := range maxRefScopes {
		a.Refs(string(rune('0' + i)))
	}
	if _, _, err := a.LookupRef(refA); errs.Code(err) != errs.StaleRef {
		t.Errorf("a forgotten scope's ref: %v", err)
	}
}
