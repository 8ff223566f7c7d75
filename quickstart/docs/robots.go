package docs

import (
	"bufio"
	"strings"
)

// Robots is the part of a robots.txt (RFC 9309) that applies to one
// crawler: the rules of the groups naming its product token, else of the
// "*" groups. The longest matching pattern decides; Allow wins a tie; no
// matching rule allows.
type Robots struct {
	rules []robotsRule
}

type robotsRule struct {
	allow   bool
	pattern string
}

// maxRobots is how much of a robots.txt is read (RFC 9309 asks for at
// least 500 KiB).
const maxRobots = 512 << 10

// ParseRobots reads body for the crawler whose product token is agent.
func ParseRobots(body, agent string) *Robots {
	if len(body) > maxRobots {
		body = body[:maxRobots]
	}
	agent = strings.ToLower(agent)
	var mine, star []robotsRule
	var agents []string
	inRules := false // a rule line ends a group's user-agent lines
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 0, 4096), maxRobots)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		switch key {
		case "user-agent":
			if inRules {
				agents, inRules = nil, false
			}
			agents = append(agents, strings.ToLower(val))
		case "allow", "disallow":
			inRules = true
			if key == "disallow" && val == "" {
				continue // "Disallow:" with nothing allows everything
			}
			r := robotsRule{allow: key == "allow", pattern: val}
			for _, a := range agents {
				switch {
				case a == "*":
					star = append(star, r)
				case a != "" && strings.Contains(agent, a):
					mine = append(mine, r)
				}
			}
		}
	}
	if len(mine) == 0 && !namesAgent(body, agent) {
		mine = star
	}
	return &Robots{rules: mine}
}

// namesAgent reports whether some group names agent, even one without
// rules (which then allows everything rather than falling back to "*").
func namesAgent(body, agent string) bool {
	for _, line := range strings.Split(body, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(key), "user-agent") {
			v := strings.ToLower(strings.TrimSpace(strings.SplitN(val, "#", 2)[0]))
			if v != "" && v != "*" && strings.Contains(agent, v) {
				return true
			}
		}
	}
	return false
}

// Allowed reports whether the crawler may fetch pathQuery (the URL's path
// and query, "/" for none).
func (r *Robots) Allowed(pathQuery string) bool {
	if r == nil || pathQuery == "/robots.txt" {
		return true
	}
	best, allow := -1, true
	for _, rule := range r.rules {
		if !robotsMatch(rule.pattern, pathQuery) {
			continue
		}
		n := len(rule.pattern)
		if n > best || n == best && rule.allow {
			best, allow = n, rule.allow
		}
	}
	return allow
}

// robotsMatch matches a robots.txt path pattern: a prefix match where '*'
// is any run of characters and a final '$' anchors the end. Greedy with
// one backtrack point, so it is linear in practice and never exponential.
func robotsMatch(pattern, s string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	p, i, star, mark := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case p == len(pattern) && !anchored:
			return true
		case star >= 0:
			mark++
			p, i = star+1, mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
