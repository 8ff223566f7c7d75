// Package netgate is the managed browser's one way out to the network when
// the server is told which origins pages may reach (--allowed-origins,
// --blocked-origins) or given a proxy that needs a password: a proxy on
// loopback that the browser must use for every request, loopback ones
// too. Each request is checked against the rules before anything is sent;
// a refused one fails as a network error in the page. Being a proxy, it
// sees what the browser's network stack sends — navigations, redirects,
// subresources, fetch/XHR, workers, popups, WebSockets — whoever in the
// browser sent it.
package netgate

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
)

// Rule is one entry of an origin list: scheme://host[:port], host[:port],
// with "*." before a host for its subdomains (and itself), or "*" for all.
type Rule struct {
	Text   string // as given, for messages
	Scheme string // "" matches any
	Host   string // lower case; "" with Any
	Port   int    // 0 matches any
	Sub    bool   // "*.host": the host and its subdomains
	Any    bool   // "*"
}

// ParseRules reads a list of rules joined by ';' or ','; flag names the
// option for errors.
func ParseRules(flag, list string) ([]Rule, error) {
	var rules []Rule
	for _, item := range strings.FieldsFunc(list, func(r rune) bool { return r == ';' || r == ',' }) {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		r, err := parseRule(item)
		if err != nil {
			return nil, errs.Input(flag, "%q: %v", item, err).
				WithHint("give origins such as https://example.com, example.com:8080 or *.example.com, joined by ';'")
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func parseRule(item string) (Rule, error) {
	r := Rule{Text: item}
	if item == "*" {
		r.Any = true
		return r, nil
	}
	rest := item
	if scheme, after, ok := strings.Cut(item, "://"); ok {
		r.Scheme, rest = strings.ToLower(scheme), after
		switch r.Scheme {
		case "http", "https", "ws", "wss":
		default:
			return r, errBadScheme
		}
	}
	rest = strings.TrimSuffix(rest, "/")
	if strings.ContainsAny(rest, "/?#@") {
		return r, errNotOrigin
	}
	host, port := rest, ""
	if h, p, err := net.SplitHostPort(rest); err == nil {
		host, port = h, p
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n <= 0 || n > 65535 {
			return r, errBadPort
		}
		r.Port = n
	} else if r.Scheme != "" {
		r.Port = defaultPort(r.Scheme)
	}
	if sub, ok := strings.CutPrefix(host, "*."); ok {
		r.Sub, host = true, sub
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if host == "" || strings.Contains(host, "*") {
		return r, errNotOrigin
	}
	r.Host = host
	return r, nil
}

type ruleError string

func (e ruleError) Error() string { return string(e) }

const (
	errBadScheme = ruleError("the scheme is not http, https, ws or wss")
	errNotOrigin = ruleError("not an origin (scheme://host[:port], no path)")
	errBadPort   = ruleError("the port is not 1 to 65535")
)

func defaultPort(scheme string) int {
	if scheme == "https" || scheme == "wss" {
		return 443
	}
	return 80
}

// Target is where a request goes. Scheme is "" for a tunnel (CONNECT),
// which says only host and port: https and wss look alike there.
type Target struct {
	Scheme string
	Host   string
	Port   int
}

// matches reports whether r covers t.
func (r Rule) matches(t Target) bool {
	if r.Any {
		return true
	}
	host := strings.ToLower(t.Host)
	if host != r.Host && !(r.Sub && strings.HasSuffix(host, "."+r.Host)) {
		return false
	}
	if r.Port != 0 && r.Port != t.Port {
		return false
	}
	return r.Scheme == "" || t.Scheme == "" || sameFamily(r.Scheme, t.Scheme)
}

// sameFamily: a rule for http covers ws to the same place, https wss.
func sameFamily(a, b string) bool {
	secure := func(s string) bool { return s == "https" || s == "wss" }
	return secure(a) == secure(b)
}

// Policy decides which targets pages may reach.
type Policy struct {
	Allowed []Rule // when any, only these
	Blocked []Rule // never these, allowed or not
}

// Refusal returns why t is refused ("" when it may go).
func (p Policy) Refusal(t Target) string {
	for _, r := range p.Blocked {
		if r.matches(t) {
			return "--blocked-origins " + r.Text
		}
	}
	if len(p.Allowed) == 0 {
		return ""
	}
	for _, r := range p.Allowed {
		if r.matches(t) {
			return ""
		}
	}
	return "not in --allowed-origins"
}

// TargetOf is the target of an absolute URL: its port, or its scheme's
// default.
func TargetOf(u *url.URL) Target {
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		port = defaultPort(u.Scheme)
	}
	return Target{Scheme: u.Scheme, Host: u.Hostname(), Port: port}
}
