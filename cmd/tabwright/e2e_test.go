package main

// End-to-end tests: the built binary as an MCP server, driven over stdio (and
// streamable HTTP) by the SDK's client, against real Chromium and fixture
// pages on httptest servers.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/internal/procwait"
	"github.com/tabwright/tabwright/mcpserver"
	"github.com/tabwright/tabwright/quickstart/docs"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tabwright-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "tabwright")
	// Built as the release builds what ships (static, stripped, the model
	// SDKs left out), so the tests and benchmarks run those very bytes.
	if err := buildAsReleased(binary, "nomodels"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared := shareDocsBrowser()
	code := m.Run()
	shared.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// shareDocsBrowser has every runQS call of the tests read docs in one
// browser, as the calls of one qs process do, instead of each starting
// Chromium (about 1 CPU-second each); every reader closes its tab.
func shareDocsBrowser() *docs.Browser {
	b, err := docs.NewBrowser()
	if err != nil {
		fmt.Fprintln(os.Stderr, "read_docs' browser:", err)
		os.Exit(1)
	}
	docsBrowser = func() (*docs.Browser, func(), error) { return b, func() {}, nil }
	return b
}

// buildAsReleased builds this command at out with the flags
// scripts/release.sh gives it, so the binary is byte for byte the release
// artifact of releaseTag for this machine's architecture
// (TestReleaseBuildIsReproducible holds the two to that).
func buildAsReleased(out, tags string) error {
	build := exec.Command("go", "build", "-tags", tags, "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -buildid= -X main.version="+releaseTag, "-o", out, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %v\n%s", filepath.Base(out), err, b)
	}
	return nil
}

// fixtures serves the pages the tests navigate to.
func fixtures(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(demoPage)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(20 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<title>Page %s</title><p>Hello from %s</p><button>Go</button>", r.URL.Path, r.URL.Path)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// server is one running `tabwright mcp` process and a client session on it.
type server struct {
	cmd  *exec.Cmd
	sess *mcp.ClientSession
}

// startServer lists every tool (--tools full) unless args name others.
func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	return startServerWith(t, nil, nil, append([]string{"--tools", "full"}, args...)...)
}

// startServerWith runs `tabwright mcp args...` with env added to the
// test's environment, connected by a client with opts (nil for none).
func startServerWith(t testing.TB, env []string, opts *mcp.ClientOptions, args ...string) *server {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"mcp"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, sess: sess}
	serverOf.Store(sess, cmd)
	t.Cleanup(func() { sess.Close(); serverOf.Delete(sess) })
	return s
}

// serverOf maps a client session to the server process it talks to, so a
// call that goes unanswered can have the server show where it stands.
var serverOf sync.Map // *mcp.ClientSession -> *exec.Cmd

// callBound is how long call waits for an answer; past stackDumpAfter a
// server that has not answered prints its goroutines (SIGQUIT: the Go
// runtime writes every stack to stderr, which is the test's, and exits).
// Every call carries a deadline of its own well below both (timeout_ms,
// 30 s by default), so only a server stuck past it is dumped.
const (
	callBound      = 60 * time.Second
	stackDumpAfter = 50 * time.Second
)

// progressServer is startServerWith whose client hands the token of every
// progress notification to the returned channel.
func progressServer(t testing.TB, env []string, args ...string) (*server, <-chan any) {
	t.Helper()
	tokens := make(chan any, 64)
	s := startServerWith(t, env, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case tokens <- req.Params.ProgressToken:
			default: // a test reads only the first few
			}
		},
	}, args...)
	return s, tokens
}

