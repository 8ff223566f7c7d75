package run

import (
	"context"
	"crypto/tls"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tabwright/tabwright/quickstart/check"
	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/egress"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
)

// Tokens are an agent's four exclusive counters (always zero for replay).
type Tokens struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheWrite int `json:"cache_write"`
	CacheRead  int `json:"cache_read"`
}

// CheckResult is the success check's outcome.
type CheckResult struct {
	ExitCode int    `json:"exit_code"`
	Output   string `json:"output"` // the last 2000 characters
	full     string
}

// Result is one attempt, as results.json carries it (schema 2.0 fields,
// plus detail, docs_reads and sandbox).
type Result struct {
	Task               string       `json:"task"`
	Attempt            int          `json:"attempt"`
	Agent              string       `json:"agent"`
	ModelReported      string       `json:"model_reported"`
	Classification     string       `json:"classification"`
	Passed             bool         `json:"passed"`
	Evidential         bool         `json:"evidential"`
	StopReason         string       `json:"stop_reason"`
	Detail             string       `json:"detail"`
	Turns              int          `json:"turns"`
	DurationSeconds    float64      `json:"duration_seconds"`
	Backend            string       `json:"backend"`
	Enforced           bool         `json:"enforced"`
	Image              string       `json:"image"`
	DocsPagesRead      []string     `json:"docs_pages_read"`
	DocsReads          []*docs.Read `json:"docs_reads"`
	SuspectPage        *string      `json:"suspect_page"`
	DocsBypassAttempts int          `json:"docs_bypass_attempts"`
	SuccessCheck       *CheckResult `json:"success_check"`
	Tokens             Tokens       `json:"tokens"`
	Sandbox            string       `json:"sandbox,omitempty"`
	// EgressBlocked counts the proxy's refusals in this run (every reason).
	EgressBlocked int `json:"egress_blocked"`
	// Warnings name the commands that timed out or failed, the check's
	// verdict notwithstanding.
	Warnings []string `json:"warnings,omitempty"`

	Trace    *Trace        `json:"-"`
	Duration time.Duration `json:"-"`
	Source   string        `json:"-"`
}

// Options configure attempts.
type Options struct {
	Docs        *docs.Reader // read_docs; nil refuses every read as an error
	KeepSandbox bool
	// BrowserEndpoint is the loopback URL qs_browser_expect asks; empty when
	// there is no browser.
	BrowserEndpoint string
	// OnEvent sees every trace event as it happens (progress lines).
	OnEvent func(t *task.Task, attempt int, ev map[string]any, elapsed time.Duration)
	// Backend is sandbox.Isolated (enforced) or sandbox.Local; empty is
	// local. The caller chooses; this package does not fall back.
	Backend string
	// EgressDial, when set, is how the egress proxy reaches allowed hosts
	// (tests point it at loopback servers); nil dials the network.
	EgressDial func(ctx context.Context, network, addr string) (net.Conn, error)
	// ProbeAffordances records, on attempt 1, which of llms.txt,
	// llms-full.txt and the entrypoint's .md exist (never scored).
	ProbeAffordances bool
	// Cache is the registry cache the attempts share (qs run --registry-cache);
	// nil: none. Only the sandbox backend has a proxy to cache with.
	Cache *egress.Cache
	// EgressTLS configures the proxy's HTTPS to the registry mirrors'
	// upstreams; nil trusts the system's roots (tests trust their own).
	EgressTLS *tls.Config
}

