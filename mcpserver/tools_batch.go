package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/batch"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/schemas"
)

const batchDoc = `Run several actions on one claimed tab as ordered steps, in one call, under one deadline (timeout_ms, default 30000; a step's own timeout_ms is capped by what remains). Each step is a browser_<action> call without tab_handle: {"action": "click" | "fill" | "type" | "hover" | "select_option" | "scroll" | "wait" | "press_key", ...that tool's fields}. Refs are refused: locate with selector (css, xpath, label, placeholder, role + name), nth, frame / frame_id.
Every step is checked before anything runs, including steps start_at skips; a bad batch runs nothing and the error lists every violation with its path (steps[4].settle_ms: min 600 is greater than max 200).
Steps run in order; the first failure stops the batch, with no rollback and no retry: the result has failed_step (its index), error {code, message, path, hint}, and the results of the steps before it. dialog_policy applies to every step that does not set its own. A step's observe reads a control right after that step; the batch's observe reads one control (named by selector) after the last step; a failed read is reported in observe_error, never fails the batch. start_at skips a prefix you already completed.
Result: ok, steps [{index, action, ok, elapsed_ms, target, verified, value, selected, wait, scroll, dialogs, observe}], skipped, observe, elapsed_ms; on failure also failed_step and error.
Errors: invalid_input (with violations), invalid_handle, and a failed step's own code (not_found, ambiguous, not_actionable, value_mismatch, dialog_pending, timeout...).`

// batchTopDocs describes the batch's own fields.
var batchTopDocs = map[string]string{
	"tab_handle":    "Handle of a tab this session claimed.",
	"steps":         "1 to 30 steps, run in order.",
	"observe":       "After the last step, read the control named by selector (role, name, value, state, options).",
	"start_at":      "Index of the first step to run; earlier steps are still checked but not run.",
	"timeout_ms":    "Deadline for the whole batch.",
	"dialog_policy": "Dialog policy for steps that set none: ask (stop and report), accept, dismiss.",
}

// batchSchema is the contract with our descriptions: structure untouched.
func batchSchema() schema {
	var s map[string]any
	if err := json.Unmarshal(schemas.BrowserBatchInput, &s); err != nil {
		panic(err) // the embedded contract is part of the build
	}
	dropDescriptions(s)
	props := s["properties"].(map[string]any)
	for name, d := range batchTopDocs {
		props[name].(map[string]any)["description"] = d
	}
	if o, ok := props["observe"].(map[string]any); ok {
		describeAt(o, map[string]any{}, 1)
	}
	items := props["steps"].(map[string]any)["items"].(map[string]any)
	for _, v := range items["oneOf"].([]any) {
		variant := v.(map[string]any)
		describe(variant)
		action := variant["properties"].(map[string]any)["action"].(map[string]any)
		variant["description"] = fmt.Sprintf("A %s step: the fields of browser_%s.", action["const"], action["const"])
	}
	return s
}

// dropDescriptions removes the contract's description strings, at any
// depth, so that ours replace them.
func dropDescriptions(v any) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["description"].(string); ok {
			delete(x, "description")
		}
		for _, c := range x {
			dropDescriptions(c)
		}
	case []any:
		for _, c := range x {
			dropDescriptions(c)
		}
	}
}

func (s *server) batchTool() tool {
	return tool{
		name: "browser_batch",
		def:  func() *mcp.Tool { return &mcp.Tool{Description: batchDoc, InputSchema: batchSchema()} },
		run: func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
			req, violations := batch.Prevalidate(args)
			if len(violations) > 0 {
				return nil, "", invalidBatch(violations)
			}
			var res *batch.Result
			// The batch keeps its own deadline; the tab's queue may first have
			// to finish earlier work, which the margin covers.
			budget := batch.DefaultTimeoutMS + 5000
			if req.TimeoutMS != nil {
				budget = *req.TimeoutMS + 5000
			}
			err := s.onTab(ctx, owner, req.TabHandle, &budget, func(ctx context.Context, t *tabs.Tab) error {
				res = batch.Run(ctx, t, req)
				return nil
			})
			if err != nil {
				return nil, "", err
			}
			text := renderBatch(res)
			if !res.OK {
				return nil, "", &failure{content: res, text: text, err: res.Error}
			}
			return res, text, nil
		},
	}
}

// invalidBatch reports every violation; the first gives the error its path.
func invalidBatch(v []*errs.Error) error {
	first := v[0]
	lines := make([]string, 0, len(v))
	for _, e := range v {
		lines = append(lines, e.Path+": "+e.Message)
	}
	e := errs.Input(first.Path, "%d problem(s) in the batch; nothing ran", len(v)).
		WithHint("fix every listed field and send the batch again")
	return &failure{
		content: map[string]any{"error": e, "violations": v},
		text:    "error invalid_input: nothing ran:\n" + strings.Join(lines, "\n"),
		err:     e,
	}
}

func renderBatch(r *batch.Result) string {
	var b strings.Builder
	if r.OK {
		fmt.Fprintf(&b, "batch done: %d step(s) in %d ms", len(r.Steps), r.ElapsedMS)
	} else {
		fmt.Fprintf(&b, "batch stopped at step %d after %d ms", *r.FailedStep, r.ElapsedMS)
	}
	if r.Skipped > 0 {
		fmt.Fprintf(&b, " (%d skipped by start_at)", r.Skipped)
	}
	for _, st := range r.Steps {
		b.WriteString("\n")
		fmt.Fprintf(&b, "[%d] ", st.Index)
		if st.Result != nil {
			b.WriteString(renderResult(st.Result))
		} else {
			b.WriteString(st.Action)
		}
		if st.Error != nil {
			fmt.Fprintf(&b, "\n    error %s at %s: %s", st.Error.Code, st.Error.Path, st.Error.Message)
			if st.Error.Hint != "" {
				b.WriteString("\n    next: " + st.Error.Hint)
			}
		}
	}
	if r.Observe != nil {
		c, _ := json.Marshal(r.Observe)
		fmt.Fprintf(&b, "\nobserve: %s", c)
	}
	if r.ObserveError != nil {
		fmt.Fprintf(&b, "\nobserve failed: %s", r.ObserveError.Error())
	}
	return b.String()
}
