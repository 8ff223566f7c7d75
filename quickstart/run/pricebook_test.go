package run

import (
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/quickstart/agent"
)

// The shipped book parses, is dated, names a source for every rate, and
// prices the model a bare --agent claude asks for.
func TestBuiltinBook(t *testing.T) {
	b, err := BuiltinBook()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse("2006-01-02", b.AsOf); err != nil || b.Origin != "built-in" {
		t.Fatalf("book %q as of %q", b.Origin, b.AsOf)
	}
	if !strings.Contains(b.String(), "as of "+b.AsOf) {
		t.Errorf("the book's name hides its date: %s", b)
	}
	if _, ok := b.Prices.Rate("", "claude:"+agent.DefaultClaudeModel); !ok {
		t.Errorf("the default claude model %s is not in the built-in book", agent.DefaultClaudeModel)
	}
	for m, r := range b.Prices {
		if r.Input <= 0 || r.Output <= 0 {
			t.Errorf("%s: a zero rate would make a cap never trip: %+v", m, r)
		}
	}
}

func TestParseBookRefuses(t *testing.T) {
	for bad, at := range map[string]string{
		`{"as_of": "2026-13-01", "models": {"m": {"input": 1, "source": "u"}}}`:  "as_of",
		`{"as_of": "2026-12-01", "models": {}}`:                                  "models",
		`{"as_of": "2026-12-01", "models": {"m": {"input": 1}}}`:                 "models.m.source",
		`{"as_of": "2026-12-01", "models": {"m": {"input": 1, "source": 3}}}`:    "models.m.source",
		`{"as_of": "2026-12-01", "models": {"m": {"input": -1, "source": "u"}}}`: "models.m.input",
		`{"as_of": "2026-12-01", "extra": 1, "models": {}}`:                      "",
	} {
		_, _, err := ParseBook("b.json", []byte(bad))
		if err == nil || !strings.HasPrefix(err.Error(), "qs.prices: b.json") || at != "" && !strings.Contains(err.Error(), " at "+at+":") {
			t.Errorf("%s: %v, want it refused at %q", bad, err, at)
		}
	}
}

func FuzzParseBook(f *testing.F) {
	f.Add(builtinBook)
	f.Add([]byte(`{"as_of": "2026-12-01", "models": {"m": {"input": 1, "source": "u", "note": "n"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, asOf, err := ParseBook("f.json", b)
		if err != nil {
			return
		}
		if _, derr := time.Parse("2006-01-02", asOf); derr != nil || len(p) == 0 {
			t.Fatalf("accepted a book with date %q and %d models", asOf, len(p))
		}
		for _, r := range p {
			if r.Input < 0 || r.Output < 0 || r.CacheWrite < 0 || r.CacheRead < 0 {
				t.Fatalf("negative rate accepted: %+v", r)
			}
		}
	})
}