// callInFlight starts the call with a progress token and returns once the
// server reports progress on it, which it does only after the call has run
// for a second (mcpserver's progressEvery): the call is under way, neither
// queued nor answered. The call's result comes on the returned channel.
func callInFlight(t testing.TB, sess *mcp.ClientSession, tokens <-chan any, name string, args map[string]any) <-chan callResult {
	t.Helper()
	token := fmt.Sprintf("%s-%d", name, time.Now().UnixNano())
	done := make(chan callResult, 1)
	go func() {
		res, err := sess.CallTool(context.Background(), progressParams(name, args, token))
		r := callResult{err: err, at: time.Now()}
		if err == nil {
			raw, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(raw, &r.out)
			r.isErr = res.IsError
		}
		done <- r
	}()
	for {
		select {
		case got := <-tokens:
			if got == token {
				return done
			}
		case r := <-done:
			t.Fatalf("%s answered before it reported progress: %+v", name, r)
		}
	}
}

func progressParams(name string, args map[string]any, token string) *mcp.CallToolParams {
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	p.SetProgressToken(token)
	return p
}

// callResult is a call's structured result and when it came.
type callResult struct {
	out   map[string]any
	isErr bool
	err   error
	at    time.Time
}

// call calls a tool and decodes its structured result; isErr reports a tool error.
func call(t testing.TB, sess *mcp.ClientSession, name string, args map[string]any) (out map[string]any, isErr bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	if cmd, ok := serverOf.Load(sess); ok {
		dump := time.AfterFunc(stackDumpAfter, func() {
			// Both sides: a server found idle on its stdin (it happened
			// once, 2026-12-07) points at the client's side of the pipe.
			fmt.Fprintf(os.Stderr, "%s: %s not answered in %v; the client's goroutines, then the server's, follow\n", t.Name(), name, stackDumpAfter)
			pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
			cmd.(*exec.Cmd).Process.Signal(syscall.SIGQUIT)
		})
		defer dump.Stop()
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s: no text content", name)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &out)
	return out, res.IsError
}

func mustCall(t testing.TB, sess *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	out, isErr := call(t, sess, name, args)
	if isErr {
		t.Fatalf("%s(%v) failed: %v", name, args, out)
	}
	return out
}

func errorOf(t testing.TB, out map[string]any, isErr bool) (code, path, msg string) {
	t.Helper()
	if !isErr {
		t.Fatalf("want a tool error, got %v", out)
	}
	e, _ := out["error"].(map[string]any)
	code, _ = e["code"].(string)
	path, _ = e["path"].(string)
	msg, _ = e["message"].(string)
	return
}

func observationSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	s, err := c.Compile("../../schemas/observation.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDiscoverOpenNavigateObserve(t *testing.T) {
	t.Parallel()
	site := fixtures(t)
	s := startServer(t, "--tools", mcpserver.DefaultProfile)
	ctx := context.Background()

	tools, err := s.sess.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if len(tl.Description) < 80 {
			t.Errorf("%s: description too thin for an agent: %q", tl.Name, tl.Description)
		}
	}
	sort.Strings(names)
	// The default profile, less any tool it names that this build lacks.
	core := mcpserver.ProfileTools(mcpserver.DefaultProfile)
	for _, n := range []string{"browser_open_tab", "browser_observe", "browser_click", "browser_fill", "browser_dialog"} {
		if !slices.Contains(names, n) {
			t.Errorf("default tools lack %s: %v", n, names)
		}
	}
	for _, n := range names {
		if !slices.Contains(core, n) {
			t.Errorf("default tools list %s, which the %s profile does not hold", n, mcpserver.DefaultProfile)
		}
	}

	browsers := mustCall(t, s.sess, "browser_discover", map[string]any{"kind": "browsers"})
	list := browsers["browsers"].([]any)
	// The managed browser starts with the server, so it may be up already.
	if len(list) != 1 || list[0].(map[string]any)["browser_id"] != "managed" {
		t.Fatalf("browsers before first use: %v", browsers)
	}

	opened := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/start"})
	handle, _ := opened["tab_handle"].(string)
	if handle == "" || opened["status"] != float64(200) || opened["title"] != "Page /start" {
		t.Fatalf("open: %v", opened)
	}
	tabsOut := mustCall(t, s.sess, "browser_discover", map[string]any{"kind": "tabs"})
	found := false
	for _, tb := range tabsOut["tabs"].([]any) {
		tm := tb.(map[string]any)
		if tm["tab_id"] == opened["tab_id"] {
			found = tm["claimed"] == true && tm["claimed_by"] == "you"
		}
	}
	if !found {
		t.Fatalf("opened tab not listed as claimed by you: %v", tabsOut)
	}

	nav := mustCall(t, s.sess, "browser_navigate", map[string]any{"tab_handle": handle, "url": site.URL + "/form", "wait_until": "network_idle"})
	if nav["url"] != site.URL+"/form" || nav["title"] != "Harbour Books — Sign in" || nav["status"] != float64(200) {
		t.Fatalf("navigate: %v", nav)
	}

	obs := mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": handle})
	if err := observationSchema(t).Validate(obs); err != nil {
		t.Fatalf("observation does not validate: %v\n%v", err, obs)
	}
	if obs["schemaversion"] != float64(1) || obs["mode"] != nil || obs["url"] != site.URL+"/form" {
		t.Fatalf("observation header: %v", obs)
	}
	if env, _ := obs["environment"].(string); !strings.HasSuffix(env, " headless") {
		t.Fatalf("environment %q", obs["environment"])
	}
	raw, _ := json.Marshal(obs)
	if strings.Contains(string(raw), "hunter2") {
		t.Fatal("a password value leaked into the observation")
	}
	if strings.Contains(string(raw), "never reaches an agent") {
		t.Fatal("hidden text leaked into the observation")
	}
	// Form controls are listed in forms, and in interactive under the same
	// ref and selector with the page's other elements.
	typed, err := observe.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(typed.Forms) != 1 || len(typed.Forms[0].Fields) != 5 || len(typed.Interactive) != 9 {
		t.Fatalf("forms/interactive: %s", raw)
	}
	byRef := map[string]observe.Element{}
	for _, e := range typed.Interactive {
		byRef[e.Ref] = e
	}
	for _, f := range typed.Forms[0].Fields {
		if e, ok := byRef[f.Ref]; !ok || f.Selector == "" || e.Selector != f.Selector {
			t.Errorf("field %+v: interactive entry %+v", f, e)
		}
	}

	back := mustCall(t, s.sess, "browser_navigate", map[string]any{"tab_handle": handle, "history": "back"})
	if back["url"] != site.URL+"/start" {
		t.Fatalf("back: %v", back)
	}
}

