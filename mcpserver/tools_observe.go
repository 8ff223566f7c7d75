package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ---- browser_observe

type observeInput struct {
	TabHandle string `json:"tab_handle"`
	MaxChars  *int   `json:"max_chars"`
	TimeoutMS *int   `json:"timeout_ms"`
}

const (
	minObserveChars = 100
	maxObserveChars = 100000
)

func (s *server) observeTool() tool {
	return tool{
		def: &mcp.Tool{
			Name: "browser_observe",
			Description: `Read a claimed tab as one compact JSON observation (schemaversion 1): url, title, textpreview (visible text in reading order, cut at max_chars) and textlength (its full length), forms (each form with its fields: label, type, name, a unique selector, value — never a password's — required, disabled, options), interactive (visible actionable elements in DOM order: ref like e7, a unique CSS selector you can act on, role, label, state), capturedat (epoch ms), environment (browser and mode) and mode "passive". Refs stay the same for an element across observations of one document. What was cut is counted under reserved.truncated.
Errors: invalid_handle, invalid_input, timeout, browser_unavailable.`,
			InputSchema: object([]string{"tab_handle"}, map[string]schema{
				"tab_handle": tabHandleField,
				"max_chars":  integer("Cut textpreview at this many characters.", minObserveChars, maxObserveChars, observe.DefaultMaxChars),
				"timeout_ms": timeoutField,
			}),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		},
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			var in observeInput
			if err := decode(args, &in); err != nil {
				return nil, "", err
			}
			if err := firstErr(required("tab_handle", in.TabHandle), between("max_chars", in.MaxChars, minObserveChars, maxObserveChars), between("timeout_ms", in.TimeoutMS, minTimeoutMS, maxTimeoutMS)); err != nil {
				return nil, "", err
			}
			var obs *observe.Observation
			err := s.onTab(ctx, owner, in.TabHandle, in.TimeoutMS, func(ctx context.Context, t *tabs.Tab) (err error) {
				obs, err = observe.Capture(ctx, t, observe.Options{MaxChars: orDefault(in.MaxChars, 0)})
				if err == nil {
					obs.Environment = t.Environment()
				}
				return err
			})
			if err != nil {
				return nil, "", err
			}
			return obs, observe.Render(obs), nil
		},
	}
}
