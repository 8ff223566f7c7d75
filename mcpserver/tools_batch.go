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

const batchDoc = `Run steps in order on one claimed tab, in one call under one deadline (timeout_ms; a step's own is capped by what remains). A step is {"action": A, ...browser_A's fields but tab_handle}; selectors, not refs.
All steps are checked first (those before start_at too): a bad batch runs nothing and lists each violation with its path. The first failure stops it, no rollback or retry: failed_step, error {code, message, path, hint}, the steps before it. A step's observe reads a control after it; the batch's after the last (a failed read is observe_error, not a failure).
Result: ok, steps (index, action, ok, elapsed_ms, what the step's tool returns), skipped, observe, elapsed_ms.
Errors: invalid_input (with violations), invalid_handle, a failed step's code.`

// batchTopDocs describes the batch's own fields (tab_handle is said once,
// in browser_observe).
var batchTopDocs = map[string]string{
	"observe":       "Read a control after the last step.",
	"start_at":      "First step run; those before are only checked.",
	"timeout_ms":    "Deadline of the whole batch.",
	"dialog_policy": "For the steps that set none.",
}

// batchSchema is the contract with our descriptions, its repeated parts
// (frame, observe, the locator fields) factored into $defs: it validates
// exactly what the contract validates (TestBatchSchemaEqualsContract) at half
// its size. The fields of a step are those of the single-action tool of its
// action, described there; here they are not described again.
func batchSchema() schema { return schemas.Factor(batchContract()) }

// batchContract is the contract with our descriptions, written out in full.
func batchContract() schema {
	var s map[string]any
	if err := json.Unmarshal(schemas.BrowserBatchInput, &s); err != nil {
		panic(err) // the embedded contract is part of the build
	}
	dropDescriptions(s)
	props := s["properties"].(map[string]any)
	for name, d := range batchTopDocs {
		props[name].(map[string]any)["description"] = d
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
