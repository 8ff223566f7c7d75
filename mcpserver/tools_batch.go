package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/batch"
	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/schemas"
)

const batchDoc = `Run ordered steps on one claimed tab in one call under one deadline (timeout_ms; a step's own timeout_ms is capped by what remains). A step is {"action": click | fill | type | hover | select_option | scroll | wait | press_key, ...the fields of that browser_ tool, without tab_handle}. Refs are refused: use selectors.
Every step is checked before anything runs (including those start_at skips); a bad batch runs nothing and lists every violation with its path. The first failure stops the batch, with no rollback or retry: failed_step, error {code, message, path, hint} and the results of the steps before it. dialog_policy applies to steps that set none. A step's observe reads a control after it; the batch's observe reads one after the last step (a failed read is observe_error, not a failure).
Result: ok, steps [{index, action, ok, elapsed_ms, target, verified, value, selected, wait, scroll, dialogs, observe}], skipped, observe, elapsed_ms.
Errors: invalid_input (with violations), invalid_handle, a failed step's code.`

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
// The fields of a step are those of the single-action tool of its action,
// described there; here they are not described again.
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
	items := props["steps"].(map[string]any)["items"].(map[string]any)
	for _, v := range items["oneOf"].([]any) {
		variant := v.(map[string]any)
		action := variant["properties"].(map[string]any)["action"].(map[string]any)
		variant["description"] = fmt.Sprintf("browser_%s's fields", action["const"])
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
			// One deadline from here on: the queue's wait spends the batch's budget.
			ctx, cancel := deadline.With(ctx, batch.Budget(req), "timeout_ms", "the batch's timeout_ms")
			defer cancel()
			budget := int(batch.Budget(req).Milliseconds())
			err := s.onTab(ctx, owner, req.TabHandle, &budget, func(ctx context.Context, t *tabs.Tab) error {
				res = batch.Run(ctx, t, req)
				return nil
			})
			if err != nil {
				return nil, "", err
			}
			batchToolHints(res)
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
