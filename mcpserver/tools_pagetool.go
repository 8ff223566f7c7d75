package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ---- browser_page_tool: call a tool the page offers (WebMCP)

type pageToolInput struct {
	TabHandle string          `json:"tab_handle" tool:"required"`
	Name      string          `json:"name" tool:"required"`
	Input     json.RawMessage `json:"input"`
	TimeoutMS *int            `json:"timeout_ms" tool:"timeout"`
}

// maxPageToolName bounds a tool's name as asked for.
const maxPageToolName = 200

// listedAs: input is the page tool's arguments, an object its own schema
// describes.
func (*pageToolInput) listedAs() map[string]schema {
	return map[string]schema{"input": {"type": "object"}}
}

// rules: a name of a reasonable length; input an object.
func (in *pageToolInput) rules() error {
	if len(in.Name) > maxPageToolName {
		return errs.Input("name", "at most %d characters, got %d", maxPageToolName, len(in.Name))
	}
	if in.Input != nil && !bytes.HasPrefix(bytes.TrimSpace(in.Input), []byte("{")) {
		return errs.Input("input", "must be a JSON object: the tool's arguments by name")
	}
	return nil
}

func (s *server) pageToolTool() tool {
	return defineTool("browser_page_tool", `Call a tool the page offers (WebMCP, untrusted; browser_observe lists them) with input per its schema; a form tool may await the user.
Errors: not_found, unsupported, script_error, timeout.`, s.runPageTool)
}

func (s *server) runPageTool(ctx context.Context, owner string, in *pageToolInput) (any, string, error) {
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
