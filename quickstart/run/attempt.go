package run

import (
	"context"
	"crypto/tls"
	"errors"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/egress"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/successcheck"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// SuccessCheckResult is the success check's outcome.
type SuccessCheckResult struct {
	ExitCode int    `json:"exit_code"`
	Output   string `json:"output"` // the last trace.OutputClip characters
	full     string
}

// AttemptResult is one attempt, as results.json carries it (schema 2.0 fields,
// plus detail, docs_reads and sandbox).
type AttemptResult struct {
	Task               string              `json:"task"`
	Attempt            int                 `json:"attempt"`
	Agent              string              `json:"agent"`
	ModelReported      string              `json:"model_reported"`
	Classification     Classification      `json:"classification"`
	Passed             bool                `json:"passed"`
	Evidential         bool                `json:"evidential"`
	StopReason         agent.StopReason    `json:"stop_reason"`
	Detail             string              `json:"detail"`
	Turns              int                 `json:"turns"`
	DurationSeconds    float64             `json:"duration_seconds"`
	Backend            string              `json:"backend"`
	Enforced           bool                `json:"enforced"`
	Image              string              `json:"image"`
	DocsPagesRead      []string            `json:"docs_pages_read"`
	DocsReads          []*docs.Read        `json:"docs_reads"`
	SuspectPage        *string             `json:"suspect_page"`
	DocsBypassAttempts int                 `json:"docs_bypass_attempts"`
	SuccessCheck       *SuccessCheckResult `json:"success_check"`
	Tokens             Tokens              `json:"tokens"`
	// EstimatedCost is the run's tokens priced by the price book (null
	// without a book or a price for its model).
	EstimatedCost *float64 `json:"estimated_cost_usd"`
	Sandbox       string   `json:"sandbox,omitempty"`
	// EgressBlocked counts the proxy's refusals in this run (every reason).
	EgressBlocked int `json:"egress_blocked"`
	// Warnings name the commands that timed out or failed, the check's
	// verdict notwithstanding.
	Warnings []string `json:"warnings,omitempty"`
	// LastFailure is the last command that exited non-zero, with the end
	// of its output, so a report shows the error beside a silent check.
	LastFailure *FailedCommand `json:"last_failure,omitempty"`

	Trace    *Trace        `json:"-"`
	Duration time.Duration `json:"-"`
	Source   string        `json:"-"`
}

// Options configure attempts.
type Options struct {
	Docs        *docs.Reader // read_docs; nil refuses every read as an error
	KeepSandbox bool
	// ExpectBrowser is the Chromium qs_browser_expect starts for each check
	// (see ExpectBridge); nil: the check has no browser.
	ExpectBrowser *launch.Options
	// OnEvent sees every trace event as it happens (progress lines).
	OnEvent func(t *task.Task, attempt int, ev map[string]any, elapsed time.Duration)
	// Backend is sandbox.Isolated or sandbox.Container (enforced) or
	// sandbox.Local; empty is local. The caller chooses; this package does
	// not fall back.
	Backend string
	// Runtime is the container engine. With it, a task that names an
	// image: runs in that image on the container backend whatever Backend
	// says; Backend sandbox.Container needs it.
	Runtime *sandbox.Runtime
	// DefaultImage is the container backend's image for a task that names
	// none ("" is sandbox.DefaultImage).
	DefaultImage string
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
	// Agent works on the task; nil is replay.
	Agent agent.Agent
	// WorkspaceBytes bounds the sandbox backend's workspace (with its $HOME
	// and $TMPDIR); 0 is sandbox.DefaultWorkspaceBytes, a negative value no
	// bound.
	WorkspaceBytes int64
	// Limits bound the sandbox backend's processes and memory; the zero
	// value is sandbox.DefaultLimits.
	Limits sandbox.Limits
	// AgentTools, when set, makes the extra tools of one attempt (the
	// browser on its sandbox's loopback); close ends them.
	AgentTools func(ctx context.Context, t *task.Task, sb *sandbox.Sandbox, tr *trace.Trace) (tools agent.ExtraTools, close func(), err error)
}

// Attempt runs one attempt of t with opt.Agent (replay when nil), as a
// sequence of phases: open the sandbox, run setup, start the agent's extra
// tools, run the agent, then (when the run is scored) the success check.
// A phase that ends the attempt returns its outcome; the rest do not run.
func Attempt(ctx context.Context, t *task.Task, attempt int, opt Options) *AttemptResult {
	a := newAttempt(ctx, t, attempt, opt)
	defer a.close()
	return a.res.finish(a.phases(ctx), a.start)
}

// attempt is one attempt under way: what its phases made, and what it
// closes once its result is final (in reverse order).
type attempt struct {
	t       *task.Task
	n       int
	opt     Options
	ag      agent.Agent
	res     *AttemptResult
	tr      *trace.Trace
	start   time.Time
	bridge  *ExpectBridge
	sb      *sandbox.Sandbox
	bt      *belt
	closers []func()
}

func (a *attempt) phases(ctx context.Context) agent.Outcome {
	if o, stop := a.openSandbox(ctx); stop {
		return o
	}
	if o, stop := runSetup(ctx, a.t, a.sb, a.tr, a.bt.cmd); stop {
		return o
	}
	if o, stop := a.startExtraTools(ctx); stop {
		return o
	}
	o := a.runAgent(ctx)
	a.probeAffordances(ctx)
	o = a.settle(ctx, o)
	// Skips, errors, refusals and offline misses are not scored: no check runs.
	if !scored(o.StopReason) {
		return o
	}
	return a.runSuccessCheck(ctx, o)
}

// newAttempt makes the attempt's result and trace, and starts warming
// read_docs: the browser, the docs sites' robots.txt and the route's entry
// page get ready while the sandbox is made and set up, not after.
func newAttempt(ctx context.Context, t *task.Task, n int, opt Options) *attempt {
	a := &attempt{t: t, n: n, opt: opt, ag: opt.Agent, start: time.Now()}
	if a.ag == nil {
		a.ag = agent.Replay{}
	}
	a.res = &AttemptResult{Task: t.Name, Attempt: n, Agent: a.ag.Name(), Backend: sandbox.Local, Enforced: false,
		Image: t.Image, DocsPagesRead: []string{}, DocsReads: []*docs.Read{}, Source: t.Source}
	a.res.Trace = trace.New(func(ev map[string]any, el time.Duration) {
		if opt.OnEvent != nil {
			opt.OnEvent(t, n, ev, el)
		}
	})
	a.tr = a.res.Trace
	if opt.Docs != nil {
		go opt.Docs.Warm(ctx, allowedPages(t), t.DocsAllow)
	}
	return a
}

func (a *attempt) close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
}

