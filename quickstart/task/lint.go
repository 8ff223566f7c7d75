package task

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/tabwright/tabwright/quickstart/egress"
)

// Lint is a finding that does not make a task invalid but likely makes its
// results wrong: Kind is "warning" or "note".
type Lint struct {
	Kind    string `json:"kind"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// The lint patterns compile on first use, not at every start of the binary.
var (
	envPathRe     = lazyRegexp(`([\w.-]+)/bin/`)
	loudRe        = lazyRegexp(`qs_fail|qs_wait_http|qs_expect_output|qs_browser_expect|echo|printf|\bfail\b`)
	silentLineRe  = lazyRegexp(`^\s*(test |\[ |\[\[ |grep -[A-Za-z]*q|diff |cmp )`)
	nodeRe        = lazyRegexp(`(^|[\s;&|(])(npm|npx|node|pnpm|yarn|bun)\b`)
	trivialLineRe = lazyRegexp(`^\s*(true|:|exit 0|echo\b.*|printf\b.*|set [-+][a-z]+( [-+]?[a-z]+)*|set -o [a-z]+|cd\b.*|sleep \d+|#.*)?\s*;?\s*$`)
	serveCallRe   = lazyRegexp(`(^|[\s;&|(])qs_serve\b`)
	probeRe       = lazyRegexp(`qs_wait_http|qs_browser_expect|curl|wget|urllib|fetch\(|requests\.get|http\.client`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// UnpreparedEnvPaths lists the directories the check runs tools from
// (X/bin/...) that neither setup nor replay mention.
func (t *Task) UnpreparedEnvPaths() []string {
	made := strings.Join(append(append([]string{}, t.Setup...), t.Replay...), " ")
	seen := map[string]bool{}
	var out []string
	for _, m := range envPathRe().FindAllStringSubmatch(t.SuccessScript, -1) {
		d := m[1]
		switch d {
		case ".", "..", "usr", "local", "opt", "env":
			continue
		}
		if seen[d] || strings.Contains(made, d) {
			continue
		}
		seen[d] = true
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// CanFailSilently reports a check made of bare tests that would exit
// non-zero without saying what it saw.
func (t *Task) CanFailSilently() bool {
	if loudRe().MatchString(t.SuccessScript) {
		return false
	}
	n := 0
	for _, line := range strings.Split(t.SuccessScript, "\n") {
		if silentLineRe().MatchString(line) {
			n++
		}
	}
	return n >= 2
}

// NeverFails reports a check that exits 0 whatever the workspace holds:
// every line is a no-op, an echo or a shell option.
func (t *Task) NeverFails() bool {
	for _, line := range strings.Split(t.SuccessScript, "\n") {
		if !trivialLineRe().MatchString(line) {
			return false
		}
	}
	return true
}

// NeedsNode reports a check that calls a Node tool.
func (t *Task) NeedsNode() bool { return nodeRe().MatchString(t.SuccessScript) }

// ServesUnchecked reports a check that starts a server with qs_serve and
// never requests anything from it.
func (t *Task) ServesUnchecked() bool {
	return serveCallRe().MatchString(t.SuccessScript) && !probeRe().MatchString(t.SuccessScript)
}

// NetworkConflicts are docs hosts that are also default registries and were
// not named by hand under network: the shell cannot reach them.
func (t *Task) NetworkConflicts() []string {
	var out []string
	for _, h := range t.DocsAllow {
		if egress.HostMatches(h, egress.DefaultNetworkAllow) && !egress.HostMatches(h, t.NetworkExplicit) {
			out = append(out, h)
		}
	}
	return out
}

// AttributionGaps are docs hosts the shell may also reach, so pages read
// there from the shell are not recorded.
func (t *Task) AttributionGaps() []string {
	var out []string
	for _, h := range t.DocsAllow {
		if egress.HostMatches(h, t.NetworkExplicit) {
			out = append(out, h)
		}
	}
	return out
}

// Lints returns the findings of validate, in a stable order.
func (t *Task) Lints() []Lint {
	var out []Lint
	add := func(kind, rule, format string, args ...any) {
		out = append(out, Lint{Kind: kind, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	if t.NeverFails() {
		add("warning", "check.never-fails", "%s's success check exits 0 whatever the workspace holds, so every run passes. Assert the outcome the docs promise (a file, an answer over HTTP, printed output).", t.Name)
	}
	if t.ServesUnchecked() {
		add("warning", "check.serve-unchecked", "%s's success check starts a server with qs_serve but never asks it anything. Add qs_wait_http (or wait_http:) with what it should answer.", t.Name)
	}
	for _, d := range t.UnpreparedEnvPaths() {
		add("warning", "check.unprepared-path", "the success check requires %s/bin/, which neither setup nor the replay commands create. Does the documentation promise that path? An agent that names its environment differently fails a check it should have passed, and the pass rate is wrong rather than low.", d)
	}
	if t.CanFailSilently() {
		add("warning", "check.silent", "%s's success check can exit non-zero without printing anything, so a failure would name a docs page and no reason. Add `|| qs_fail \"what you saw\"`.", t.Name)
	}
	if len(t.Replay) == 0 {
		add("note", "replay.none", "%s has no 'replay' commands, so `--agent replay` skips it.", t.Name)
	}
	for _, h := range t.NetworkConflicts() {
		add("warning", "network.conflict", "%s is declared a docs host, so the shell cannot reach it; installs that need it will fail. Add it under network.allow if that is intended.", h)
	}
	for _, h := range t.AttributionGaps() {
		add("note", "network.attribution-gap", "%s is both a docs host and network-allowed, so pages the shell reads there are not recorded.", h)
	}
	if t.NeedsNode() && t.Image == "" {
		add("warning", "image.node", "%s's success script calls a Node tool but no 'image' is set, and the default image has no Node. Set image: node:22-slim (or similar).", t.Name)
	}
	return out
}