func TestInvalidInputsAreExplained(t *testing.T) {
	t.Parallel()
	site := fixtures(t)
	s := startServer(t)
	handle := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/x"})["tab_handle"].(string)
	cases := []struct {
		tool       string
		args       map[string]any
		code, path string
		msg        string
	}{
		{"browser_open_tab", map[string]any{"url": "example.com"}, "invalid_input", "url", "absolute http(s), file or about URL"},
		{"browser_open_tab", map[string]any{"url": "javascript:alert(1)"}, "invalid_input", "url", "scheme"},
		{"browser_open_tab", map[string]any{}, "invalid_input", "url", "required"},
		{"browser_open_tab", map[string]any{"url": site.URL, "colour": "red"}, "invalid_input", "colour", "unknown field"},
		{"browser_open_tab", map[string]any{"url": site.URL, "active": "yes"}, "invalid_input", "active", "true or false"},
		{"browser_open_tab", map[string]any{"url": site.URL, "browser_id": "nope"}, "invalid_input", "browser_id", "no browser"},
		{"browser_discover", map[string]any{"kind": "windows"}, "invalid_input", "kind", "one of browsers, tabs"},
		{"browser_claim_tab", map[string]any{"tab_id": "ABC"}, "invalid_input", "tab_id", "no tab"},
		{"browser_navigate", map[string]any{"tab_handle": handle}, "invalid_input", "url", "required"},
		{"browser_navigate", map[string]any{"tab_handle": handle, "url": site.URL, "history": "back"}, "invalid_input", "url", "not both"},
		{"browser_navigate", map[string]any{"tab_handle": handle, "history": "sideways"}, "invalid_input", "history", "back, forward, reload"},
		{"browser_navigate", map[string]any{"tab_handle": handle, "url": site.URL, "wait_until": "idle"}, "invalid_input", "wait_until", "one of"},
		{"browser_navigate", map[string]any{"tab_handle": handle, "url": site.URL, "timeout_ms": 5}, "invalid_input", "timeout_ms", "between 100 and 120000"},
		{"browser_navigate", map[string]any{"tab_handle": handle, "history": "forward"}, "invalid_input", "history", "no page to go forward"},
		{"browser_navigate", map[string]any{"tab_handle": handle, "url": closedPort(t)}, "navigation_failed", "", "ERR_CONNECTION_REFUSED"},
		{"browser_navigate", map[string]any{"tab_handle": handle, "url": site.URL + "/slow", "timeout_ms": 300}, "timeout", "", "did not reach"},
		{"browser_observe", map[string]any{"tab_handle": "th_0000"}, "invalid_handle", "tab_handle", "unknown tab handle"},
		{"browser_observe", map[string]any{"tab_handle": handle, "max_chars": 5}, "invalid_input", "max_chars", "between"},
		{"browser_tab_control", map[string]any{"tab_handle": handle, "action": "minimise"}, "invalid_input", "action", "release, activate, close"},
	}
	for _, c := range cases {
		out, isErr := call(t, s.sess, c.tool, c.args)
		code, path, msg := errorOf(t, out, isErr)
		if code != c.code || path != c.path || !strings.Contains(msg, c.msg) {
			t.Errorf("%s %v:\n got  %s %q %q\n want %s %q ~%q", c.tool, c.args, code, path, msg, c.code, c.path, c.msg)
		}
	}
}

