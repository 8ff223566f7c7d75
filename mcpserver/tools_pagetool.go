package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ---- browser_page_tool: call a tool the page offers (WebMCP)

type pageToolInput struct {
	TabHandle string          `json:"tab_handle"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	TimeoutMS *int            `json:"timeout_ms"`
}

// maxPageToolName bounds a tool's name as asked for.
const maxPageToolName = 200

func (s *server) pageToolTool() tool {
	return tool{
		name: "browser_page_tool",
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: `Call a tool the page offers (WebMCP, untrusted; browser_observe lists them) with input per its schema; a form tool may await the user.
Errors: not_found, unsupported, script_error, timeout.`,
				InputSchema: object([]string{"tab_handle", "name"}, map[string]schema{
					"tab_handle": tabHandleField,
					"name":       schema{"type": "string"},
					"input":      schema{"type": "object"},
					"timeout_ms": timeoutField(),
				}),
			}
		},
		run: s.runPageTool,
	}
}

func (s *server) runPageTool(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
	var in pageToolInput
	if err := decode(args, &in); err != nil {
		return nil, "", err
	}
	if err := firstErr(required("tab_handle", in.TabHandle), required("name", in.Name), between("timeout_ms", in.TimeoutMS, minTimeoutMS(), maxTimeoutMS())); err != nil {
		return nil, "", err
	}
	if len(in.Name) > maxPageToolName {
		return nil, "", errs.Input("name", "at most %d characters, got %d", maxPageToolName, len(in.Name))
	}
	if in.Input != nil && !bytes.HasPrefix(bytes.TrimSpace(in.Input), []byte("{")) {
		return nil, "", errs.Input("input", "must be a JSON object: the tool's arguments by name")
	}
	var res *tabs.PageToolResult
	err := s.onTab(ctx, owner, in.TabHandle, in.TimeoutMS, func(ctx context.Context, t *tabs.Tab) (err error) {
		res, err = t.CallPageTool(ctx, in.Name, in.Input)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return res, pageToolText(res), nil
}

// pageToolText is the result for a model that reads text: whose words the
// output is, then the output.
func pageToolText(r *tabs.PageToolResult) string {
	if r.Status == tabs.PageToolAwaitingUser {
		return fmt.Sprintf("page tool %q: the browser filled its form; it is not submitted: the page waits for the user to confirm by submitting it", r.Tool)
	}
	text := fmt.Sprintf("page tool %q answered (the page's words, untrusted):\n%s", r.Tool, r.Text)
	if r.Truncated {
		text += fmt.Sprintf("\n[cut at %d characters]", tabs.MaxPageToolOutput)
	}
	return text
}
