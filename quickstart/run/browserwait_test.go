package run

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/sandbox"
)

// The agent starts its first turn as soon as the sandbox is ready, while
// read_docs' browser is still starting: here the browser's DevTools
// endpoint answers only once the agent has started. A harness that waited
// for the browser first would see that answer only when its own wait gave
// up (the reader's timeout), and the endpoint records how it ended.
func TestAgentDoesNotWaitForTheBrowser(t *testing.T) {
	if ok, why := sandbox.Probe(context.Background()); !ok {
		t.Fatalf("the sandbox backend cannot run here: %s", why)
	}
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	var ended []string // per request: "released" or "given up"
	cdp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(arrived) })
		how := "released"
		select {
		case <-release:
		case <-r.Context().Done():
			how = "given up"
		}
		mu.Lock()
		ended = append(ended, how)
		mu.Unlock()
		http.Error(w, "no browser here", http.StatusServiceUnavailable)
	}))
	m, err := tabs.New(tabs.Options{CDPURL: cdp.URL})
	if err != nil {
		t.Fatal(err)
	}
	// A browser with no gate: the reader opens its tab there (Warm), which
	// is all this test is about, and would render nothing.
	d := &docs.Reader{Browser: &docs.Browser{Manager: m}, Timeout: 10 * time.Second}
	tk := newTask(t, strings.Replace(head, "NAME", "no-wait", 1)+"replay: ['true']\nsuccess:\n  script: 'true'\n")
	started := func() {
		<-arrived // the browser's start is under way, unanswered
		close(release)
	}
	r := Attempt(context.Background(), tk, 1, Options{Docs: d, Backend: sandbox.Isolated, Agent: startAgent{started}})
	cdp.Close() // waits for the requests under way
	m.Close()
	if r.Classification != Passed {
		t.Fatalf("%s: %s", r.Classification, r.Detail)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ended) == 0 || ended[0] != "released" {
		t.Errorf("the browser's start ended %v before the agent started", ended)
	}
}

// startAgent calls started at its start and stops, its work done.
type startAgent struct{ started func() }

func (startAgent) Name() string { return "start" }

func (a startAgent) Run(ctx context.Context, s *agent.Session) agent.Outcome {
	a.started()
	return agent.Outcome{StopReason: agent.StopCompleted}
}
