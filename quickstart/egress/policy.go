package egress

import (
	"net/url"
	"slices"
	"strings"
)

// Reason is why the proxy allowed or refused a host, as each decision is
// recorded ("reason" in the trace): one closed set.
type Reason string

// Reasons recorded with each decision.
const (
	ReasonExplicit    Reason = "explicit_network_override"
	ReasonDocsHost    Reason = "docs_host_requires_read_docs"
	ReasonAllowlisted Reason = "allowlisted"
	ReasonNotListed   Reason = "not_allowlisted"
	// The harness's own host, refused without the running check's key.
	ReasonHarnessKey Reason = "harness_needs_check_key"
	// The harness's own host, answered for the check.
	ReasonHarness Reason = "harness_check"
	// A loopback host where no sandbox loopback is at hand: the proxy's
	// loopback is the harness machine's.
	ReasonHostLoopback Reason = "harness_machine_loopback"
	// An address of the harness's machine (one of its interfaces, a
	// link-local address) or of a private network, named by the task.
	ReasonHostNetwork Reason = "harness_machine_network"
	// A loopback host carried to the sandbox's own loopback.
	ReasonSandboxLoopback Reason = "sandbox_loopback"
	// read_docs' browser: a host on the read's docs allowlist, one off it,
	// and any request made while no read is under way.
	ReasonDocsListed    Reason = "docs_allowlisted"
	ReasonDocsNotListed Reason = "outside_docs_allowlist"
	ReasonDocsNoRead    Reason = "no_read_under_way"
)

// DefaultNetworkAllow is the registry list the shell may reach unless the
// task replaces it with network.only.
var DefaultNetworkAllow = []string{
	"pypi.org", "files.pythonhosted.org", "registry.npmjs.org", "github.com", "codeload.github.com",
	"objects.githubusercontent.com", "release-assets.githubusercontent.com", "deb.debian.org",
	"security.debian.org", "archive.ubuntu.com", "security.ubuntu.com", "crates.io", "static.crates.io",
	"proxy.golang.org",
}

// Policy is what the shell may reach.
type Policy struct {
	Explicit []string // named by hand (network.allow or network.only)
	Docs     []string // docs hosts: readable only through read_docs
	Allow    []string // the registry list: defaults plus network.allow, or network.only
}

// NewPolicy is the policy of a task as written: its docs route, docs.allow,
// network.allow and network.only. Docs are the route's hosts first, in
// route order and without repeats, then docs.allow; network.only, when it
// names a host, replaces the registry list.
func NewPolicy(route, docsAllow, networkAllow, networkOnly []string) Policy {
	p := Policy{Docs: docsHosts(route, hostList(docsAllow))}
	if only := hostList(networkOnly); len(only) > 0 {
		p.Allow, p.Explicit = only, only
		return p
	}
	allow := hostList(networkAllow)
	p.Allow = append(slices.Clone(DefaultNetworkAllow), allow...)
	p.Explicit = allow
	return p
}

// Decide says whether host may be reached, and why.
func (p Policy) Decide(host string) (bool, Reason) {
	switch {
	case HostMatches(host, p.Explicit):
		return true, ReasonExplicit
	case HostMatches(host, p.Docs):
		return false, ReasonDocsHost
	case HostMatches(host, p.Allow):
		return true, ReasonAllowlisted
	}
	return false, ReasonNotListed
}

// URLHostMatches reports whether rawURL has a host that HostMatches entries.
func URLHostMatches(rawURL string, entries []string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return false
	}
	return HostMatches(u.Hostname(), entries)
}

// HostMatches reports whether host equals an entry or is a subdomain of one:
// example.com matches docs.example.com, never notexample.com or
// example.com.evil.net.
func HostMatches(host string, entries []string) bool {
	h := strings.Trim(strings.ToLower(host), ".")
	if h == "" {
		return false
	}
	for _, e := range entries {
		e = strings.Trim(strings.ToLower(e), ".")
		if e != "" && (h == e || strings.HasSuffix(h, "."+e)) {
			return true
		}
	}
	return false
}

func hostList(in []string) []string {
	out := []string{}
	for _, s := range in {
		if s = strings.Trim(strings.ToLower(strings.TrimSpace(s)), "."); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// docsHosts is the effective docs allowlist: the route's hosts first, in
// route order and without repeats, then the listed hosts; a route host that
// is also listed stays where it was listed.
func docsHosts(route, listed []string) []string {
	out := append([]string{}, listed...)
	for i := len(route) - 1; i >= 0; i-- {
		if h := hostOf(route[i]); h != "" && !slices.Contains(out, h) {
			out = append([]string{h}, out...)
		}
	}
	return out
}

// hostOf is the lower-cased host of an absolute URL, read by hand: a route
// page's host, before or without url.Parse accepting it.
func hostOf(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return ""
	}
	rest := raw[i+3:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.LastIndex(rest, "@"); j >= 0 {
		rest = rest[j+1:]
	}
	if strings.HasPrefix(rest, "[") {
		if j := strings.Index(rest, "]"); j >= 0 {
			return strings.ToLower(rest[1:j])
		}
	}
	if j := strings.LastIndex(rest, ":"); j >= 0 {
		rest = rest[:j]
	}
	return strings.ToLower(rest)
}