// openSandbox makes the sandbox on the attempt's backend (with the check's
// browser bridge), records run_start, checks a named image's toolchain on
// a backend that does not run images, and readies the agent's tool belt.
func (a *attempt) openSandbox(ctx context.Context) (agent.Outcome, bool) {
	t, opt, res, tr := a.t, a.opt, a.res, a.tr
	backend, image := attemptBackend(t, opt)
	if backend != sandbox.Local && backend != "" {
		res.Backend, res.Enforced = backend, true
	}
	if backend == sandbox.Container {
		res.Image = image
	}
	record := func(typ string, f map[string]any) { tr.Add(trace.Raw(trace.Type(typ), f)) }
	if opt.ExpectBrowser != nil {
		a.bridge = NewExpectBridge(t, *opt.ExpectBrowser, opt.EgressDial, record)
		a.closers = append(a.closers, a.bridge.Close)
	}
	sb, err := NewSandbox(t, SandboxOptions{Backend: backend, Runtime: opt.Runtime, Image: image, Bridge: a.bridge, EgressDial: opt.EgressDial,
		Cache: opt.Cache, EgressTLS: opt.EgressTLS, WorkspaceBytes: opt.WorkspaceBytes, Limits: opt.Limits, OnEvent: record})
	if err != nil {
		return harnessError("could not create the sandbox: " + err.Error()), true
	}
	a.sb = sb
	a.closers = append(a.closers, func() {
		sb.Close(opt.KeepSandbox)
		if opt.KeepSandbox {
			res.Sandbox = sb.Workspace
		}
	})
	tr.Add(trace.Start(startEvent(t, a.n, a.ag.Name(), res, opt)))
	if t.Image != "" && backend != sandbox.Container {
		tr.Add(compareImageToolchain(ctx, t.Image, sb).event(res.Backend))
	}
	b := t.Budgets
	a.bt = &belt{t: t, sb: sb, tr: tr, res: res, docs: opt.Docs,
		cmd: sandbox.Options{Timeout: time.Duration(b.MaxCommandSeconds) * time.Second, MaxChars: b.MaxOutputChars}}
	return agent.Outcome{}, false
}

// startExtraTools starts the agent's extra tools (the browser), if any.
func (a *attempt) startExtraTools(ctx context.Context) (agent.Outcome, bool) {
	if a.opt.AgentTools == nil {
		return agent.Outcome{}, false
	}
	x, closeX, err := a.opt.AgentTools(ctx, a.t, a.sb, a.tr)
	if err != nil {
		return harnessError("could not start the agent's extra tools: " + err.Error()), true
	}
	a.closers = append(a.closers, closeX)
	a.bt.extra = x
	return agent.Outcome{}, false
}

