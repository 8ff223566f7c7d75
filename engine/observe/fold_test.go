package observe

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// bySelector reads an element's card from a selector written with
// :nth-of-type(N) at the card, as the unit tests write them.
func bySelector(e Element) (cardPos, bool) {
	const mark = ":nth-of-type("
	i := strings.Index(e.Selector, mark)
	if i < 0 {
		return cardPos{}, false
	}
	rest := e.Selector[i+len(mark):]
	j := strings.IndexByte(rest, ')')
	if j <= 0 {
		return cardPos{}, false
	}
	n, err := strconv.Atoi(rest[:j])
	if err != nil || n < 1 || strconv.Itoa(n) != rest[:j] {
		return cardPos{}, false
	}
	under, spaced := strings.CutPrefix(rest[j+1:], " ")
	if (under == "") != (rest[j+1:] == "") || (under != "" && !spaced) {
		return cardPos{}, false // "li:nth-of-type(2) " or "li:nth-of-type(2)0" is no card's selector
	}
	return cardPos{Card: e.Selector[:i] + mark + "n)", N: n, Under: under}, true
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
	if len(payload.Reserved.Repeated) != 1 || len(payload.Interactive) != 2 {
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
	// Cards of one label each are ten to a line: 18 is the seventh of 12-21.
	if !strings.HasPrefix(line, " 12-21: ") || !strings.Contains(line, `"Mixer model 15" "Grinder model 16" "Juicer model 17"`) || !strings.Contains(text, "cards #results > div:nth-of-type(n), n 2-30, each: link h3 > a; button \"Add to cart\" button;") {
		t.Errorf("the text does not say the folded card: %q\n%s", line, text)
	}

	all, _ := observeOK(t, ctx, p, Options{MaxInteractive: DefaultMaxInteractive})
	if len(all.Interactive) != 60 || all.Repeated() != nil {
		t.Errorf("max_interactive given: %d entries, repeated %v", len(all.Interactive), all.Repeated())
	}
	back, err := Decode(raw)
	if err != nil || len(back.Repeated()) != 1 || back.Repeated()[0].To != 30 {
		t.Errorf("decoded: %v %v", back.Repeated(), err)
	}
}

// A short run of cards stays listed: 8 cards of one button would fold 7.
func TestFoldLeavesShortRuns(t *testing.T) {
	var es Elements
	for n := 1; n <= 8; n++ {
		es = append(es, Element{Ref: "e" + strconv.Itoa(n), Selector: "ul > li:nth-of-type(" + strconv.Itoa(n) + ") > button", Role: "button", Label: "Delete"})
	}
	if listed, reps := fold(es, bySelector); len(listed) != 8 || reps != nil {
		t.Errorf("8 one-button cards: %d listed, %+v", len(listed), reps)
	}
	for n := 9; n <= 18; n++ {
		es = append(es, Element{Ref: "e" + strconv.Itoa(n), Selector: "ul > li:nth-of-type(" + strconv.Itoa(n) + ") > button", Role: "button", Label: "Delete"})
	}
	if listed, reps := fold(es, bySelector); len(listed) != 1 || len(reps) != 1 || reps[0].From != 2 || reps[0].To != 18 || reps[0].Elements[0].Label != "Delete" {
		t.Errorf("18 one-button cards: %d listed, %+v", len(listed), reps)
	}
}

// Cards fold by their common core: one adds a row of links, one omits its
// button, and the elements not in every card say which cards have them.
// A card that shares nothing with the run ends it.
func TestFoldToleratesOptionalParts(t *testing.T) {
	var es Elements
	add := func(n int, under, role, label string) {
		es = append(es, Element{Ref: "e" + strconv.Itoa(len(es)+1), Selector: "#r > div:nth-of-type(" + strconv.Itoa(n) + ") " + under, Role: role, Label: label})
	}
	for n := 1; n <= 10; n++ {
		add(n, "a.title", "link", "Result "+strconv.Itoa(n))
		if n == 3 || n == 6 {
			add(n, "div > a:nth-of-type(1)", "link", "FAQ")
		}
		if n != 8 {
			add(n, "button", "button", "More")
		}
	}
	add(11, "input", "textbox", "Feedback")
	listed, reps := fold(es, bySelector)
	if len(reps) != 1 || len(listed) != 3 {
		t.Fatalf("%d listed, %+v", len(listed), reps)
	}
	r := reps[0]
	want := []RepeatElement{
		{Selector: "a.title", Role: "link"},
		{Selector: "div > a:nth-of-type(1)", Role: "link", Label: "FAQ", In: []int{3, 6}},
		{Selector: "button", Role: "button", Label: "More", In: []int{2, 3, 4, 5, 6, 7, 9, 10}},
	}
	if r.From != 2 || r.To != 10 || !reflect.DeepEqual(r.Elements, want) || r.Count() != 19 || r.Has(8, 2) || !r.Has(6, 1) {
		t.Fatalf("repeat %+v", r)
	}
	if r.Labels[1][0] != "Result 3" || listed[2].Label != "Feedback" {
		t.Errorf("labels %v, last listed %+v", r.Labels, listed[2])
	}
	text := Render(&Observation{Reserved: map[string]any{ReservedRepeated: reps}})
	if !strings.Contains(text, `link "FAQ" div > a:nth-of-type(1) (only n 3,6); button "More" button (only n 2-7,9,10);`) {
		t.Errorf("text: %s", text)
	}
}

// Folding never loses an element: each one is listed, or said by a Repeat
// whose card selector, index and element give back its selector and label.
func FuzzFold(f *testing.F) {
	f.Add("ul > li:nth-of-type(1) > a|link|A\nul > li:nth-of-type(2) > a|link|B", 7)
	f.Add("#r > div:nth-of-type(1)|button|Go\n#r > div:nth-of-type(1) > a|link|x", 8)
	f.Add("ol > li:nth-of-type(#) > a|link|T#\nol > li:nth-of-type(1) > b|button|Only one\nol > li:nth-of-type(#) > i|link|x", 9)
	f.Fuzz(func(t *testing.T, spec string, copies int) {
		var es Elements
		for i := 0; i < min(max(copies, 1), 12); i++ {
			for _, line := range strings.Split(spec, "\n") {
				parts := append(strings.SplitN(line, "|", 3), "", "")
				sel := strings.ReplaceAll(parts[0], "#", strconv.Itoa(i+1))
				es = append(es, Element{Ref: "e" + strconv.Itoa(len(es)+1), Selector: sel, Role: parts[1], Label: parts[2]})
			}
		}
		listed, reps := fold(es, bySelector)
		have := map[string]bool{}
		for _, e := range listed {
			have[e.Selector+"\x00"+e.Label] = true
		}
		for _, r := range reps {
			for c, row := range r.Labels {
				l := 0
				for k, el := range r.Elements {
					if !r.Has(r.From+c, k) {
						continue
					}
					label := el.Label
					if label == "" && l < len(row) {
						label, l = row[l], l+1
					}
					have[r.Selector(r.From+c, k)+"\x00"+label] = true
				}
			}
		}
		if len(reps) == 0 && len(listed) != len(es) {
			t.Fatalf("%d of %d listed, nothing folded", len(listed), len(es))
		}
		for _, e := range es {
			if !have[e.Selector+"\x00"+e.Label] {
				t.Fatalf("%q %q lost: %+v %+v", e.Selector, e.Label, listed, reps)
			}
		}
	})
}
