package tabs

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/launch"
)

// toolsPage offers tools every way a page can: by script (one that
// answers, one that throws, one that never answers, one removed on
// request, one added on request) and as forms (one a person submits, one
// the browser submits and the page answers).
const toolsPage = `<!doctype html><title>Tools</title>
<form id="book" toolname="book" tooldescription="Book a table" action="/booked">
  <input name="party" required><button>Book</button></form>
<form id="find" toolname="find" tooldescription="Find a dish" toolautosubmit>
  <input name="q"><button>Find</button></form>
<script>
const mc = document.modelContext;
document.getElementById('find').addEventListener('submit', e => {
  e.preventDefault();
  e.respondWith(Promise.resolve({found: e.target.q.value}));
});
mc.registerTool({name: 'add', description: 'Add two numbers',
  inputSchema: {type: 'object', properties: {a: {type: 'number'}, b: {type: 'number'}}, required: ['a', 'b']},
  execute: ({a, b}) => ({content: [{type: 'text', text: String(a + b)}]})});
mc.registerTool({name: 'boom', description: 'Always fails', execute: () => { throw new Error('kaboom'); }});
mc.registerTool({name: 'hang', description: 'Never answers',
  execute: (input, client) => new Promise(() => {
    // Told when the caller gave up: says so the only way we can see.
    client.signal.addEventListener('abort', () => mc.registerTool({name: 'hang_cancelled', description: 'x', execute: () => ''}));
  })});
const temp = new AbortController();
mc.registerTool({name: 'temp', description: 'Removed on request', execute: () => 'temp'}, {signal: temp.signal});
window.removeTemp = () => temp.abort();
window.addLater = () => mc.registerTool({name: 'later', description: 'Added after load', execute: () => 'late'});
</script>`

func toolsSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/tools", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(toolsPage))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<title>Plain</title><p>No tools here</p>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// waitTools waits, on the tab's events, until the tools named are offered
// and those with a "-" prefix are not.
func waitTools(t *testing.T, ctx context.Context, tab *Tab, want ...string) {
	t.Helper()
	err := tab.waitFor(ctx, func(p *pageState) bool {
		have := map[string]bool{}
		for _, tl := range p.tools.list {
			have[tl.Name] = true
		}
		for _, w := range want {
			if gone, ok := strings.CutPrefix(w, "-"); ok && have[gone] || !ok && !have[w] {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatalf("waiting for tools %v: %v; have %v", want, err, toolNames(tab.PageTools()))
	}
}

func toolNames(list []PageTool) []string {
	var out []string
	for _, tl := range list {
		out = append(out, tl.Name)
	}
	return out
}

func call(ctx context.Context, tab *Tab, name, input string) (*PageToolResult, error) {
	var res *PageToolResult
	err := tab.Do(ctx, func(ctx context.Context) (err error) {
		res, err = tab.CallPageTool(ctx, name, json.RawMessage(input))
		return err
	})
	return res, err
}

func TestPageTools(t *testing.T) {
	t.Parallel()
	srv := toolsSite(t)
	m := newManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opened, _, err := m.OpenAndLoad(ctx, OpenOptions{Owner: "s1", URL: srv.URL + "/tools", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := opened.Tab
	waitTools(t, ctx, tab, "book", "find", "add", "boom", "hang", "temp")
	tools := tab.PageTools()
	var add, book PageTool
	for _, tl := range tools {
		switch tl.Name {
		case "add":
			add = tl
		case "book":
			book = tl
		}
	}
	if add.Description != "Add two numbers" || !strings.Contains(string(add.InputSchema), `"required":["a","b"]`) || add.Form {
		t.Errorf("script tool: %+v", add)
	}
	if !book.Form || book.AutoSubmit || !strings.Contains(string(book.InputSchema), `"party"`) {
		t.Errorf("form tool: %+v", book)
	}

	t.Run("answers", func(t *testing.T) {
		res, err := call(ctx, tab, "add", `{"a": 2, "b": 3}`)
		if err != nil || res.Status != PageToolCompleted || res.Text != "5" || !strings.Contains(string(res.Output), `"content"`) {
			t.Fatalf("add: %+v %v", res, err)
		}
	})
	t.Run("input checked against the schema first", func(t *testing.T) {
		before := tab.RoundTrips()
		_, err := call(ctx, tab, "add", `{"a": "two"}`)
		e := errs.As(err)
		if e.Code != errs.InvalidInput || e.Path != "input" || !strings.Contains(e.Hint, `"required":["a","b"]`) {
			t.Fatalf("bad input: %v", err)
		}
		if n := tab.RoundTrips() - before; n != 0 {
			t.Errorf("bad input reached the browser: %d commands", n)
		}
		if _, err := call(ctx, tab, "add", `[1, 2]`); errs.Code(err) != errs.InvalidInput {
			t.Fatalf("an array as input: %v", err)
		}
	})
	t.Run("a tool that throws", func(t *testing.T) {
		_, err := call(ctx, tab, "boom", ``)
		if e := errs.As(err); e.Code != errs.ScriptError || !strings.Contains(e.Message, "Error: kaboom") || strings.Contains(e.Message, "at execute") {
			t.Fatalf("boom: %v", err)
		}
	})
	t.Run("a form tool the browser submits", func(t *testing.T) {
		res, err := call(ctx, tab, "find", `{"q": "soup"}`)
		if err != nil || res.Status != PageToolCompleted || string(res.Output) != `{"found":"soup"}` {
			t.Fatalf("find: %+v %v", res, err)
		}
	})
	t.Run("a form tool a person must submit", func(t *testing.T) {
		if _, err := call(ctx, tab, "book", `{}`); errs.Code(err) != errs.InvalidInput {
			t.Fatalf("book without its required field: %v", err)
		}
		res, err := call(ctx, tab, "book", `{"party": "4"}`)
		if err != nil || res.Status != PageToolAwaitingUser || !res.Form {
			t.Fatalf("book: %+v %v", res, err)
		}
		var party string
		if err := tab.Eval(ctx, `document.querySelector('#book [name=party]').value`, &party); err != nil || party != "4" {
			t.Fatalf("the form was not filled: %q %v", party, err)
		}
		if tab.URL() != srv.URL+"/tools" {
			t.Fatalf("the form was submitted: %s", tab.URL())
		}
	})
	t.Run("a tool that never answers", func(t *testing.T) {
		short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancelShort()
		_, err := call(short, tab, "hang", `{}`)
		if e := errs.As(err); e.Code != errs.Timeout || !strings.Contains(e.Message, `"hang"`) {
			t.Fatalf("hang: %v", err)
		}
		waitTools(t, ctx, tab, "hang_cancelled") // the page was told
		if res, err := call(ctx, tab, "add", `{"a": 1, "b": 1}`); err != nil || res.Text != "2" {
			t.Fatalf("the tab after a timeout: %+v %v", res, err)
		}
	})
	t.Run("added after load, and removed", func(t *testing.T) {
		if _, err := tab.Evaluate(ctx, Evaluation{Expression: "addLater(); removeTemp()"}); err != nil {
			t.Fatal(err)
		}
		waitTools(t, ctx, tab, "later", "-temp")
		if res, err := call(ctx, tab, "later", `{}`); err != nil || res.Text != "late" || string(res.Output) != `"late"` {
			t.Fatalf("later: %+v %v", res, err)
		}
		_, err := call(ctx, tab, "temp", `{}`)
		if e := errs.As(err); e.Code != errs.NotFound || !strings.Contains(e.Message, "its tools: ") || !strings.Contains(e.Message, "later") {
			t.Fatalf("a removed tool: %v", err)
		}
	})
	t.Run("a page without tools", func(t *testing.T) {
		if _, err := tab.Navigate(ctx, Navigation{URL: srv.URL + "/plain"}); err != nil {
			t.Fatal(err)
		}
		if got := tab.PageTools(); len(got) != 0 {
			t.Fatalf("tools of the last document kept: %v", toolNames(got))
		}
		_, err := call(ctx, tab, "add", `{"a": 1, "b": 1}`)
		if e := errs.As(err); e.Code != errs.NotFound || !strings.Contains(e.Message, "offers no tools") {
			t.Fatalf("plain page: %v", err)
		}
		if got := m.Browsers()[0].PageTools; got != pageToolsAvailable {
			t.Errorf("browser's page_tools: %q", got)
		}
	})
}

// A browser whose WebMCP is off lists no tools, and a call says why.
func TestPageToolsWithoutWebMCP(t *testing.T) {
	t.Parallel()
	srv := toolsSite(t)
	// The last --enable-features wins: this one leaves WebMCP out.
	m, err := New(Options{Launch: launch.Options{Args: []string{"--enable-features=NoSuchFeature"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opened, _, err := m.OpenAndLoad(ctx, OpenOptions{Owner: "s1", URL: srv.URL + "/tools", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := opened.Tab
	var registered bool
	if err := tab.Eval(ctx, `'modelContext' in document`, &registered); err != nil || registered {
		t.Fatalf("WebMCP is on: %v %v", registered, err)
	}
	if got := tab.PageTools(); len(got) != 0 {
		t.Fatalf("tools listed: %v", toolNames(got))
	}
	_, err = call(ctx, tab, "add", `{"a": 1, "b": 1}`)
	if e := errs.As(err); e.Code != errs.Unsupported || e.Fact != FactNoWebMCP || !strings.Contains(e.Hint, "WebMCP") {
		t.Fatalf("call without WebMCP: %v", err)
	}
	if got := m.Browsers()[0].PageTools; got != pageToolsUnavailable {
		t.Errorf("browser's page_tools: %q", got)
	}
}