// Attempt runs one attempt of t with the replay agent.
func Attempt(ctx context.Context, t *task.Task, attempt int, opt Options) *Result {
	start := time.Now()
	res := &Result{Task: t.Name, Attempt: attempt, Agent: "replay", Backend: sandbox.Local, Enforced: false,
		Image: t.Image, DocsPagesRead: []string{}, DocsReads: []*docs.Read{}, Source: t.Source}
	res.Trace = newTrace(func(ev map[string]any, el time.Duration) {
		if opt.OnEvent != nil {
			opt.OnEvent(t, attempt, ev, el)
		}
	})
	tr := res.Trace
	finish := func(stop, detail string, turns int) *Result {
		res.StopReason, res.Detail, res.Turns = stop, detail, turns
		var passed *bool
		if res.SuccessCheck != nil {
			p := res.SuccessCheck.ExitCode == 0
			passed = &p
		}
		res.Classification = Classify(stop, detail, passed, tr.Events())
		if none, why := DocsUnreadable(tr.Events()); none && detail == "" {
			detail = why
			res.Detail = why
		}
		res.Warnings = StepWarnings(tr.Events())
		res.Passed = res.Classification == Passed
		res.Evidential = Evidential(res.Classification)
		for _, ev := range tr.Events() {
			if ev["type"] == "egress_blocked" {
				res.EgressBlocked++
				if ev["reason"] == egress.ReasonDocsHost {
					res.DocsBypassAttempts++
				}
			}
		}
		if !res.Passed && len(res.DocsPagesRead) > 0 {
			last := res.DocsPagesRead[len(res.DocsPagesRead)-1]
			res.SuspectPage = &last
		}
		res.Duration = time.Since(start)
		res.DurationSeconds = math.Round(res.Duration.Seconds()*100) / 100
		tr.Add("run_end", map[string]any{"stop_reason": stop, "passed": res.Passed, "classification": res.Classification, "detail": detail})
		return res
	}

	if opt.Backend == sandbox.Isolated {
		res.Backend, res.Enforced = sandbox.Isolated, true
	}
	sb, err := NewSandbox(t, SandboxOptions{Backend: opt.Backend, BrowserEndpoint: opt.BrowserEndpoint, EgressDial: opt.EgressDial,
		Cache: opt.Cache, EgressTLS: opt.EgressTLS, OnEvent: func(typ string, f map[string]any) { tr.Add(typ, f) }})
	if err != nil {
		return finish(StopError, "could not create the sandbox: "+err.Error(), 0)
	}
	defer func() {
		sb.Close(opt.KeepSandbox)
		if opt.KeepSandbox {
			res.Sandbox = sb.Workspace
		}
	}()
	startEv := map[string]any{"task": t.Name, "agent": "replay", "backend": res.Backend, "enforced": res.Enforced,
		"image": t.Image, "attempt": attempt, "source": t.Source, "egress": egressMode(res.Enforced)}
	if opt.Cache != nil {
		startEv["registry_cache"] = opt.Cache.Dir()
	}
	if opt.Docs != nil {
		startEv["affordance_policy"] = opt.Docs.AffordancePolicy()
		if opt.Docs.Cache != nil {
			startEv["docs_cache"] = opt.Docs.Cache.Dir()
		}
	}
	tr.Add("run_start", startEv)
	if opt.ProbeAffordances && attempt == 1 && opt.Docs != nil && len(t.Route) > 0 {
		tr.Add("affordances", map[string]any{"entrypoint": t.Route[0], "found": opt.Docs.ProbeAffordances(ctx, t.Route[0])})
	}

	b := t.Budgets
	cmdOpt := sandbox.Options{Timeout: time.Duration(b.MaxCommandSeconds) * time.Second, MaxChars: b.MaxOutputChars}
	for _, c := range t.Setup {
		r := sb.Run(ctx, c, cmdOpt)
		tr.Add("setup", map[string]any{"command": c, "exit_code": r.ExitCode, "timed_out": r.TimedOut, "duration": secs(r.Duration), "output": r.Output})
		if ctx.Err() != nil {
			return finish(StopError, "interrupted", 0)
		}
		if r.ExitCode != 0 {
			return finish(StopError, "setup command failed: "+c, 0)
		}
	}

	if len(t.Replay) == 0 {
		return finish(StopSkipped, "task has no 'replay' commands", 0)
	}
	// The agent phase: max_seconds from here, enforced inside commands too.
	agentCtx, cancel := context.WithTimeout(ctx, time.Duration(b.MaxSeconds)*time.Second)
	defer cancel()
	for _, page := range t.Route {
		readDocs(agentCtx, t, page, opt.Docs, res)
	}
	stop, detail, turns := StopCompleted, "", 0
	var okOutputs []string
	for i, c := range t.Replay {
		if ctx.Err() != nil {
			stop, detail = StopError, "interrupted"
			break
		}
		if agentCtx.Err() != nil {
			stop, detail = StopTimeout, fmt.Sprintf("max_seconds (%d s) passed before replay step %d", b.MaxSeconds, i+1)
			break
		}
		if turns >= b.MaxTurns {
			stop, detail = StopMaxTurns, fmt.Sprintf("max_turns (%d) reached before replay step %d", b.MaxTurns, i+1)
			break
		}
		tr.Add("tool_call", map[string]any{"tool": "bash", "command": c})
		r := sb.Run(agentCtx, c, cmdOpt)
		turns++
		tr.Add("tool_result", map[string]any{"tool": "bash", "exit_code": r.ExitCode, "duration": secs(r.Duration), "timed_out": r.TimedOut, "output": r.Output, "truncated": r.Truncated})
		if r.ExitCode == 0 {
			okOutputs = append(okOutputs, r.Output)
			continue
		}
		switch {
		case ctx.Err() != nil:
			stop, detail = StopError, "interrupted"
		case agentCtx.Err() != nil:
			stop, detail = StopTimeout, fmt.Sprintf("max_seconds (%d s) passed during replay step %d: %s", b.MaxSeconds, i+1, c)
		default:
			stop, detail = StopCommandFailed, fmt.Sprintf("replay step %d failed: %s", i+1, c)
		}
		break
	}
	if stop == StopError {
		return finish(stop, detail, turns)
	}

	// The session log: what the successful commands printed, written after
	// the agent stopped, so it could never read it.
	var log strings.Builder
	for _, o := range okOutputs {
		if o == "" {
			continue
		}
		log.WriteString(o)
		if !strings.HasSuffix(o, "\n") {
			log.WriteString("\n")
		}
	}
	sessionLog := filepath.Join(sb.Workspace, check.SessionLogName)
	if err := os.WriteFile(sessionLog, []byte(log.String()), 0o644); err != nil {
		tr.Add("session_log_error", map[string]any{"error": err.Error()})
	}
	res.SuccessCheck = RunCheck(ctx, t, sb, opt.BrowserEndpoint)
	tr.Add("success_check", map[string]any{"exit_code": res.SuccessCheck.ExitCode, "passed": res.SuccessCheck.ExitCode == 0, "output": res.SuccessCheck.full})
	if ctx.Err() != nil {
		return finish(StopError, "interrupted", turns)
	}
	return finish(stop, detail, turns)
}

