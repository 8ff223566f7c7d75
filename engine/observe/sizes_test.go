package observe

import (
	"encoding/json"
	"testing"
)

// TestObservationSizes holds each fixture page's default observation
// (compact JSON) under the targets where it sets one (form 2,600
// with labels in forms; article 6,000; the shop, a 50-row table and 30
// cards of distinct links, 4,000; 2,000 links 16,000), the others under a
// ceiling about 10% above what they measure, and the text rendering
// smaller than the JSON. shop, docs, settings and search are in shapes of
// real sites; search was written after the tuning and is not helped by it
// yet (its results vary in shape, so they do not fold). forum (a story
// list whose items add or omit tags, a domain, links of the byline),
// issues (an issue list: labels, milestone, assignee, comments come and
// go) and store (a result grid: sponsored tiles, swatches, ratings, "See
// options" for "Add to cart", a widget amid the tiles) are held out: written
// before any tuning for them, and not tuned on.
func TestObservationSizes(t *testing.T) {
	ctx := testCtx(t)
	for _, c := range []struct {
		page string
		json int
	}{
		{"signup", 2600},
		{"settings", 4400},
		{"article", 6000},
		{"table", 800},
		{"products", 2500},
		{"shop", 4000},
		{"docs", 10800},
		{"links", 16000},
		{"search", 13700},
		{"forum", 23500},
		{"issues", 31000},
		{"store", 34700},
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
		if size > c.json || text >= size {
			t.Errorf("%s: %d chars of JSON (ceiling %d), %d of text (must be fewer)", c.page, size, c.json, text)
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
	if len(reps) != 1 || reps[0].Card != "#grid > article:nth-of-type(n)" || reps[0].From != 2 || reps[0].To != 30 || reps[0].List == "" {
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
