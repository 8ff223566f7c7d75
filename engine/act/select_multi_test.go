package act

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

func selectMany(t *testing.T, tab *tabs.Tab, loc locate.Locator, c Choice) (*Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var r *Result
	err := tab.Do(ctx, func(ctx context.Context) (err error) { r, err = SelectMany(ctx, tab, loc, c); return err })
	return r, err
}

func TestSelectMany(t *testing.T) {
	t.Parallel()
	tab := page(t, "multiselect.html")
	r, err := selectMany(t, tab, locate.Locator{Selector: "Languages", SelectorType: "label"}, Choice{Values: []string{"go", "js"}})
	if err != nil || fmt.Sprint(r.Selected["options"]) != "[map[label:Go value:go] map[label:JavaScript value:js]]" {
		t.Fatalf("native: %+v %v", r, err)
	}
	var changes string
	if err := tab.Eval(context.Background(), "document.getElementById('changes').textContent", &changes); err != nil || changes != "1" {
		t.Fatalf("change events: %q %v", changes, err)
	}
	// A later choice replaces the earlier one.
	if r, err = selectMany(t, tab, locate.Locator{Selector: "#langs"}, Choice{Labels: []string{"Rust"}}); err != nil || len(r.Selected["options"].([]map[string]any)) != 1 {
		t.Fatalf("replace: %+v %v", r, err)
	}
	if _, err := selectMany(t, tab, locate.Locator{Selector: "#langs"}, Choice{Values: []string{"c"}}); errs.Code(err) != errs.NotActionable {
		t.Fatalf("a disabled option: %v", err)
	}
	if _, err := selectMany(t, tab, locate.Locator{Selector: "#langs"}, Choice{Values: []string{"go", "cobol"}}); errs.Code(err) != errs.ValueMismatch {
		t.Fatalf("a missing option: %v", err)
	}
	if _, err := selectMany(t, tab, locate.Locator{Selector: "#one"}, Choice{Labels: []string{"A"}}); errs.Code(err) != errs.NotActionable {
		t.Fatalf("a single select: %v", err)
	}

	// A listbox showing three rows: Kiwi, the last, is scrolled to and
	// clicked with trusted events.
	r, err = selectMany(t, tab, locate.Locator{Selector: "listbox", SelectorType: "role", Name: ptr("Fruits")}, Choice{Labels: []string{"Banana", "Kiwi"}})
	if err != nil || len(r.Selected["options"].([]map[string]any)) != 2 {
		t.Fatalf("listbox: %+v %v", r, err)
	}
	var sel string
	if err := tab.Eval(context.Background(), "[...document.querySelectorAll('[aria-selected=true]')].map(o => o.id).join(',')", &sel); err != nil || sel != "f-banana,f-kiwi" {
		t.Fatalf("listbox state: %q %v", sel, err)
	}
}
