package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/errs"
)

// unlistedHints say, for each tool this server has but does not list, how
// to start it so that it does: a client that calls one (from an example
// written for another profile) learns that instead of "unknown tool".
func unlistedHints(all []tool, listed func(name string) bool, opt Options, known map[string]bool) map[string]string {
	hints := map[string]string{}
	for _, t := range all {
		if listed(t.name) {
			continue
		}
		if _, isGated := gated[t.name]; isGated {
			hints[t.name] = "start the server with --allow-evaluate"
			continue
		}
		for _, p := range ProfileNames() {
			if set, _ := toolSet(p, known); set[t.name] {
				hints[t.name] = fmt.Sprintf("start the server with --tools %s (the profile that lists it), or add it alone: --tools %s,%s", p, orDefaultProfile(opt.Tools), t.name)
				break
			}
		}
	}
	return hints
}

func orDefaultProfile(spec string) string {
	if spec == "" {
		return DefaultProfile
	}
	return spec
}

// explainUnlisted answers a call of an unlisted tool with an error that
// says how to list it.
func explainUnlisted(hints map[string]string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
					if hint, unlisted := hints[p.Name]; unlisted {
						return errorResult(errs.New(errs.Unsupported, "%s is a tabwright tool, but this server does not list it", p.Name).WithHint("%s", hint)), nil
					}
				}
			}
			return next(ctx, method, req)
		}
	}
}
