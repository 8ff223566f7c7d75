package observe

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Repeated cards (product tiles, search results, list items) list the same
// few elements again and again. Listed one by one, 30 cards of 3 elements
// cost about 9,000 characters. The page-side extractor finds cards by shape
// (at least 6 siblings of one tag and the class word most of them carry,
// whatever their hrefs, ids or numbered classes) and says where each
// element sits in its card (cardPos), with a path that does not depend on
// the card's optional parts. A run of cards folds when each shares at least
// one element (role and path) with all the others before it: cards that
// add or omit a thumbnail, a rating or a row of links still fold, and the
// elements not in every card say which cards have them. By default the
// first foldKeep cards of a run stay in interactive as they are; the rest
// are said once as a Repeat in reserved.repeated: the card selector with n
// for the index, each element's role and path under the card, per card the
// labels that differ, and how to list them. A run of lone links or buttons
// folds the same way (each is its own card). A run folds only when saying
// it is shorter than listing it. Every element stays reachable by its
// selector (the card's with n filled in, then the path); scope on one card,
// or any max_interactive, lists them with refs. Options.Rows folds nothing:
// its rows already write each element compactly.

// ReservedRepeated is the Reserved key of the []Repeat folded out of
// interactive.
const ReservedRepeated = "repeated"

// Bounds of folding: runs of fewer than foldMin cards, or that would fold
// fewer than foldMinElements elements, stay as they are (a short list costs
// less than the refs it would hide).
const (
	foldMin         = 6
	foldKeep        = 1
	foldMinElements = 8
)

// Repeat is a run of cards folded out of interactive.
type Repeat struct {
	// Card is the cards' selector with "n" for the index (nth-of-type(n)).
	Card string `json:"card"`
	// From and To are the folded cards' indexes (the n), To included.
	From int `json:"from"`
	To   int `json:"to"`
	// Elements are the cards' elements, in order: the selector under the
	// card ("" for the card itself) and the role; a label here is that of
	// every card that has the element; In, when set, lists the cards that
	// have it (the others do not).
	Elements []RepeatElement `json:"elements"`
	// Labels are, per folded card, the labels of the elements it has that
	// have none in Elements, in their order.
	Labels [][]string `json:"labels"`
	// List says how to get the folded elements with their refs.
	List string `json:"list"`
}

// RepeatElement is one element of the cards of a Repeat.
type RepeatElement struct {
	Selector string `json:"selector"`
	Role     string `json:"role"`
	Label    string `json:"label,omitempty"`
	In       []int  `json:"in,omitempty"` // the cards that have it; nil: all
}

// cardPos is where the page found an element: in card N of a run of
// like siblings (Card, the cards' selector with n for the index), at the
// path Under below it ("" for the card itself). Under is the element's
// tag and class word when that is unique in the card, else its parent's
// path and a step (tag, class word or nth-of-type), so like elements of
// like cards have the same Under whatever the parts one card adds.
type cardPos struct {
	Card  string `json:"card"`
	N     int    `json:"n"`
	Under string `json:"under"`
}

// positions says where each element is, when it is in a card.
type positions func(Element) (cardPos, bool)

// card is one card of a run: its index and the range of its elements.
type card struct{ n, from, to int }

// fold takes runs of at least foldMin cards with a common core out of es,
// the first foldKeep of each kept, and says them as Repeats.
func fold(es Elements, at positions) (Elements, []Repeat) {
	var out Elements
	var reps []Repeat
	for i := 0; i < len(es); {
		cards := cardsFrom(es, i, at)
		if r, ok := foldRun(es, cards, at); ok {
			out = append(out, es[i:cards[foldKeep].from]...)
			reps = append(reps, r)
			i = cards[len(cards)-1].to
			continue
		}
		next := i + 1 // an element in no card, or a run too short to fold
		if len(cards) > 0 {
			next = cards[0].to
		}
		out = append(out, es[i:next]...)
		i = next
	}
	return out, reps
}

// foldRun says cards after the first foldKeep as a Repeat when the run is
// long enough and saying it costs fewer characters than listing it.
func foldRun(es Elements, cards []card, at positions) (Repeat, bool) {
	if len(cards) < foldMin {
		return Repeat{}, false
	}
	folded := cards[foldKeep:]
	from, to := folded[0].from, folded[len(folded)-1].to
	if to-from < foldMinElements {
		return Repeat{}, false
	}
	r := repeatOf(es, folded, at)
	said, err1 := json.Marshal(r)
	listed, err2 := json.Marshal(es[from:to])
	if err1 != nil || err2 != nil || len(said) >= len(listed) {
		return Repeat{}, false
	}
	return r, true
}

