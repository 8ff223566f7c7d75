package locate

import (
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// boundRef is a ref resolved to its scope: the ref the caller gave (for
// messages) and the nonce of the document it was read from, which the page
// compares with its own before the ref names anything.
type boundRef struct {
	public string
	doc    string
}

// bindRef turns loc's ref, from an observation of t, into its element's
// page-side ref in the frame and document that observation read: a ref of
// another tab fails here, one of another document in the page. Locators
// without a ref, and bound ones, are returned as they are.
func bindRef(t *tabs.Tab, loc Locator) (Locator, error) {
	if loc.Ref == "" || loc.bound != nil {
		return loc, nil
	}
	scope, local, err := t.LookupRef(loc.Ref)
	if err != nil {
		return loc, err
	}
	out := Locator{Ref: local, bound: &boundRef{public: loc.Ref, doc: scope.Doc}}
	switch {
	case scope.Main:
	case len(scope.Path) > 0:
		out.Frame = &FrameSpec{Path: scope.Path}
	default:
		out.FrameID = string(scope.FrameID)
	}
	return out, nil
}

// refFrameGone is the error of a ref whose frame cannot be found any more.
func refFrameGone(loc Locator, err error) error {
	if loc.bound == nil || errs.Code(err) != errs.NotFound && errs.Code(err) != errs.Ambiguous {
		return err
	}
	return staleRef(loc, "the frame it was read in is gone or shows another frame")
}

// StaleRef is the error of a ref the page found names nothing in its
// current document.
func StaleRef(loc Locator) error {
	return staleRef(loc, "its frame navigated or reloaded since the observation that gave it, or its element is gone")
}

func staleRef(loc Locator, why string) error {
	return errs.New(errs.StaleRef, "%s is not in the current document: %s", loc, why).WithPath("ref").
		WithHint("observe the tab again for fresh refs, or use a selector")
}
