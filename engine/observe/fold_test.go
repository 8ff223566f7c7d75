package observe

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestCardOf(t *testing.T) {
	for sel, want := range map[string][3]string{
		"#results > div:nth-of-type(7) > h3 > a": {"#results > div:nth-of-type(n)", "7", "> h3 > a"},
		"ul > li:nth-of-type(12)":                {"ul > li:nth-of-type(n)", "12", ""},
		"a[href='/x']":                           {},
		"x-app >>> li:nth-of-type(2)":            {},
		"li:nth-of-type(0)":                      {},
		"li:nth-of-type(2n+1)":                   {},
	} {
		card, n, under, ok := cardOf(sel)
		if want == ([3]string{}) {
			if ok {
				t.Errorf("%s: folded as %s %d %s", sel, card, n, under)
			}
			continue
		}
		if !ok || card != want[0] || want[1] != strconv.Itoa(n) || under != want[2] {
			t.Errorf("%s: %q %d %q %v", sel, card, n, under, ok)
		}
	}
}

// A model reading only the JSON, or only the text, finds the "Add to cart"
// button of a folded card (Juicer model 17, the 18th) by the card's
// selector and the labels of its row, and that selector names exactly that
// button in the browser. An explicit max_interactive lists every card.
func TestModelEyeFoldedCards(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/products.html")
	o, raw := observeOK(t, ctx, p, Options{})
	var payload struct {
		Interactive []map[string]any `json:"interactive"`
		Reserved    struct {
			Repeated []Repeat `json:"repeated"`
		} `json:"reserved"`
	}
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	if len(payload.Reserved.Repeated) != 1 || len(payload.Interactive) != 9 {
		t.Fatalf("%d entries, repeated %+v", len(payload.Interactive), payload.Reserved.Repeated)
	}
	r := payload.Reserved.Repeated[0]
	sel := ""
	for i, row := range r.Labels {
		for _, l := range row {
			if l == "Juicer model 17" {
				for k, e := range r.Elements {
					if e.Label == "Add to cart" {
						sel = r.Selector(r.From+i, k)
					}
				}
			}
		}
	}
	checkNames(t, p, "/products.html", "selector "+sel, `document.querySelector(`+jsString(sel)+`)`, "#results > div:nth-child(18) > button")

	text := Render(o)
	line := lineNaming(text, "Juicer model 17", "")
	if !strings.HasPrefix(line, " 18 ") || !strings.Contains(text, "cards #results > div:nth-of-type(n), n 4-30, each: link > a; link > h3 > a; button \"Add to cart\" > button;") {
		t.Errorf("the text does not say the folded card: %q\n%s", line, text)
	}

	all, _ := observeOK(t, ctx, p, Options{MaxInteractive: DefaultMaxInteractive})
	if len(all.Interactive) != 90 || all.Repeated() != nil {
		t.Errorf("max_interactive given: %d entries, repeated %v", len(all.Interactive), all.Repeated())
	}
	back, err := Decode(raw)
	if err != nil || len(back.Repeated()) != 1 || back.Repeated()[0].To != 30 {
		t.Errorf("decoded: %v %v", back.Repeated(), err)
	}
}