// cardsFrom is the run of cards that starts at es[i]: consecutive indexes,
// each card's elements plain, unframed and of distinct shapes, and every
// card sharing at least one shape with all the cards before it.
func cardsFrom(es Elements, i int, at positions) []card {
	first, ok := at(es[i])
	if !ok || !foldable(es[i]) {
		return nil
	}
	var cards []card
	var core map[string]bool
	for j, n := i, first.N; j < len(es); n++ {
		c := card{n: n, from: j, to: j}
		shapes := map[string]bool{}
		for ; c.to < len(es); c.to++ {
			p, ok := at(es[c.to])
			if !ok || p.Card != first.Card || p.N != n || !foldable(es[c.to]) || shapes[shapeOf(es[c.to], p)] {
				break
			}
			shapes[shapeOf(es[c.to], p)] = true
		}
		if c.to == j {
			break
		}
		if core != nil {
			for s := range core {
				if !shapes[s] {
					delete(core, s)
				}
			}
			if len(core) == 0 {
				break
			}
		} else {
			core = shapes
		}
		cards = append(cards, c)
		j = c.to
	}
	return cards
}

// shapeOf is what makes two elements of two cards the same element: role
// and path under the card.
func shapeOf(e Element, p cardPos) string { return e.Role + " " + p.Under }

// foldable: nothing but ref, selector, role, label and href, in the page.
func foldable(e Element) bool {
	return e.Frame == nil && plain(e)
}

// repeatOf says cards as one Repeat: their elements' shapes, in the order
// the cards have them; a label every card with the element shares goes in
// its Elements, the others in each card's row.
func repeatOf(es Elements, cards []card, at positions) Repeat {
	first, _ := at(es[cards[0].from])
	r := Repeat{Card: first.Card, From: cards[0].n, To: cards[len(cards)-1].n}
	r.List = "scope on one card (" + r.Selector(r.From, -1) + "), or give max_interactive, to list with refs"
	var order []string               // shapes, in the cards' order
	have := map[string]map[int]int{} // shape -> card n -> index in es
	for _, c := range cards {
		prev := -1
		for k := c.from; k < c.to; k++ {
			p, _ := at(es[k])
			s := shapeOf(es[k], p)
			idx := slices.Index(order, s)
			if idx < 0 {
				idx = prev + 1
				order = slices.Insert(order, idx, s)
				have[s] = map[int]int{}
				r.Elements = slices.Insert(r.Elements, idx, RepeatElement{Selector: p.Under, Role: es[k].Role})
			}
			have[s][c.n] = k
			prev = idx
		}
	}
	for k, s := range order {
		e := &r.Elements[k]
		e.Label = sharedLabel(es, have[s])
		if len(have[s]) < len(cards) {
			for _, c := range cards {
				if _, ok := have[s][c.n]; ok {
					e.In = append(e.In, c.n)
				}
			}
		}
	}
	for _, c := range cards {
		row := []string{}
		for k, s := range order {
			if i, ok := have[s][c.n]; ok && r.Elements[k].Label == "" {
				row = append(row, es[i].Label)
			}
		}
		r.Labels = append(r.Labels, row)
	}
	return r
}

// sharedLabel is the label all the given elements have, or "" when they
// differ (or have none: an empty label goes in the rows, said as "").
func sharedLabel(es Elements, where map[int]int) string {
	label, first := "", true
	for _, i := range where {
		if first {
			label, first = es[i].Label, false
		} else if es[i].Label != label {
			return ""
		}
	}
	return label
}

// Repeated returns the cards folded out of interactive (see fold), also
// from a decoded observation.
func (o *Observation) Repeated() []Repeat {
	switch v := o.Reserved[ReservedRepeated].(type) {
	case []Repeat:
		return v
	case nil:
		return nil
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		var out []Repeat
		if json.Unmarshal(raw, &out) != nil {
			return nil
		}
		return out
	}
}

// Has reports whether card n has element k.
func (r Repeat) Has(n, k int) bool {
	return k >= 0 && k < len(r.Elements) && n >= r.From && n <= r.To && (r.Elements[k].In == nil || slices.Contains(r.Elements[k].In, n))
}

// Count is how many elements the Repeat folds.
func (r Repeat) Count() int {
	count := 0
	for _, e := range r.Elements {
		if e.In != nil {
			count += len(e.In)
		} else {
			count += r.To - r.From + 1
		}
	}
	return count
}

// Selector is the selector of element k of card n (k < 0: the card).
func (r Repeat) Selector(n, k int) string {
	s := strings.TrimSuffix(r.Card, "(n)") + "(" + strconv.Itoa(n) + ")"
	if k >= 0 && k < len(r.Elements) && r.Elements[k].Selector != "" {
		s += " " + r.Elements[k].Selector
	}
	return s
}
