package observe

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Repeated cards (product tiles, search results, list items) list the same
// few elements again and again. Listed one by one, 30 cards of 3 elements
// cost about 9,000 characters. The page-side extractor finds cards by shape
// (at least 6 siblings of one tag and class, whatever their hrefs or ids)
// and says where each element sits (cardPos). By default the first
// foldKeep cards of a run stay in interactive as they are; the rest are
// said once as a Repeat in reserved.repeated: the card selector with n for
// the index, each element's role and path under the card, per card the
// labels that differ, and how to list them. A run of lone links or buttons
// folds the same way (each is its own card). Every element stays reachable
// by its selector (the card's with n filled in, then the path); scope on
// one card, or any max_interactive, lists them with refs. Options.Rows
// folds nothing: its rows already write each element compactly.

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
	// Elements are each card's elements, in order: the selector under the
	// card ("" for the card itself) and the role; a label here is every
	// folded card's.
	Elements []RepeatElement `json:"elements"`
	// Labels are, per folded card, the labels of the elements that have
	// none in Elements, in their order.
	Labels [][]string `json:"labels"`
	// List says how to get the folded elements with their refs.
	List string `json:"list"`
}

// RepeatElement is one element of each card of a Repeat.
type RepeatElement struct {
	Selector string `json:"selector"`
	Role     string `json:"role"`
	Label    string `json:"label,omitempty"`
}

// cardPos is where the page found an element: in card N of a run of
// like siblings (Card, the cards' selector with n for the index), at the
// path Under below it ("" for the card itself). The page-side extractor
// finds cards by shape (tag and class of siblings), whatever their hrefs
// or ids, and writes Under with tags alone.
type cardPos struct {
	Card  string `json:"card"`
	N     int    `json:"n"`
	Under string `json:"under"`
}

// positions says where each element is, when it is in a card.
type positions func(Element) (cardPos, bool)

// card is one card of a run: its index and the range of its elements.
type card struct{ n, from, to int }

// fold takes runs of at least foldMin cards of the same shape out of es,
// the first foldKeep of each kept, and says them as Repeats.
func fold(es Elements, at positions) (Elements, []Repeat) {
	var out Elements
	var reps []Repeat
	for i := 0; i < len(es); {
		cards := cardsFrom(es, i, at)
		if len(cards) < foldMin || (len(cards)-foldKeep)*(cards[0].to-cards[0].from) < foldMinElements {
			out = append(out, es[i])
			i++
			continue
		}
		last := cards[len(cards)-1]
		out = append(out, es[i:cards[foldKeep].from]...)
		reps = append(reps, repeatOf(es, cards[foldKeep:], at))
		i = last.to
	}
	return out, reps
}

// cardsFrom is the run of cards that starts at es[i]: consecutive indexes,
// each card's elements plain, unframed, and of the first card's shape.
func cardsFrom(es Elements, i int, at positions) []card {
	first, ok := at(es[i])
	if !ok || !foldable(es[i]) {
		return nil
	}
	var cards []card
	var shape []string
	for j, n := i, first.N; j < len(es); {
		c := card{n: n, from: j}
		for c.to = j; c.to < len(es); c.to++ {
			p, ok := at(es[c.to])
			if !ok || p.Card != first.Card || p.N != n || !foldable(es[c.to]) {
				break
			}
			if shape != nil && (c.to-j >= len(shape) || shape[c.to-j] != es[c.to].Role+" "+p.Under) {
				return cards
			}
		}
		if c.to == j {
			break
		}
		if shape == nil {
			for k := j; k < c.to; k++ {
				p, _ := at(es[k])
				shape = append(shape, es[k].Role+" "+p.Under)
			}
		} else if c.to-j != len(shape) {
			break
		}
		cards = append(cards, c)
		j, n = c.to, n+1
	}
	return cards
}

// foldable: nothing but ref, selector, role, label and href, in the page.
func foldable(e Element) bool {
	return e.Frame == nil && plain(e)
}

// repeatOf says cards as one Repeat: labels every card shares go in its
// Elements, the others in each card's row.
func repeatOf(es Elements, cards []card, at positions) Repeat {
	first := cards[0]
	r := Repeat{From: first.n, To: cards[len(cards)-1].n}
	shared := make([]bool, first.to-first.from)
	for k := range shared {
		e := es[first.from+k]
		p, _ := at(e)
		r.Card = p.Card
		r.List = "scope on one card (" + r.Selector(r.From, -1) + "), or give max_interactive, to list with refs"
		r.Elements = append(r.Elements, RepeatElement{Selector: p.Under, Role: e.Role})
		shared[k] = true
		for _, c := range cards {
			shared[k] = shared[k] && es[c.from+k].Label == e.Label
		}
		if shared[k] {
			r.Elements[k].Label = e.Label
		}
	}
	for _, c := range cards {
		row := []string{}
		for k, s := range shared {
			if !s {
				row = append(row, es[c.from+k].Label)
			}
		}
		r.Labels = append(r.Labels, row)
	}
	return r
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

// Selector is the selector of element k of card n (k < 0: the card).
func (r Repeat) Selector(n, k int) string {
	s := strings.TrimSuffix(r.Card, "(n)") + "(" + strconv.Itoa(n) + ")"
	if k >= 0 && k < len(r.Elements) && r.Elements[k].Selector != "" {
		s += " " + r.Elements[k].Selector
	}
	return s
}
