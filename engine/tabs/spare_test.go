package tabs

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/errs"
)

// spareID is the profile's spare tab, "" for none.
func spareID(p *profile) target.ID {
	p.spare.mu.Lock()
	defer p.spare.mu.Unlock()
	return p.spare.id
}

// awaitSpare waits until the profile has a spare other than old.
func awaitSpare(t *testing.T, ctx context.Context, p *profile, old target.ID) target.ID {
	t.Helper()
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		if id := spareID(p); id != "" && id != old {
			return id
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no new spare tab after %s", old)
		case <-time.After(wait):
		}
	}
}

// The headless managed browser keeps a spare tab that is nobody's: a
// listing does not show it, a claim by its id finds no tab, and Open hands
// it out (the first one is the tab the browser started with), then, once
// that tab has loaded its first page, makes another, hidden as well, which
// the next Open gets.
func TestSpareTabIsHiddenUntilOpened(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	list, err := m.Tabs(ctx, "s1", "") // starts the browser
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 0 {
		t.Fatalf("a fresh browser lists %+v, want no tabs", list)
	}
	p := m.profiles[0]
	first := spareID(p)
	if first == "" {
		t.Fatal("the started browser has no spare tab")
	}
	if _, err := m.Claim(ctx, ClaimOptions{Owner: "s1", TabID: string(first)}); errs.As(err).Fact != FactNoTab {
		t.Fatalf("claiming the spare: %v, want the no-tab error", err)
	}

	opened, err := m.Open(ctx, OpenOptions{Owner: "s1", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	if opened.TabID != string(first) {
		t.Fatalf("Open made tab %s, not the spare %s", opened.TabID, first)
	}
	if _, err := opened.Tab.Navigate(ctx, Navigation{URL: "about:blank#first"}); err != nil {
		t.Fatal(err)
	}
	second := awaitSpare(t, ctx, p, first)
	list, err = m.Tabs(ctx, "s2", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].TabID != opened.TabID || list[0].ClaimedBy != "another session" {
		t.Fatalf("another session lists %+v, want only tab %s, claimed", list, opened.TabID)
	}
	if raw := rawPages(t, ctx, p); len(raw) != 1 {
		t.Fatalf("the browser has pages %v besides the spare %s, want only %s", raw, second, opened.TabID)
	}
	if _, err := m.Claim(ctx, ClaimOptions{Owner: "s2", TabID: string(second)}); errs.As(err).Fact != FactNoTab {
		t.Fatalf("claiming the new spare: %v, want the no-tab error", err)
	}

	next, _, err := m.OpenAndLoad(ctx, OpenOptions{Owner: "s2", URL: "about:blank#next"})
	if err != nil {
		t.Fatal(err)
	}
	if next.TabID != string(second) {
		t.Fatalf("the second Open made tab %s, not the new spare %s", next.TabID, second)
	}
	m.EndSession(ctx, "s1")
	awaitSpare(t, ctx, p, second)
	rawPagesSettleAt(t, ctx, next.Tab, 1) // s1's tab closes in its own time
	list, err = m.Tabs(ctx, "s2", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].TabID != next.TabID || list[0].ClaimedBy != "you" {
		t.Fatalf("after s1 ended, s2 lists %+v, want only its tab %s", list, next.TabID)
	}
}

// refills is how many times the profile asked for a new spare.
func refills(p *profile) int { return int(p.spare.refills.Load()) }

// A spare handed out is replaced after the caller's first navigation of
// it, not while that navigation runs: a new spare's renderer starting at
// once took about a third of the CPU a cold first navigation had on two
// cores. A claim that ends before any navigation replaces it then.
func TestSpareRefillWaitsForTheFirstNavigation(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := m.profiles[0]
	opened, err := m.Open(ctx, OpenOptions{Owner: "s", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	first := target.ID(opened.TabID)
	if n := refills(p); n != 0 {
		t.Fatalf("Open asked for %d new spares before its tab navigated, want 0", n)
	}
	if _, err := opened.Tab.Navigate(ctx, Navigation{URL: "about:blank#a"}); err != nil {
		t.Fatal(err)
	}
	if n := refills(p); n != 1 {
		t.Fatalf("after the first navigation: %d new spares asked for, want 1", n)
	}
	second := awaitSpare(t, ctx, p, first)
	if _, err := opened.Tab.Navigate(ctx, Navigation{URL: "about:blank#b"}); err != nil {
		t.Fatal(err)
	}
	if n := refills(p); n != 1 {
		t.Fatalf("a second navigation asked for a spare again: %d, want 1", n)
	}

	// A tab released before it navigated.
	next, err := m.Open(ctx, OpenOptions{Owner: "s", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	if next.TabID != string(second) || refills(p) != 1 {
		t.Fatalf("the second Open got %s (spare %s), %d spares asked for; want the spare and still 1", next.TabID, second, refills(p))
	}
	if err := m.Release(ctx, "s", next.Tab.Handle()); err != nil {
		t.Fatal(err)
	}
	if n := refills(p); n != 2 {
		t.Fatalf("after the release: %d new spares asked for, want 2", n)
	}
	awaitSpare(t, ctx, p, second)
}

// With SingleSpare the tab the browser starts with is the only spare: the
// first Open gets it and nothing replaces it.
func TestSingleSpareIsNotReplaced(t *testing.T) {
	t.Parallel()
	m, err := New(Options{SingleSpare: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := m.Tabs(ctx, "s", ""); err != nil { // starts the browser
		t.Fatal(err)
	}
	p := m.profiles[0]
	first := spareID(p)
	opened, err := m.Open(ctx, OpenOptions{Owner: "s", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	if first == "" || opened.TabID != string(first) {
		t.Fatalf("Open made tab %s, want the startup tab %q", opened.TabID, first)
	}
	if _, err := opened.Tab.Navigate(ctx, Navigation{URL: "about:blank#a"}); err != nil {
		t.Fatal(err)
	}
	if n, id := refills(p), spareID(p); n != 0 || id != "" {
		t.Fatalf("%d new spares asked for, spare %q; want none", n, id)
	}
}

// Prestart starts only a managed browser, never one it would attach to.
func TestPrestartStartsOnlyTheManagedBrowser(t *testing.T) {
	t.Parallel()
	attached, err := New(Options{CDPURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer attached.Close()
	if attached.Prestart() {
		t.Error("Prestart started a launch for a --cdp-url browser")
	}
	withExtension, err := New(Options{Extensions: noExtensions{}})
	if err != nil {
		t.Fatal(err)
	}
	defer withExtension.Close()
	if withExtension.Prestart() {
		t.Error("Prestart started a browser in attach mode")
	}

	m := newManager(t)
	if !m.Prestart() {
		t.Fatal("Prestart did not start the managed browser")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := m.profiles[0]
	// A call waits for the start under way instead of launching a second browser.
	if _, err := m.Tabs(ctx, "s", ""); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	gen := p.gen
	p.mu.Unlock()
	if gen != 1 {
		t.Fatalf("the browser was started %d times, want once", gen)
	}
}

type noExtensions struct{}

func (noExtensions) ExtensionProfiles() []ExtensionProfile { return nil }