// RunCheck runs t's check in sb's workspace; the check's process group
// (servers included) is killed when it ends.
func RunCheck(ctx context.Context, t *task.Task, sb *sandbox.Sandbox, browserEndpoint string) *CheckResult {
	env := []string{"QS_SESSION_LOG=" + filepath.Join(sb.Workspace, check.SessionLogName)}
	if !sb.Enforced() {
		// In the sandbox the port is chosen inside, where the server runs.
		env = append(env, "QS_PORT="+strconv.Itoa(check.Port(t.Name)))
	}
	if browserEndpoint != "" {
		if sb.Enforced() {
			// The harness's browser cannot see the sandbox's loopback: the
			// check asks the proxy, which bridges the page in (bridge.go).
			browserEndpoint = "http://" + egress.HarnessHost + "/expect"
		}
		env = append(env, "QS_BROWSER_ENDPOINT="+browserEndpoint)
	}
	r := sb.Run(ctx, check.Script(t.Name, t.SuccessScript), sandbox.Options{
		Timeout: time.Duration(t.Budgets.MaxCommandSeconds) * time.Second, MaxChars: t.Budgets.MaxOutputChars,
		Env: env, KillGroup: true})
	out := r.Output
	short := out
	if rs := []rune(short); len(rs) > 2000 {
		short = string(rs[len(rs)-2000:])
	}
	return &CheckResult{ExitCode: r.ExitCode, Output: short, full: out}
}

func readDocs(ctx context.Context, t *task.Task, page string, reader *docs.Reader, res *Result) {
	tr := res.Trace
	tr.Add("tool_call", map[string]any{"tool": "read_docs", "url": page})
	var r *docs.Read
	if reader == nil {
		r = &docs.Read{URL: page, Err: "no browser for read_docs"}
		if !t.HostAllowed(page) {
			r = &docs.Read{URL: page, Blocked: "outside_allowlist"}
		}
	} else {
		r = reader.Get(ctx, page, t.DocsAllow)
	}
	res.DocsReads = append(res.DocsReads, r)
	switch {
	case r.Blocked == "affordance_withheld":
		tr.Add("affordance_withheld", map[string]any{"url": page})
	case r.Blocked != "":
		ev := map[string]any{"url": page, "reason": r.Blocked}
		if r.ResolvedTo != "" {
			ev["resolved_to"] = r.ResolvedTo
		}
		tr.Add("docs_read_blocked", ev)
	case r.Err != "":
		tr.Add("docs_read_error", map[string]any{"url": page, "error": r.Err})
	default:
		ev := map[string]any{"url": page, "chars": r.Chars, "original_chars": r.OriginalChars, "truncated": r.Truncated,
			"from_cache": r.FromCache, "content_hash": r.ContentHash, "rendered": r.Rendered, "status": r.Status}
		if r.ResolvedTo != "" {
			ev["resolved_to"] = r.ResolvedTo
		}
		if r.CacheError != "" {
			ev["cache_error"] = r.CacheError
		}
		tr.Add("docs_read", ev)
		if r.ResolvedTo != "" {
			tr.Add("docs_redirect_followed", map[string]any{"requested": page, "resolved_to": r.ResolvedTo, "hops": r.Redirects})
		}
		if r.Changed {
			tr.Add("docs_changed", map[string]any{"url": page, "content_hash": r.ContentHash})
		}
		res.DocsPagesRead = append(res.DocsPagesRead, page)
	}
}

func secs(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }
