package mcpserver

import (
	"net/url"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// checkTabURL is the one rule for a URL a tool asks a tab to load: the
// engine's form check, then file:// only when the user allowed it. A model
// steered by a page could otherwise open file:///home/… and read it back
// through browser_observe, as Playwright MCP also forbids by default.
func (s *server) checkTabURL(path, raw string) error {
	if err := tabs.ValidateURL(path, raw); err != nil {
		return err
	}
	if u, _ := url.Parse(raw); u.Scheme == "file" && !s.opt.AllowFileURLs {
		return errs.New(errs.PermissionDenied, "file:// URLs are off: a page could steer the agent into reading this machine's files").
			WithPath(path).
			WithHint("serve the file over http (e.g. python3 -m http.server), or start tabwright mcp with --allow-file-urls")
	}
	return nil
}
