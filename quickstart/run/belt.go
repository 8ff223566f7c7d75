package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// belt is the harness's side of an attempt: the tools an agent acts
// through, each call executed under the task's budgets and traced here.
type belt struct {
	t     *task.Task
	sb    *sandbox.Sandbox
	tr    *trace.Trace
	res   *AttemptResult
	docs  *docs.Reader
	cmd   sandbox.Options
	extra agent.ExtraTools

	// cancelAgent ends the agent's context (cause errHalted) when the
	// harness stops the attempt itself; halted says why (the first wins).
	cancelAgent context.CancelCauseFunc
	halted      *agent.Outcome

	mu  sync.Mutex
	log strings.Builder // what the successful commands printed (the session log)
}

// errHalted is the agent context's cause when the harness stopped the
// attempt: a command filled the workspace, or --offline missed a page.
var errHalted = errors.New("the harness stopped the attempt")

// halt stops the agent with reason and detail (the first halt wins).
func (b *belt) halt(reason agent.StopReason, detail string) {
	b.mu.Lock()
	if b.halted == nil {
		b.halted = &agent.Outcome{StopReason: reason, Detail: detail}
	}
	b.mu.Unlock()
	if b.cancelAgent != nil {
		b.cancelAgent(errHalted)
	}
}

// haltedBy is the halt that stopped the attempt, or nil.
func (b *belt) haltedBy() *agent.Outcome {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.halted
}

func (b *belt) Extra() agent.ExtraTools { return b.extra }

func (b *belt) Bash(ctx context.Context, command string) trace.Command {
	b.tr.Add(trace.BashCall(command))
	r := b.sb.Run(ctx, command, b.cmd)
	c := trace.Command{Command: command, ExitCode: r.ExitCode, TimedOut: r.TimedOut, Truncated: r.Truncated, Duration: r.Duration, Output: r.Output}
	b.tr.Add(trace.BashResult(c))
	if r.WorkspaceFull {
		b.halt(agent.StopWorkspaceFull, fmt.Sprintf("the workspace's %s bound was reached by: %s", sandbox.HumanBytes(b.sb.WorkspaceBound()), command))
	}
	if r.Bound != "" {
		b.halt(agent.StopReason(r.Bound), boundDetail(command))
	}
	if r.ExitCode == 0 && r.Output != "" {
		b.mu.Lock()
		b.log.WriteString(r.Output)
		if !strings.HasSuffix(r.Output, "\n") {
			b.log.WriteString("\n")
		}
		b.mu.Unlock()
	}
	return c
}

func (b *belt) ReadDocs(ctx context.Context, url string) string {
	b.tr.Add(trace.DocsCall(url))
	return b.read(ctx, url, trace.ByAgent).ToolText(b.t.DocsAllow)
}

func (b *belt) ReadRoute(ctx context.Context) {
	for _, page := range b.t.Route {
		b.read(ctx, page, trace.ByHarness)
	}
}

// traceRefusals traces each request of page's read that the docs
// allowlist refused, before the read's own event.
func (b *belt) traceRefusals(page string, by trace.By, r *docs.Read) {
	for _, q := range r.Requests {
		if !q.Allowed {
			b.tr.Add(trace.RequestRefused(page, by, q))
		}
	}
}

func (b *belt) sessionLog() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.log.String()
}

// read reads one page and records it; by is who asked (agent or harness).
func (b *belt) read(ctx context.Context, page string, by trace.By) *docs.Read {
	var r *docs.Read
	switch {
	case !b.t.HostAllowed(page):
		r = &docs.Read{URL: page, Blocked: docs.BlockedOffAllowlist}
	case b.docs == nil:
		r = &docs.Read{URL: page, Err: "no browser for read_docs"}
	default:
		r = b.docs.Get(ctx, page, b.t.DocsAllow)
	}
	b.mu.Lock()
	b.res.DocsReads = append(b.res.DocsReads, r)
	if r.Blocked == "" && r.Err == "" {
		b.res.DocsPagesRead = append(b.res.DocsPagesRead, page)
	}
	b.mu.Unlock()
	b.traceRefusals(page, by, r)
	if r.Blocked == docs.OfflineCacheMiss {
		// An offline run reads the bytes a run before it read; without them it
		// can only diverge, and nothing it does is evidence.
		b.halt(agent.StopOfflineCacheMiss, fmt.Sprintf("--offline: %s is not in the docs cache; run once without --offline to fill it", page))
	}
	switch {
	case r.Blocked == docs.BlockedAffordance:
		b.tr.Add(trace.Withheld(page, by))
	case r.Blocked != "":
		b.tr.Add(trace.PageRefused(page, by, r))
	case r.Err != "":
		b.tr.Add(trace.PageFailed(page, by, r))
	default:
		b.tr.Add(trace.PageRead(page, by, r, PageFile(r.ContentHash)))
		if r.ResolvedTo != "" {
			b.tr.Add(trace.PageRedirected(page, r))
		}
		if r.Changed {
			b.tr.Add(trace.Changed(page, r.ContentHash))
		}
	}
	return r
}

// boundDetail says what met the sandbox's bound on processes.
func boundDetail(by string) string {
	return fmt.Sprintf("the sandbox's bound on processes was reached by: %s (its output ends with the figures)", by)
}
