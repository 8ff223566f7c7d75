package tabs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

const plantedToken = "Bearer s3cr3t-token-XYZ"
const plantedCookie = "c00kie-value-QRS"

// echoed is ordinary page text: the engine reports it as the page gave it
// (configured secrets are the MCP server's to hide, in every result).
const echoed = "hunter2-configured"

func logSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: plantedCookie})
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"ok":true,"echo":%q}`, echoed)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Logs</title><script>
document.cookie = "sid=%s";
console.log("hello", 42, {a: 1});
console.warn("careful");
console.error("the secret is %s");
fetch("/api", {headers: {Authorization: %q}}).then(r => r.text());
fetch("http://127.0.0.1:1/refused").catch(() => {});
setTimeout(() => { null.boom; }, 0);
</script>`, plantedCookie, echoed, plantedToken)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestLogs(t *testing.T) {
	t.Parallel()
	srv := logSite(t)
	m, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opened, err := m.Open(ctx, OpenOptions{Owner: "s", URL: srv.URL + "/", Active: true, Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := opened.Tab
	var page LogPage
	// Every entry the checks below count, the browser's own console line
	// about the refused port too: it comes after the request's failure, so
	// waiting for that alone left it to land after the cursor (seen in a
	// loaded soak run: one entry past the cursor, 51 lost for 50).
	waitLogged(t, ctx, tab, func() bool {
		page = tab.Logs(LogQuery{})
		return hasEntry(page, LogError, "") && hasEntry(page, LogNetwork, "/api") && hasEntry(page, LogNetwork, "refused") &&
			hasEntry(page, LogConsole, "hello 42") && hasEntry(page, LogConsole, "careful") &&
			hasEntry(page, LogConsole, "the secret is") && hasEntry(page, LogConsole, "net::ERR_")
	})
	all, _ := json.Marshal(page)
	for _, secret := range []string{"s3cr3t-token", plantedCookie} {
		if strings.Contains(string(all), secret) {
			t.Fatalf("%q shows in the log: %s", secret, all)
		}
	}
	find := func(kind, url string) LogEntry {
		for _, e := range page.Entries {
			if e.Kind == kind && strings.Contains(e.URL+e.Text, url) {
				return e
			}
		}
		t.Fatalf("no %s entry with %q in %s", kind, url, all)
		return LogEntry{}
	}
	if e := find(LogConsole, "hello 42"); e.Level != "info" || !strings.Contains(e.Source, srv.URL) || e.Text != "hello 42 Object" {
		t.Errorf("console.log entry: %+v", e)
	}
	if e := find(LogConsole, "the secret is "+echoed); e.Level != "error" || len(e.Stack) == 0 {
		t.Errorf("console.error entry: %+v", e)
	}
	if e := find(LogError, "TypeError"); e.Level != "error" || !strings.Contains(e.Text, "Cannot read properties of null") || e.Source == "" {
		t.Errorf("page error entry: %+v", e)
	}
	api := find(LogNetwork, "/api")
	if api.Method != "GET" || api.Status != 200 || api.Type != "Fetch" || api.MIME != "application/json" || api.Bytes <= 0 || api.DurationMS <= 0 {
		t.Errorf("network entry: %+v", api)
	}
	if api.RequestHeaders["Authorization"] != Redacted {
		t.Errorf("request headers: %v", api.RequestHeaders)
	}
	if e := find(LogNetwork, "refused"); !strings.HasPrefix(e.Error, "net::ERR_") || e.Status != 0 {
		t.Errorf("failed request: %+v", e)
	}
	if e := find(LogNavigation, srv.URL); e.Type == "" {
		t.Errorf("navigation: %+v", e)
	}
	body, binary, err := tab.ResponseBody(ctx, api.RequestID)
	if err != nil || binary || body != `{"ok":true,"echo":"`+echoed+`"}` {
		t.Errorf("body %q binary %v: %v", body, binary, err)
	}

	// Cursor and filters.
	last := page.Next
	if next := tab.Logs(LogQuery{AfterSeq: last}); len(next.Entries) != 0 || next.Lost != 0 || next.Next != last {
		t.Errorf("after the cursor: %+v", next)
	}
	// warn, console.error, the exception, the browser on the refused port (in any order)
	if errs := tab.Logs(LogQuery{MinLevel: "warning"}); len(errs.Entries) != 4 || !hasEntry(errs, LogConsole, "net::ERR_") || !hasEntry(errs, LogError, "TypeError") {
		t.Errorf("warning and up: %+v", errs.Entries)
	}
	if one := tab.Logs(LogQuery{Limit: 1}); len(one.Entries) != 1 || !one.More || one.Next != one.Entries[0].Seq {
		t.Errorf("limit 1: %+v", one)
	}

	// Eviction: the oldest entries go, and a cursor before them says so.
	// Subscribers hear an event after the tab's log recorded it.
	consoled := cdproto.Events(ctx, tab.sess, runtime.ConsoleAPICalled)
	if err := tab.Eval(ctx, fmt.Sprintf("(() => { for (let i = 0; i < %d; i++) console.debug('n' + i); return true; })()", LogCapacity+50), nil); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("n%d", LogCapacity+49)
	for _, err := range consoled {
		if err != nil {
			t.Fatalf("the last debug message never arrived: %v", err)
		}
		if hasEntry(tab.Logs(LogQuery{AfterSeq: last}), LogConsole, want) {
			break
		}
	}
	lost := tab.Logs(LogQuery{AfterSeq: last, Limit: 10})
	if lost.Lost != 50 || lost.Entries[0].Text != "n50" {
		t.Fatalf("after eviction: lost %d, first %+v", lost.Lost, lost.Entries[0])
	}
}

// waitLogged re-reads the tab's log after each event the log records until
// done holds. The log records an event before any subscriber hears it, and
// the subscriptions start before the first read, so no entry is missed.
func waitLogged(t *testing.T, ctx context.Context, tab *Tab, done func() bool) {
	t.Helper()
	wake := make(chan struct{}, 1)
	for _, method := range []string{"Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded",
		"Network.requestWillBeSent", "Network.responseReceived", "Network.loadingFinished", "Network.loadingFailed"} {
		events, stop := tab.sess.Subscribe(method)
		defer stop()
		go func() {
			for range events {
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}()
	}
	for !done() {
		select {
		case <-wake:
		case <-ctx.Done():
			t.Fatalf("the log never showed what the test waits for: %v", ctx.Err())
		}
	}
}

func hasEntry(p LogPage, kind, text string) bool {
	for _, e := range p.Entries {
		if e.Kind == kind && strings.Contains(e.URL+e.Text, text) {
			return true
		}
	}
	return false
}
