package observetab_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/tabs"
)

// A ref from an observation turns into a selector that names the same
// element without the observation (inside a shadow root too), and the
// selector does what the ref did; a ref the page has moved past is
// stale_ref, never another element.
func TestStableSelectorOfARef(t *testing.T) {
	t.Parallel()
	tab := realWebPage(t, "slotted-button.html")
	obs := observeTab(t, tab, observe.Options{})
	ref := listed(t, obs, "button", "Save profile").Ref
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var loc locate.Locator
	err := tab.Do(ctx, func(ctx context.Context) (err error) {
		loc, err = locate.Stable(ctx, tab, locate.Locator{Ref: ref})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if loc.Ref != "" || !strings.Contains(loc.Selector, ">>>") || loc.Frame != nil || loc.FrameID != "" {
		t.Fatalf("want a shadow-piercing css selector in the main frame, got %+v", loc)
	}
	if _, err := act.Run(ctx, tab, &act.Step{Action: act.Click, Locator: loc}); err != nil {
		t.Fatalf("click on %q: %v", loc.Selector, err)
	}
	var out string
	if err := tab.Eval(ctx, "document.getElementById('out').textContent", &out); err != nil || out != "clicked" {
		t.Fatalf("the selector's click did not reach the button: %q %v", out, err)
	}

	plain := locate.Locator{Selector: "#out"}
	if got, err := locate.Stable(ctx, tab, plain); err != nil || got.Selector != "#out" {
		t.Fatalf("a locator without a ref changed: %+v %v", got, err)
	}
	err = tab.Do(ctx, func(ctx context.Context) error {
		if _, err := tab.Navigate(ctx, tabs.Navigation{History: "reload"}); err != nil {
			return err
		}
		_, err := locate.Stable(ctx, tab, locate.Locator{Ref: ref})
		return err
	})
	if errs.Code(err) != errs.StaleRef {
		t.Fatalf("a ref of the document before the reload: want stale_ref, got %v", err)
	}
}
