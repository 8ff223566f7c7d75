package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// browser_select_option with several options at once: values or labels,
// a single-action extension beyond the batch contract (whose select_option
// step takes one option).

const maxChoices = 100

// singleExtras are fields a single-action tool takes beyond its batch
// step's (the batch contract stays exact).
var singleExtras = map[string][]string{act.SelectOption: {"labels", "values"}}

type multiInput struct {
	TabHandle string   `json:"tab_handle"`
	Values    []string `json:"values"`
	Labels    []string `json:"labels"`
	act.Step
}

func (s *server) selectOptionTool() tool {
	base := s.actionTool(act.SelectOption)
	def := base.def
	base.def = func() *mcp.Tool {
		d := def()
		d.Description += " values/labels: several, in a <select multiple> or listbox."
		props := d.InputSchema.(schema)["properties"].(map[string]any)
		list := schema{"type": "array", "items": schema{"type": "string"}}
		props["values"], props["labels"] = list, list
		return d
	}
	fields := sync.OnceValue(func() []string { return append(actionFields(act.SelectOption), singleExtras[act.SelectOption]...) })
	base.run = func(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
		var in multiInput
		if err := decodeOnly(args, &in, fields()); err != nil {
			return nil, "", err
		}
		in.Action = act.SelectOption
		if in.Values == nil && in.Labels == nil {
			return s.runStep(ctx, owner, in.TabHandle, &in.Step)
		}
		if err := multiCheck(in); err != nil {
			return nil, "", err
		}
		var res *act.Result
		timeout := orDefault(in.Step.TimeoutMS, s.actionMS)
		err := s.onTab(ctx, owner, in.TabHandle, &timeout, func(ctx context.Context, t *tabs.Tab) (err error) {
			res, err = act.SelectMany(ctx, t, in.Step.Locator, act.Choice{Values: in.Values, Labels: in.Labels})
			return err
		})
		if err != nil {
			return nil, "", err
		}
		return res, fmt.Sprintf("select_option: %s\nselected: %v", res.Verified, res.Selected["options"]), nil
	}
	return base
}

func multiCheck(in multiInput) error {
	if err := required("tab_handle", in.TabHandle); err != nil {
		return err
	}
	field, list := "values", in.Values
	switch {
	case in.Values != nil && in.Labels != nil:
		return errs.Input("values", "give values or labels, not both")
	case in.Labels != nil:
		field, list = "labels", in.Labels
	}
	if len(list) == 0 || len(list) > maxChoices {
		return errs.Input(field, "must list 1 to %d options; got %d", maxChoices, len(list))
	}
	for i, v := range list {
		if v == "" && field == "labels" {
			return errs.Input(fmt.Sprintf("%s[%d]", field, i), "must not be empty")
		}
	}
	switch {
	case in.Value != nil || in.Label != nil || in.Index != nil:
		return errs.Input(field, "give %s or one of value, label and index, not both", field)
	case in.Observe != nil || in.DialogPolicy != "":
		return errs.Input(field, "observe and dialog_policy are not taken with %s", field)
	}
	if in.Step.Selector == "" && in.Step.Ref == "" {
		return errs.Input("selector", "is required (or ref)")
	}
	if v := act.ValidateLocator(in.Step.Locator); len(v) > 0 {
		return v[0]
	}
	return nil
}

// runStep validates a step and runs it in the tab's queue, within the
// call's timeout_ms (the server's action timeout when the step names none),
// as every action tool does. An upload's files are checked in the queue
// first.
func (s *server) runStep(ctx context.Context, owner, handle string, step *act.Step) (any, string, error) {
	if err := required("tab_handle", handle); err != nil {
		return nil, "", err
	}
	if v := step.Validate(""); len(v) > 0 {
		return nil, "", joinViolations(v)
	}
	t, ctx, cancel, err := s.tabWithin(ctx, owner, handle, ptr(orDefault(step.TimeoutMS, s.actionMS)))
	if err != nil {
		return nil, "", err
	}
	defer cancel()
	var res *act.Result
	err = t.Do(ctx, func(ctx context.Context) (err error) {
		if step.Action == act.Upload {
			if err := s.uploadFiles(ctx, step.Files); err != nil {
				return err
			}
		}
		res, err = act.RunWithin(ctx, t, step)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return res, renderResult(res), nil
}
