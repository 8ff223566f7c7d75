package locate

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
)

// The page's closed set of reasons and the Go side's are the same set.
func TestReasonsMatchThePage(t *testing.T) {
	m := regexp.MustCompile(`const REASONS = new Set\(\[([^\]]*)\]\)`).FindStringSubmatch(injected.Act)
	if m == nil {
		t.Fatal("find.js declares no REASONS set")
	}
	var page []string
	for _, q := range regexp.MustCompile(`'([a-z_]+)'`).FindAllStringSubmatch(m[1], -1) {
		page = append(page, q[1])
	}
	var ours []string
	for r := range reasonWords {
		ours = append(ours, r)
	}
	slices.Sort(page)
	slices.Sort(ours)
	if !slices.Equal(page, ours) {
		t.Fatalf("page reasons %v, Go reasons %v", page, ours)
	}
}

// Every refusal maps to an error with its code, its reason as the fact, a
// hint, and the detail in the message; an unknown reason is the engine's bug.
func TestRefusalErr(t *testing.T) {
	e := Refusal{Code: errs.NotActionable, Reason: ReasonCovered, Detail: "<div#cookie>"}.Err(`css "#b"`)
	if e.Code != errs.NotActionable || e.Fact != ReasonCovered || e.Message != `css "#b": covered by <div#cookie>` || e.Hint == "" {
		t.Fatalf("covered: %+v", e)
	}
	for r := range reasonWords {
		e := Refusal{Code: errs.NotActionable, Reason: r}.Err("")
		if strings.Contains(e.Message, "%!") || e.Fact != r {
			t.Errorf("%s: %+v", r, e)
		}
	}
	if e := (Refusal{Code: errs.NotActionable, Reason: "gone_fishing"}).Err(""); e.Code != errs.Internal {
		t.Fatalf("unknown reason: %+v", e)
	}
	if e := (Refusal{Code: errs.InvalidInput, Reason: ReasonBadSelector, Detail: "bad"}).Err(""); e.Path != "selector" {
		t.Fatalf("bad selector: %+v", e)
	}
}