// runAgent is the agent phase: max_seconds from here, enforced inside
// commands and model calls too. A halt by the harness (a full workspace,
// an offline miss) is the outcome's reason.
func (a *attempt) runAgent(ctx context.Context) agent.Outcome {
	bt := a.bt
	agentCtx, cancel := context.WithTimeoutCause(ctx, time.Duration(a.t.Budgets.MaxSeconds)*time.Second, agent.ErrMaxSeconds)
	agentCtx, bt.cancelAgent = context.WithCancelCause(agentCtx)
	o := a.ag.Run(agentCtx, &agent.Session{Task: a.t, Tools: bt, Trace: a.tr})
	if h := bt.haltedBy(); h != nil && errors.Is(context.Cause(agentCtx), errHalted) && ctx.Err() == nil {
		o.StopReason, o.Failure, o.Detail = h.StopReason, "", h.Detail
	}
	bt.cancelAgent(nil)
	cancel()
	return o
}

// probeAffordances records, on attempt 1 when asked, which affordances the
// docs have. After the agent, not before: the probe's requests (three,
// paced by the rate limit on a remote host) would delay its start and its
// first read of that host.
func (a *attempt) probeAffordances(ctx context.Context) {
	opt := a.opt
	if opt.ProbeAffordances && a.n == 1 && opt.Docs != nil && len(a.t.Route) > 0 && ctx.Err() == nil {
		a.tr.Add(trace.Affordances(a.t.Route[0], opt.Docs.ProbeAffordances(ctx, a.t.Route[0])))
	}
}

// settle keeps the agent's tokens and model, and makes an interrupted
// attempt (not a skipped one) a harness error.
func (a *attempt) settle(ctx context.Context, o agent.Outcome) agent.Outcome {
	a.res.Tokens, a.res.ModelReported = o.Tokens, o.ModelReported
	if ctx.Err() != nil && o.StopReason != agent.StopSkipped {
		o.StopReason, o.Failure, o.Detail = agent.StopError, agent.FailureHarness, "interrupted"
	}
	return o
}

// runSuccessCheck writes the session log (what the successful commands
// printed, after the agent stopped, so it could never read it) and runs
// the success check, whose exit decides the verdict.
func (a *attempt) runSuccessCheck(ctx context.Context, o agent.Outcome) agent.Outcome {
	sessionLog := filepath.Join(a.sb.Workspace, successcheck.SessionLogName)
	if err := os.WriteFile(sessionLog, []byte(a.bt.sessionLog()), 0o644); err != nil {
		a.tr.Add(trace.LogError(err))
	}
	a.res.SuccessCheck = RunSuccessCheck(ctx, a.t, a.sb, a.bridge)
	a.tr.Add(trace.Check(a.res.SuccessCheck.ExitCode, a.res.SuccessCheck.full))
	if ctx.Err() != nil {
		o.StopReason, o.Failure, o.Detail = agent.StopError, agent.FailureHarness, "interrupted"
	}
	return o
}

// attemptBackend is the backend t's attempt runs on, and its image there:
// the container backend when t names an image and there is an engine, or
// when it was asked for (the default image then fills in).
func attemptBackend(t *task.Task, opt Options) (backend, image string) {
	image = t.Image
	if image == "" {
		image = opt.DefaultImage
	}
	if image == "" {
		image = sandbox.DefaultImage
	}
	switch {
	case opt.Backend == sandbox.Container, opt.Runtime != nil && t.Image != "":
		return sandbox.Container, image
	}
	return opt.Backend, ""
}

// allowedPages are the task's route pages on its docs allowlist.
func allowedPages(t *task.Task) []string {
	var out []string
	for _, p := range t.Route {
		if t.HostAllowed(p) {
			out = append(out, p)
		}
	}
	return out
}

// startEvent is run_start's facts.
func startEvent(t *task.Task, attempt int, agentName string, res *AttemptResult, opt Options) trace.RunStarted {
	s := trace.RunStarted{Task: t.Name, Agent: agentName, Backend: res.Backend, Enforced: res.Enforced,
		Image: res.Image, Attempt: attempt, Source: t.Source, Egress: egressMode(res.Enforced)}
	if opt.Cache != nil {
		s.RegistryCache = opt.Cache.Dir()
	}
	if opt.Docs != nil {
		s.AffordancePolicy = opt.Docs.AffordancePolicy()
		if opt.Docs.Cache != nil {
			s.DocsCache = opt.Docs.Cache.Dir()
		}
	}
	return s
}

