package tabs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
)

// popupSite serves a page whose button opens n popups in one click.
func popupSite(t *testing.T, n int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Opener</title><button onclick="for (let i = 0; i < %d; i++) window.open('about:blank#' + i)">flood</button>`, n)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// rawPagesSettleAt waits until the browser itself (not Tabs, which hides
// popups being closed) lists want pages besides the spare tab (spare.go).
func rawPagesSettleAt(t *testing.T, ctx context.Context, tab *Tab, want int) {
	t.Helper()
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		n := len(rawPages(t, ctx, tab.profile))
		if n == want {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the browser lists %d pages besides the spare, want %d", n, want)
		case <-time.After(wait):
		}
	}
}

// A page that opens 60 windows in one click keeps the bound's 5: the rest
// are closed at once, never listed, and the opener's log says so in a few
// entries, not 55. (The 500 took minutes on a loaded machine;
// 60 against 5 walks the same path.)
func TestPopupsOverTheBoundAreClosed(t *testing.T) {
	t.Parallel()
	const flood, bound = 60, 5
	srv := popupSite(t, flood)
	m, err := New(Options{MaxPopups: bound})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	opened, _, err := m.OpenAndLoad(ctx, OpenOptions{Owner: "s", URL: srv.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	tab := opened.Tab
	before, err := m.Tabs(ctx, "s", "")
	if err != nil {
		t.Fatal(err)
	}
	// window.open makes its window before it returns: all of them exist once the click is done.
	if err := tab.Eval(ctx, `document.querySelector("button").click()`, nil); err != nil {
		t.Fatal(err)
	}
	list, err := m.Tabs(ctx, "s", "")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, info := range list {
		if info.OpenerID == string(tab.TargetID) {
			listed[info.TabID] = true
		}
	}
	if len(list) != len(before)+bound || len(listed) != bound {
		t.Fatalf("discover lists %d tabs (%d popups of the opener), want %d (%d popups)", len(list), len(listed), len(before)+bound, bound)
	}

	logged := tab.Logs(LogQuery{Kinds: []string{LogNavigation}})
	opens, closed, closedEntries := 0, 0, 0
	for _, e := range logged.Entries {
		switch e.Type {
		case PopupOpened:
			opens++
			if !listed[e.TabID] {
				t.Errorf("the log names popup %q, which discover does not list", e.TabID)
			}
		case PopupClosed:
			closedEntries++
			closed += e.Count
		}
	}
	if opens != bound || closed != flood-bound {
		t.Errorf("the log tells of %d popups opened and %d closed, want %d and %d: %+v", opens, closed, bound, flood-bound, logged.Entries)
	}
	if closedEntries != 1 {
		t.Errorf("%d entries tell of the closed popups; unread, they add up in one", closedEntries)
	}
	rawPagesSettleAt(t, ctx, tab, len(before)+bound)
}

// A session's end closes the tabs it opened and their popups, the popups'
// popups too; a tab it only claimed keeps its popups.
func TestEndSessionClosesPopups(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	theirs, err := m.Open(ctx, OpenOptions{Owner: "user", URL: "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	claimed, err := m.Claim(ctx, ClaimOptions{Owner: "s", TabID: theirs.TabID})
	if err != nil {
		t.Fatal(err)
	}
	if err := claimed.Eval(ctx, `!!window.open("about:blank#theirs")`, nil); err != nil {
		t.Fatal(err)
	}
	before, err := m.Tabs(ctx, "s", "")
	if err != nil {
		t.Fatal(err)
	}
	mine, err := m.Open(ctx, OpenOptions{Owner: "s", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	// a popup, and a popup that popup opened
	if err := mine.Tab.Eval(ctx, `(() => { window.open("about:blank#one"); const w = window.open("about:blank#two"); return !!w.open("about:blank#grandchild") })()`, nil); err != nil {
		t.Fatal(err)
	}
	list, err := m.Tabs(ctx, "s", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(before)+4 {
		t.Fatalf("discover lists %d tabs, want %d: %+v", len(list), len(before)+4, list)
	}
	m.EndSession(ctx, "s")
	rawPagesSettleAt(t, ctx, claimed, len(before))
	tree, err := listTargets(ctx, claimed.sess.Conn().Browser())
	if err != nil {
		t.Fatal(err)
	}
	if tree.pages[target.ID(theirs.TabID)] == nil {
		t.Error("the claimed tab was closed")
	}
}

func TestPopupBound(t *testing.T) {
	for set, want := range map[int]int{0: DefaultMaxPopups, NoPopups: 0, 7: 7, MaxPopupsLimit + 1: MaxPopupsLimit} {
		if got := (&Manager{opt: Options{MaxPopups: set}}).popupBound(); got != want {
			t.Errorf("MaxPopups %d: bound %d, want %d", set, got, want)
		}
	}
}

// rawPages lists the pages the browser of p has, the spare tab left out.
func rawPages(t *testing.T, ctx context.Context, p *profile) []target.ID {
	t.Helper()
	p.mu.Lock()
	browser := p.conn.Browser()
	p.mu.Unlock()
	tree, err := listTargets(ctx, browser)
	if err != nil {
		t.Fatal(err)
	}
	var out []target.ID
	for _, ti := range tree.order {
		if !p.isSpare(ti.TargetID) {
			out = append(out, ti.TargetID)
		}
	}
	return out
}
