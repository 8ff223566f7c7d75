package tabs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
)

// An unused managed browser is closed after IdleTimeout, its handles
// reported gone with the reason; calls that keep using it keep it; the
// next call after the close starts a new browser.
func TestIdleTimeoutClosesTheUnusedBrowser(t *testing.T) {
	t.Parallel()
	const idle = 1500 * time.Millisecond
	m, err := New(Options{IdleTimeout: idle})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opened, err := m.Open(ctx, OpenOptions{Owner: "s", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	first := m.profiles[0].managed
	if first == nil {
		t.Fatal("no managed browser after Open")
	}

	// Used every half of the timeout for twice its length: it stays.
	keep := time.Now().Add(2 * idle)
	var lastUse time.Time
	for time.Now().Before(keep) {
		lastUse = time.Now()
		if _, err := m.Get("s", opened.Tab.handle); err != nil {
			t.Fatalf("a browser in use was closed: %v", err)
		}
		select {
		case <-first.Exited():
			t.Fatal("the browser exited while in use")
		case <-time.After(idle / 2):
		}
	}

	// Left alone: it goes, within the timeout and a margin for the close.
	select {
	case <-first.Exited():
	case <-time.After(idle + 10*time.Second):
		t.Fatal("the unused browser still runs")
	}
	if d := time.Since(lastUse); d < idle {
		t.Fatalf("closed %v after the last use, before the %v timeout", d, idle)
	}
	_, err = m.Get("s", opened.Tab.handle)
	if errs.Code(err) != errs.InvalidHandle || !strings.Contains(err.Error(), "--idle-timeout") {
		t.Fatalf("handle after the idle close: %v, want invalid_handle naming --idle-timeout", err)
	}

	again, err := m.Open(ctx, OpenOptions{Owner: "s", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatalf("the call after the idle close: %v", err)
	}
	if second := m.profiles[0].managed; second == nil || second.Pid() == first.Pid() {
		t.Fatal("no new browser after the idle close")
	}
	if _, err := m.Get("s", again.Tab.handle); err != nil {
		t.Fatal(err)
	}
}
