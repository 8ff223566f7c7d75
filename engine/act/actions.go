package act

import (
	"context"

	"github.com/tabwright/tabwright/engine/tabs"
)

// action is everything one action is, in one place: its fields and their
// bounds are its step variant of the batch contract (contract.go); here
// are whether it needs an element, the rules between its fields that the
// contract states in words, and what it does.
type action struct {
	element bool                         // acts on one element: a locator is required
	rules   func(v *violations, s *Step) // nil: none beyond the fields' own bounds
	run     func(ctx context.Context, t *tabs.Tab, s *Step, r *Result) error
}

// actions is the table of every action, by name. Adding one: its variant
// in the contract (or nonBatchSteps), its fields in Step, an entry here.
var actions = map[string]action{
	Click:        {element: true, rules: clickRules, run: click},
	Fill:         {element: true, run: fill},
	Type:         {run: typeText}, // a locator or focused: see target
	Hover:        {element: true, run: hover},
	SelectOption: {element: true, rules: selectRules, run: selectOption},
	Scroll:       {rules: scrollRules, run: scroll},
	Wait:         {rules: waitRules, run: wait}, // an element or the page: see target
	PressKey:     {rules: pressKeyRules, run: pressKey},
	Drag:         {element: true, rules: dragRules, run: drag},
	Upload:       {element: true, run: upload},
}
