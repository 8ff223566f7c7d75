package observe

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestObservationSizes holds each fixture page's default observation
// (compact JSON) under the targets where it sets one (form 2,600
// with labels in forms; article 6,000; the shop, a 50-row table and 30
// cards of distinct links, 4,000; 2,000 links 16,000), the others under a
// ceiling about 10% above what they measure, and the text rendering
// smaller than the JSON. shop, docs, settings and search are in shapes of
// real sites; search (results that vary in shape) was written after the
// first tuning, and forum (a story list whose items add or omit tags, a
// domain, links of the byline), issues (an issue list: labels, milestone,
// assignee, comments come and go) and store (a result grid: sponsored
// tiles, swatches, ratings, "See options" for "Add to cart", a widget amid
// the tiles) were written before the folding by a common core and not
// tuned on. Their targets: a results or story list 8,000; the issue list
// (25 checkboxes, said in forms too) 14,000; the store grid 12,000.
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
		{"search", 8000},
		{"forum", 8000},
		{"issues", 14000},
		{"store", 12000},
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

// Results that vary in shape (a few add a row of sitelinks) fold by their
// common core, and a folded item is still there to act on: the JSON's
// elements say which cards have a sitelink, its selector names it, a scope
// on its card lists it with a ref, and that ref clicks it.
func TestFoldVariedResults(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/search.html")
	o, _ := observeOK(t, ctx, p, Options{})
	reps := o.Repeated()
	if len(reps) != 1 || reps[0].Card != "#results > div:nth-of-type(n)" || reps[0].From != 2 || reps[0].To != 20 {
		t.Fatalf("repeated: %+v", reps)
	}
	r := reps[0]
	faq := -1
	for k, e := range r.Elements {
		if e.Label == "FAQ" && slices.Equal(e.In, []int{5, 9, 13, 17}) {
			faq = k
		}
	}
	if faq < 0 || r.Has(10, faq) || !strings.Contains(Render(o), "(only n 5,9,13,17)") {
		t.Fatalf("no FAQ link said in cards 5, 9, 13, 17: %+v\n%s", r.Elements, Render(o))
	}
	sel := r.Selector(9, faq)
	is := "#results > div:nth-child(9) > div.sitelinks > a:nth-child(2)"
	checkNames(t, p, "/search.html", "selector "+sel, `document.querySelector(`+jsString(sel)+`)`, is)

	card, _ := observeOK(t, ctx, p, Options{Scope: r.Selector(9, -1)})
	ref := ""
	for _, e := range card.Interactive {
		if e.Label == "FAQ" {
			ref = e.Ref
		}
	}
	if ref == "" || card.Repeated() != nil {
		t.Fatalf("scope on card 9 lists %+v", card.Interactive)
	}
	local := "e" + strconv.Itoa(refNumber(t, ref))
	checkNames(t, p, "/search.html", "ref "+ref, `globalThis.__tabwright.element(`+jsString(local)+`)`, is)
	var href string
	click := `(() => { let got = ''; addEventListener('click', (e) => { got = e.target.href; e.preventDefault(); }, {once: true, capture: true}); globalThis.__tabwright.element(` + jsString(local) + `).click(); return got; })()`
	if err := p.Eval(ctx, click, &href); err != nil || href != "https://urbanroots.example/articles/garden-compost-9/faq" {
		t.Errorf("clicking %s: %q %v", ref, href, err)
	}
}

// Every fold is reversible: on each page with folded cards, each folded
// element's selector (card with n, then its path) names exactly one
// element, the one the unfolded listing (max_interactive given) lists
// with that role and label, and no two name the same one.
func TestFoldedSelectorsResolve(t *testing.T) {
	ctx := testCtx(t)
	for _, page := range []string{"shop", "docs", "links", "search", "forum", "issues", "store"} {
		p := open(t, ctx, "/"+page+".html")
		o, _ := observeOK(t, ctx, p, Options{})
		all, _ := observeOK(t, ctx, p, Options{MaxInteractive: DefaultMaxInteractive})
		if len(o.Repeated()) == 0 {
			t.Errorf("%s: nothing folded", page)
		}
		var sels, want []string
		for _, r := range o.Repeated() {
			for c, row := range r.Labels {
				n, l := r.From+c, 0
				for k, e := range r.Elements {
					if !r.Has(n, k) {
						continue
					}
					label := e.Label
					if label == "" {
						label, l = row[l], l+1
					}
					sels, want = append(sels, r.Selector(n, k)), append(want, e.Role+" "+label)
				}
			}
		}
		var refs []string
		for _, e := range all.Interactive {
			refs = append(refs, "e"+strconv.Itoa(refNumber(t, e.Ref)))
		}
		raw, _ := json.Marshal([]any{sels, refs})
		var at []int // per folded selector, the index of its element in the full listing
		expr := `(([sels, refs]) => { const listed = refs.map((r) => globalThis.__tabwright.element(r)); return sels.map((s) => { const m = document.querySelectorAll(s); return m.length === 1 ? listed.indexOf(m[0]) : -1 - m.length; }); })(` + string(raw) + `)`
		if err := p.Eval(ctx, expr, &at); err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for i, j := range at {
			if j < 0 || seen[j] || all.Interactive[j].Role+" "+all.Interactive[j].Label != want[i] {
				t.Errorf("%s: %s (%s) names listed element %d", page, sels[i], want[i], j)
				continue
			}
			seen[j] = true
		}
		t.Logf("%-7s %d folded elements resolve", page, len(sels))
	}
}
