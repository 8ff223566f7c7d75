package observe

import (
	"encoding/json"
	"testing"
)

// TestObservationSizes holds each fixture page's default observation
// (compact JSON, and the text rendering) under a ceiling about 10% above
// what it measures, so a regression in size shows. The targets
// (form 2,600 with labels in forms; article 6,000; 50-row table with 30
// cards of distinct links, the shop, 4,000; 2,000 links 16,000) are not all
// met yet: shop and docs are over (the 2,500-character text preview is most
// of them). shop, docs and settings are in shapes of real sites, written
// before folding was tuned.
func TestObservationSizes(t *testing.T) {
	ctx := testCtx(t)
	for _, c := range []struct {
		page       string
		json, text int
	}{
		{"signup", 3000, 1000},
		{"settings", 4700, 1700},
		{"article", 6700, 4900},
		{"table", 3000, 2800},
		{"products", 4200, 3400},
		{"shop", 8700, 7000},
		{"docs", 12500, 10200},
		{"links", 6000, 6100},
	} {
		p := open(t, ctx, "/"+c.page+".html")
		o, err := Capture(ctx, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		size, text := len([]rune(string(raw))), len([]rune(Render(o)))
		t.Logf("%-9s json %6d  text %6d", c.page, size, text)
		if size > c.json || text > c.text {
			t.Errorf("%s: %d chars of JSON (ceiling %d), %d of text (ceiling %d)", c.page, size, c.json, text, c.text)
		}
	}
}

// Cards whose links have distinct hrefs (each link's selector is its own
// a[href=...]) fold by their shape: the shop's 30 tiles keep 3 listed, the
// rest said once, and a folded button's selector names that button.
func TestFoldByShape(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/shop.html")
	o, _ := observeOK(t, ctx, p, Options{})
	reps := o.Repeated()
	if len(reps) != 1 || reps[0].Card != "#grid > article:nth-of-type(n)" || reps[0].From != 4 || reps[0].To != 30 || reps[0].List == "" {
		t.Fatalf("repeated: %+v", reps)
	}
	r := reps[0]
	buy := -1
	for k, e := range r.Elements {
		if e.Label == "Add to basket" {
			buy = k
		}
	}
	if buy < 0 {
		t.Fatalf("no shared Add to basket in %+v", r.Elements)
	}
	sel := r.Selector(20, buy)
	checkNames(t, p, "/shop.html", "selector "+sel, `document.querySelector(`+jsString(sel)+`)`, "#grid > article:nth-child(20) > button.buy")
}