func TestHandlesDieOnReleaseAndClose(t *testing.T) {
	t.Parallel()
	site := fixtures(t)
	s := startServer(t)
	opened := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/a"})
	h := opened["tab_handle"].(string)
	mustCall(t, s.sess, "browser_tab_control", map[string]any{"tab_handle": h, "action": "activate"})
	mustCall(t, s.sess, "browser_tab_control", map[string]any{"tab_handle": h, "action": "release"})
	code, _, msg := callErr(t, s.sess, "browser_observe", map[string]any{"tab_handle": h})
	if code != "invalid_handle" || !strings.Contains(msg, "released") {
		t.Fatalf("after release: %s %s", code, msg)
	}
	// The released tab is still open and can be claimed again, with a guard.
	code, _, msg = callErr(t, s.sess, "browser_claim_tab", map[string]any{"tab_id": opened["tab_id"], "expected_title": "Other"})
	if code != "tab_mismatch" || !strings.Contains(msg, `"Page /a"`) {
		t.Fatalf("guard: %s %s", code, msg)
	}
	again := mustCall(t, s.sess, "browser_claim_tab", map[string]any{"tab_id": opened["tab_id"], "expected_url": site.URL + "/a", "expected_title": "Page /a"})
	h2 := again["tab_handle"].(string)
	mustCall(t, s.sess, "browser_tab_control", map[string]any{"tab_handle": h2, "action": "close"})
	code, _, msg = callErr(t, s.sess, "browser_navigate", map[string]any{"tab_handle": h2, "history": "reload"})
	if code != "invalid_handle" || !strings.Contains(msg, "closed") {
		t.Fatalf("after close: %s %s", code, msg)
	}
	for _, tb := range mustCall(t, s.sess, "browser_discover", map[string]any{"kind": "tabs"})["tabs"].([]any) {
		if tb.(map[string]any)["tab_id"] == opened["tab_id"] {
			t.Fatal("closed tab still listed")
		}
	}
}

// callErr calls a tool that must fail and returns its error's code, path and message.
func callErr(t testing.TB, sess *mcp.ClientSession, name string, args map[string]any) (code, path, msg string) {
	t.Helper()
	out, isErr := call(t, sess, name, args)
	return errorOf(t, out, isErr)
}

