package tabs

import (
	"context"
	"testing"
	"time"
)

// pagesSettleAt waits until the browser lists want page tabs.
func pagesSettleAt(t *testing.T, ctx context.Context, m *Manager, want int) {
	t.Helper()
	for {
		list, err := m.Tabs(ctx, "s", "")
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == want {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the browser lists %d tabs, want %d", len(list), want)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// A session's end closes the tabs opened for it and leaves those it
// claimed open, released.
func TestEndSessionClosesOpenedTabs(t *testing.T) {
	m := newManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	theirs, err := m.Open(ctx, OpenOptions{Owner: "user", URL: "about:blank"}) // a tab nobody claims: the user's own
	if err != nil {
		t.Fatal(err)
	}
	before, err := m.Tabs(ctx, "s", "")
	if err != nil {
		t.Fatal(err)
	}
	claimed, err := m.Claim(ctx, ClaimOptions{Owner: "s", TabID: theirs.TabID})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := m.Open(ctx, OpenOptions{Owner: "s", URL: "about:blank", Claim: true}); err != nil {
			t.Fatal(err)
		}
	}
	m.EndSession(ctx, "s")
	pagesSettleAt(t, ctx, m, len(before))
	list, _ := m.Tabs(ctx, "other", "")
	listed := false
	for _, tab := range list {
		if tab.TabID == theirs.TabID {
			listed = true
			if tab.Claimed {
				t.Errorf("the claimed tab is still claimed: %+v", tab)
			}
		}
	}
	if !listed {
		t.Error("the claimed tab was closed")
	}
	if _, err := m.Get("s", claimed.Handle()); err == nil {
		t.Error("the ended session's handle still works")
	}
}
