package task

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// SchemaHint is the first line of a scaffolded task: editors that speak
// the YAML language server validate the file against the task schema.
const SchemaHint = "# yaml-language-server: $schema=https://snehankekre.com/quickstarted/task-schema.json"

var genericLabels = map[string]bool{"docs": true, "www": true, "api": true, "developer": true, "dev": true, "learn": true, "guide": true, "help": true}

var nonName = lazyRegexp(`[^a-z0-9]+`)

// ScaffoldName derives a task name from a docs URL's host: the registrable
// domain's own label (public-suffix aware, so docs.foo.co.uk gives foo),
// or a leading label that is not generic (fastapi.tiangolo.com gives
// fastapi), then "-quickstart".
func ScaffoldName(host string) string {
	host = strings.Trim(strings.ToLower(host), ".")
	if net.ParseIP(host) != nil {
		return "docs-quickstart" // an address names no project (127.0.0.1 is not "127")
	}
	labels := strings.Split(host, ".")
	name := labels[0]
	if etld1, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		owner := strings.Split(etld1, ".")[0]
		if genericLabels[name] || len(labels) <= len(strings.Split(etld1, ".")) {
			name = owner
		}
	} else if genericLabels[name] && len(labels) > 1 {
		name = labels[len(labels)-2]
	}
	name = strings.Trim(nonName().ReplaceAllString(name, "-"), "-")
	if name == "" {
		name = "docs"
	}
	return name + "-quickstart"
}

// ScaffoldAllow is the docs hosts a scaffold lists: the host, and its
// registrable domain when that differs (so sibling docs hosts are readable).
func ScaffoldAllow(host string) []string {
	host = strings.Trim(strings.ToLower(host), ".")
	out := []string{host}
	if etld1, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil && etld1 != host {
		out = append(out, etld1)
	}
	return out
}

// Scaffold writes a starter task for a docs entrypoint. It validates as
// written, and its check fails until the author writes a real one.
func Scaffold(entry, name string) (string, string, error) {
	u, err := url.Parse(entry)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", "", &Error{File: entry, Problems: []Problem{{Field: "entrypoint", Rule: "init.url", Message: fmt.Sprintf("the entrypoint must be an absolute http(s) URL, got %q", entry)}}}
	}
	if name == "" {
		name = ScaffoldName(u.Hostname())
	}
	var b strings.Builder
	b.WriteString(SchemaHint + "\n")
	fmt.Fprintf(&b, "name: %s\n", yamlScalar(name))
	b.WriteString(`# Describe the outcome a reader wants, not the API that gets there: the
# agent must find the how in the docs.
goal: >
  TODO: say what a newcomer should have working at the end, in one or two
  sentences.
docs:
  # The pages in the order the project presents them; add the rest of the
  # quickstart after this one.
  path:
`)
	fmt.Fprintf(&b, "    - %s\n", yamlScalar(entry))
	b.WriteString("  # Other documentation hosts the reader may follow links to. Never list\n  # package registries here: the shell could not reach them.\n  allow:\n")
	for _, h := range ScaffoldAllow(u.Hostname()) {
		fmt.Fprintf(&b, "    - %s\n", yamlScalar(h))
	}
	b.WriteString(`setup:
  - python3 -m venv .venv
# The documented commands, literally, for the replay agent.
replay:
  - "true"  # TODO: the quickstart's commands, one per item
success:
  # Exit 0 is a pass. Say what you saw when failing: qs_fail "..." prints it.
  script: |
    set -e
    qs_fail "TODO: write the success check for this task"
`)
	return name, b.String(), nil
}

// yamlScalar quotes s when YAML could read it as anything but this string.
func yamlScalar(s string) string {
	if s != "" && regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:-]*$`).MatchString(s) && !regexp.MustCompile(`^(?i:y|n|yes|no|on|off|true|false|null|~)$`).MatchString(s) && !regexp.MustCompile(`^[0-9._:-]+$`).MatchString(s) {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
