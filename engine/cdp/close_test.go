package cdp_test

import (
	"context"
	"io"
	"testing"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// goingBrowser is a transport whose browser, as the connection closes,
// says one last thing: that the session detached (as Chromium does when its
// DevTools pipe closes). Close returns only once the connection's reader
// has taken that message and come back for the next, so the message is
// always handled before Close ends.
type goingBrowser struct {
	in      chan []byte   // messages for the reader
	written chan struct{} // a command went out
	reading chan struct{} // the reader asked for a message
	closed  chan struct{}
}

func newGoingBrowser() *goingBrowser {
	return &goingBrowser{in: make(chan []byte, 1), written: make(chan struct{}, 8), reading: make(chan struct{}, 8), closed: make(chan struct{})}
}

func (b *goingBrowser) ReadMessage() ([]byte, error) {
	b.reading <- struct{}{}
	select {
	case m := <-b.in:
		return m, nil
	case <-b.closed:
		return nil, io.EOF
	}
}

func (b *goingBrowser) WriteMessage([]byte) error {
	b.written <- struct{}{}
	return nil
}

func (b *goingBrowser) Close() error {
	// The code before the fix closed the transport twice (Close, then the
	// failure it caused): the second close must not wait for the reader.
	select {
	case <-b.closed:
		return nil
	default:
	}
	<-b.reading // the reader waits for a message
	b.in <- []byte(`{"method":"Target.detachedFromTarget","params":{"sessionId":"S1","targetId":"T1"}}`)
	<-b.reading // … and has handled it
	close(b.closed)
	return nil
}

// A call pending when we close the connection fails as closed
// (browser_unavailable), whatever the browser says while it goes: the
// session's detach it sends then is not the call's reason. Before, Close
// closed the transport first and failed the calls after, so a detach read in
// between failed the call as tab_not_found (TestCloseFailsCalls over the
// pipe, about 1 soak run in 10).
func TestCloseFailsPendingCallsAsClosed(t *testing.T) {
	b := newGoingBrowser()
	conn := cdp.New(b)
	s := conn.SessionByID("S1")
	pending := make(chan error, 1)
	go func() {
		_, err := cdproto.Call(context.Background(), s, browser.GetVersion, cdproto.Empty{})
		pending <- err
	}()
	<-b.written
	conn.Close()
	if err := <-pending; errs.Code(err) != errs.BrowserUnavailable {
		t.Fatalf("pending call at Close: %v, want browser_unavailable", err)
	}
}