// Two MCP sessions of one server (streamable HTTP) race to claim one tab.
func TestTwoSessionsRaceForOneTab(t *testing.T) {
	t.Parallel()
	site := fixtures(t)
	cmd := exec.Command(binary, "mcp", "--http", "127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	endpoint := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), " at "); ok {
			endpoint = strings.TrimSpace(after)
			break
		}
	}
	if endpoint == "" {
		t.Fatal("server did not print its address")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	connect := func() *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "racer", Version: "1"}, nil)
		sess, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sess.Close() })
		return sess
	}
	a, b := connect(), connect()
	opened := mustCall(t, a, "browser_open_tab", map[string]any{"url": site.URL + "/contested", "claim": false})
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		results := make([]map[string]any, 2)
		errsSeen := make([]bool, 2)
		for i, sess := range []*mcp.ClientSession{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errsSeen[i] = call(t, sess, "browser_claim_tab", map[string]any{"tab_id": opened["tab_id"]})
			}()
		}
		wg.Wait()
		if errsSeen[0] == errsSeen[1] {
			t.Fatalf("round %d: want exactly one winner, got %v / %v", round, results[0], results[1])
		}
		winner, loser := 0, 1
		if errsSeen[0] {
			winner, loser = 1, 0
		}
		if code, _, _ := errorOf(t, results[loser], true); code != "tab_in_use" {
			t.Fatalf("loser got %s, want tab_in_use", code)
		}
		// The loser cannot use the winner's handle either.
		h := results[winner]["tab_handle"].(string)
		if code, _, _ := callErr(t, []*mcp.ClientSession{a, b}[loser], "browser_observe", map[string]any{"tab_handle": h}); code != "invalid_handle" {
			t.Fatalf("loser used the winner's handle: %s", code)
		}
		mustCall(t, []*mcp.ClientSession{a, b}[winner], "browser_tab_control", map[string]any{"tab_handle": h, "action": "release"})
	}

	// A session's claims end with the session.
	mustCall(t, a, "browser_claim_tab", map[string]any{"tab_id": opened["tab_id"]})
	if code, _, _ := callErr(t, b, "browser_claim_tab", map[string]any{"tab_id": opened["tab_id"]}); code != "tab_in_use" {
		t.Fatalf("claim held by a live session: %s", code)
	}
	a.Close()
	waitFor(t, "the ended session's claim to be released", 20*time.Second, func() bool {
		_, isErr := call(t, b, "browser_claim_tab", map[string]any{"tab_id": opened["tab_id"]})
		return !isErr
	})
}

// browserGroup returns the process group of the Chromium the server started,
// and the pids in it.
func browserGroup(t testing.TB, serverPid int) (pgid int, pids []int) {
	t.Helper()
	procs := readProcs()
	for _, p := range procs {
		if p.ppid == serverPid && p.pgrp == p.pid {
			pgid = p.pid
		}
	}
	if pgid == 0 {
		t.Fatalf("no browser process under server %d", serverPid)
	}
	return pgid, groupMembers(procs, pgid)
}

type proc struct{ pid, ppid, pgrp int }

func readProcs() []proc {
	entries, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the parenthesised command: state ppid pgrp …
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 3 || fields[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		pgrp, _ := strconv.Atoi(fields[2])
		out = append(out, proc{pid, ppid, pgrp})
	}
	return out
}

