package mcpserver

import (
	"sort"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
)

// Capability profiles: which tools a server lists. The tool list is read
// at the start of every conversation, so the default holds what everyday
// browsing needs and the rest comes on request (tabwright mcp --tools).
// A name here whose tool the server does not build is ignored; every tool
// the server builds is in the full profile (TestProfiles).

// DefaultProfile is the profile of a server started without --tools.
const DefaultProfile = "core"

var profiles = map[string][]string{
	// core: tabs, reading (browser_observe, browser_screenshot), a click
	// or a fill on a ref, and browser_batch for every other step (type,
	// select_option, wait, press_key, ...) and for sequences: what the
	// product is known for, within 20,000 characters.
	"core": {
		"browser_discover", "browser_open_tab", "browser_claim_tab", "browser_tab_control", "browser_navigate",
		"browser_observe", "browser_screenshot", "browser_click", "browser_fill", "browser_dialog", "browser_batch",
		"browser_page_tool",
	},
	// automation: core, plus each step kind as its own tool, logs and the
	// rarer inputs.
	"automation": {"core", "browser_type", "browser_select_option", "browser_wait", "browser_press_key",
		"browser_logs", "browser_hover", "browser_scroll", "browser_drag", "browser_upload"},
	// full: every tool.
	"full": {"automation", "browser_pdf", "browser_emulate", "browser_storage_state"},
}

// gated tools are listed in any profile, but only when the server is
// started with them allowed (Options).
var gated = map[string]func(Options) bool{
	"browser_evaluate": func(o Options) bool { return o.AllowEvaluate },
}

// ProfileNames lists the profiles, smallest first.
func ProfileNames() []string { return []string{"core", "automation", "full"} }

// ProfileEntries lists what a profile names as written: tools and the
// profiles it includes; nil for an unknown profile.
func ProfileEntries(name string) []string { return append([]string(nil), profiles[name]...) }

// ProfileTools lists the tools a profile names, sorted, the profiles it
// includes expanded; nil for an unknown profile.
func ProfileTools(name string) []string {
	if _, ok := profiles[name]; !ok {
		return nil
	}
	set := map[string]bool{}
	expand(name, set)
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func expand(name string, into map[string]bool) {
	list, ok := profiles[name]
	if !ok {
		into[name] = true
		return
	}
	for _, n := range list {
		expand(n, into)
	}
}

// toolSet resolves Options.Tools against the tools the server builds
// (known): each entry is a profile or a tool's name.
func toolSet(spec string, known map[string]bool) (map[string]bool, error) {
	if strings.TrimSpace(spec) == "" {
		spec = DefaultProfile
	}
	set := map[string]bool{}
	for _, n := range strings.Split(spec, ",") {
		n = strings.TrimSpace(n)
		_, isProfile := profiles[n]
		if !isProfile && !known[n] {
			return nil, errs.Input("--tools", "%q is neither a profile (%s) nor a tool this server has", n, strings.Join(ProfileNames(), ", ")).
				WithHint("run tabwright mcp --help for the tools of each profile")
		}
		expand(n, set)
	}
	return set, nil
}