// runSetup runs the setup commands in order; the first that fails (or an
// interruption) ends the attempt, unscored.
func runSetup(ctx context.Context, t *task.Task, sb *sandbox.Sandbox, tr *trace.Trace, cmd sandbox.Options) (agent.Outcome, bool) {
	for _, c := range t.Setup {
		r := sb.Run(ctx, c, cmd)
		tr.Add(trace.SetupDone(trace.Command{Command: c, ExitCode: r.ExitCode, TimedOut: r.TimedOut, Duration: r.Duration, Output: r.Output}))
		if ctx.Err() != nil {
			return harnessError("interrupted"), true
		}
		if r.WorkspaceFull {
			return agent.Outcome{StopReason: agent.StopWorkspaceFull, Detail: "setup command filled the workspace: " + c}, true
		}
		if r.Bound != "" {
			return agent.Outcome{StopReason: agent.StopReason(r.Bound), Detail: boundDetail("setup command " + c)}, true
		}
		if r.ExitCode != 0 {
			return harnessError("setup command failed: " + c), true
		}
	}
	return agent.Outcome{}, false
}

// joinDetail puts why first and the detail there was after it.
func joinDetail(why, detail string) string {
	if detail == "" {
		return why
	}
	return why + "; " + detail
}

func harnessError(detail string) agent.Outcome {
	return agent.Outcome{StopReason: agent.StopError, Failure: agent.FailureHarness, Detail: detail}
}

// finish classifies the attempt and closes its trace.
func (res *AttemptResult) finish(o agent.Outcome, start time.Time) *AttemptResult {
	res.StopReason, res.Detail, res.Turns = o.StopReason, o.Detail, o.Turns
	var passed *bool
	if res.SuccessCheck != nil {
		p := res.SuccessCheck.ExitCode == 0
		passed = &p
	}
	f := res.Trace.Facts()
	res.Classification = Classify(o.StopReason, o.Failure, passed, f)
	if mismatch := imageMismatch(res.Trace.Events()); mismatch != "" && res.Classification == DocsGap {
		// The docs are not to blame for a toolchain the image would have had.
		res.Classification = InfraError
		res.Detail = joinDetail(mismatch+" ("+ImageToolchainMismatch+")", res.Detail)
	}
	if none, why := DocsUnreadable(f); none && res.Detail == "" {
		res.Detail = why
	}
	res.Warnings = StepWarnings(res.Trace.Events())
	res.LastFailure = LastFailedCommand(res.Trace.Events())
	res.Passed = res.Classification == Passed
	res.Evidential = Evidential(res.Classification)
	res.EgressBlocked, res.DocsBypassAttempts = f.EgressBlocked, f.DocsHostRefusals
	if !res.Passed && len(res.DocsPagesRead) > 0 {
		last := res.DocsPagesRead[len(res.DocsPagesRead)-1]
		res.SuspectPage = &last
	}
	res.Duration = time.Since(start)
	res.DurationSeconds = math.Round(res.Duration.Seconds()*100) / 100
	res.Trace.Add(trace.End(string(o.StopReason), res.Detail, string(res.Classification), res.Passed))
	return res
}

// RunSuccessCheck runs t's check in sb's workspace; the check's process group
// (servers included) is killed when it ends. With a bridge (the one sb's
// proxy answers for), the check alone holds a fresh key to the browser.
func RunSuccessCheck(ctx context.Context, t *task.Task, sb *sandbox.Sandbox, bridge *ExpectBridge) *SuccessCheckResult {
	env := []string{"QS_SESSION_LOG=" + filepath.Join(sb.Workspace, successcheck.SessionLogName)}
	if !sb.Enforced() {
		// In the sandbox the port is chosen inside, where the server runs.
		env = append(env, "QS_PORT="+strconv.Itoa(successcheck.Port(t.Name)))
	}
	if bridge != nil {
		key, disarm := bridge.arm()
		defer disarm()
		env = append(env, "QS_BROWSER_ENDPOINT=http://"+egress.HarnessHost+"/expect", "QS_BROWSER_KEY="+key)
	}
	r := sb.Run(ctx, successcheck.Script(t.Name, t.SuccessScript), sandbox.Options{
		Timeout: time.Duration(t.Budgets.MaxCommandSeconds) * time.Second, MaxChars: t.Budgets.MaxOutputChars,
		Env: env, KillGroup: true})
	out := r.Output
	short := out
	if rs := []rune(short); len(rs) > trace.OutputClip {
		short = string(rs[len(rs)-trace.OutputClip:])
	}
	return &SuccessCheckResult{ExitCode: r.ExitCode, Output: short, full: out}
}