func groupMembers(procs []proc, pgid int) []int {
	var pids []int
	for _, p := range procs {
		if p.pgrp == pgid {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// waitGroupGone waits until no process of group pgid is left: it waits on
// each member's exit (a pidfd, which works for processes that are not our
// children) and lists the group again, so a late child is not missed.
func waitGroupGone(t testing.TB, pgid int, within time.Duration) {
	t.Helper()
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		for left := groupMembers(readProcs(), pgid); len(left) > 0; left = groupMembers(readProcs(), pgid) {
			for _, pid := range left {
				procwait.Wait(pid)
			}
		}
	}()
	select {
	case <-gone:
	case <-time.After(within): // a guard against a hang, not a speed bound
		t.Fatalf("browser processes %v still alive %v after the server died", groupMembers(readProcs(), pgid), within)
	}
}

// waitExited waits until pid has exited, without reaping it (its parent
// may be the SDK's transport, which waits for it itself).
func waitExited(t testing.TB, pid int, within time.Duration) {
	t.Helper()
	exited := make(chan struct{})
	go func() { procwait.Wait(pid); close(exited) }()
	select {
	case <-exited:
	case <-time.After(within): // a guard against a hang, not a speed bound
		t.Fatalf("server %d still running %v after the signal", pid, within)
	}
}

// closedPort returns a loopback URL where nothing listens.
func closedPort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/"
}

func TestBrowserCrashFailsFastAndRelaunches(t *testing.T) {
	t.Parallel()
	site := fixtures(t)
	s := startServer(t)
	h := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/a"})["tab_handle"].(string)
	pgid, _ := browserGroup(t, s.cmd.Process.Pid)

	type result struct {
		out   map[string]any
		isErr bool
		at    time.Time
	}
	// A page that never loads, and says when the browser asked for it.
	asked := make(chan struct{}, 1)
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	}))
	defer stuck.Close()
	done := make(chan result, 1)
	go func() {
		out, isErr := call(t, s.sess, "browser_navigate", map[string]any{"tab_handle": h, "url": stuck.URL + "/never"})
		done <- result{out, isErr, time.Now()}
	}()
	select {
	case <-asked: // the navigation is waiting on the stuck page
	case <-time.After(10 * time.Second):
		t.Fatal("the browser never asked for the stuck page")
	}
	killPid(pgid)
	killed := time.Now()
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("navigate still pending 20s after the browser died")
	}
	if code, _, _ := errorOf(t, r.out, r.isErr); code != "browser_unavailable" {
		t.Fatalf("pending call: %v", r.out)
	}
	// "Fast" against the navigation's 30 s timeout (tens of ms when quiet);
	// the bound is generous for a loaded machine.
	if d := r.at.Sub(killed); d > 10*time.Second {
		t.Fatalf("pending call failed %v after the kill, want well within the navigation's 30 s", d)
	}
	if code, _, _ := callErr(t, s.sess, "browser_observe", map[string]any{"tab_handle": h}); code != "invalid_handle" {
		t.Fatalf("handle of the dead browser: %s", code)
	}
	// The next call relaunches.
	opened := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/after"})
	if opened["title"] != "Page /after" {
		t.Fatalf("after relaunch: %v", opened)
	}
	if newPgid, _ := browserGroup(t, s.cmd.Process.Pid); newPgid == pgid {
		t.Fatal("no new browser process")
	}
}

func TestNoOrphanBrowserAfterServerDies(t *testing.T) {
	t.Parallel()
	site := fixtures(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startServer(t)
			mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/a"})
			pgid, pids := browserGroup(t, s.cmd.Process.Pid)
			if len(pids) < 2 {
				t.Fatalf("expected a browser with helpers, got %v", pids)
			}
			dataDirs, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("tabwright-%d-*", s.cmd.Process.Pid)))
			s.cmd.Process.Signal(sig)
			signalled := time.Now()
			waitGroupGone(t, pgid, 5*time.Second)
			figure(t, "Chromium processes left after the server's "+sig.String(), "0 of %d, all gone %d ms after the signal", len(pids), time.Since(signalled).Milliseconds())
			if sig != syscall.SIGKILL {
				waitExited(t, s.cmd.Process.Pid, 5*time.Second)
				for _, d := range dataDirs {
					if _, err := os.Stat(d); err == nil {
						t.Fatalf("profile dir %s left after %v", d, sig)
					}
				}
			}
		})
	}
}
