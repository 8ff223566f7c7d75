package tabs

import (
	"context"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
)

// A page call whose document goes away under it is tried once more in the
// new document; when that one goes away too, the error states the fact
// (FactDocumentLeft), which callers branch on instead of matching the
// browser's words.
func TestEvalInDocumentLeft(t *testing.T) {
	srv := fixture(t)
	m := newManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opened, err := m.Open(ctx, OpenOptions{Owner: "s1", URL: "about:blank", Active: true, Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := opened.Tab
	if _, err := tab.Navigate(ctx, Navigation{URL: srv.URL + "/one"}); err != nil {
		t.Fatal(err)
	}
	// The call reloads its own document and never answers.
	err = tab.EvalIn(ctx, nil, `new Promise(() => location.reload())`, nil)
	if e := errs.As(err); e.Fact != FactDocumentLeft || e.Code != errs.ProtocolError {
		t.Fatalf("got %v (fact %q), want the document-left fact", err, e.Fact)
	}
	var n int
	if err := tab.Eval(ctx, "1 + 1", &n); err != nil || n != 2 {
		t.Fatalf("the tab after: %v %d", err, n)
	}
}
