package injected

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestCallEncodesArguments(t *testing.T) {
	got := Call("setValue", "a\"b\u2028</script>", 3, nil, map[string]int{"n": 1})
	want := `globalThis.__tabwright.setValue("a\"b\u2028\u003c/script\u003e",3,null,{"n":1})`
	if got != want {
		t.Fatalf("Call = %s, want %s", got, want)
	}
	if got := Call("frameInfo"); got != "globalThis.__tabwright.frameInfo()" {
		t.Fatalf("Call without arguments = %s", got)
	}
	if got := Call("scrollStep", math.NaN()); !strings.Contains(got, "throw new Error") {
		t.Fatalf("an unencodable argument must throw in the page, got %s", got)
	}
}

// world answers like a page's isolated world: the guard misses until the
// program (which sets the bundle's mark) was evaluated once.
type world struct {
	installed bool
	sends     []string
}

func (w *world) eval(_ context.Context, expr string) (json.RawMessage, error) {
	w.sends = append(w.sends, expr)
	if strings.HasPrefix(expr, "(globalThis.__tabwright?.marks") && !w.installed {
		return json.RawMessage(notInstalledJSON), nil
	}
	w.installed = true
	return json.RawMessage(`42`), nil
}

func TestRunRoundTrips(t *testing.T) {
	b := NewBundle(Act)
	call := func() string { return Call("frameInfo") }
	cases := []struct {
		name      string
		installed bool
		sends     int
	}{
		{"installed (a new document's world): guard only", true, 1},
		{"a world without the bundle: guard, then program", false, 2},
	}
	for _, c := range cases {
		w := &world{installed: c.installed}
		raw, err := b.Run(context.Background(), w.eval, call)
		if err != nil || string(raw) != "42" {
			t.Fatalf("%s: Run = %s, %v", c.name, raw, err)
		}
		if len(w.sends) != c.sends {
			t.Fatalf("%s: %d sends, want %d", c.name, len(w.sends), c.sends)
		}
		if last := w.sends[len(w.sends)-1]; !strings.Contains(last, call()) {
			t.Fatalf("%s: the last send does not carry the call: %.80s", c.name, last)
		}
	}
}

// NewDocument installs and marks both bundles: a world that ran it passes
// either bundle's guard.
func TestNewDocumentMarksBothBundles(t *testing.T) {
	src := NewDocument()
	for name, b := range map[string]*Bundle{"Actions": Actions(), "Extractors": Extractors()} {
		if !strings.Contains(src, b.prefix) {
			t.Errorf("NewDocument does not install %s", name)
		}
	}
}
