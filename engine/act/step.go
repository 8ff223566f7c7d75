// Package act performs actions on one element of a tab (click, fill, type,
// hover, select_option, scroll, wait, press_key, drag, upload) with trusted
// input, and verifies each after dispatch. The fields of a Step are those of
// the browser_batch step variants, so single-action tools and batches share
// one vocabulary and one validation.
package act

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Actions.
const (
	Click        = "click"
	Fill         = "fill"
	Type         = "type"
	Hover        = "hover"
	SelectOption = "select_option"
	Scroll       = "scroll"
	Wait         = "wait"
	PressKey     = "press_key"
	Drag         = "drag"
	Upload       = "upload"
)

// Step is one action with its target and options. Pointer fields are
// optional; nil means the default.
type Step struct {
	Action string `json:"action"`
	locate.Locator
	TimeoutMS    *int           `json:"timeout_ms,omitempty"`
	DialogPolicy string         `json:"dialog_policy,omitempty"`
	Observe      *ObserveSpec   `json:"observe,omitempty"`
	Offset       *locate.Offset `json:"offset,omitempty"`

	// click
	Button     string   `json:"button,omitempty"`
	ClickCount *int     `json:"click_count,omitempty"`
	Mode       string   `json:"mode,omitempty"` // click, fill: native | dom; scroll: dom | wheel
	Modifiers  []string `json:"modifiers,omitempty"`
	SettleMS   *Range   `json:"settle_ms,omitempty"`

	// fill, type
	Text          *string `json:"text,omitempty"`
	ExpectedValue *string `json:"expected_value,omitempty"`
	DelayMS       *Range  `json:"delay_ms,omitempty"`
	Focused       *bool   `json:"focused,omitempty"`

	// select_option
	Value *string `json:"value,omitempty"`
	Label *string `json:"label,omitempty"`
	Index *int    `json:"index,omitempty"`

	// scroll
	DeltaX   *float64 `json:"delta_x,omitempty"`
	DeltaY   *float64 `json:"delta_y,omitempty"`
	X        *float64 `json:"x,omitempty"`
	Y        *float64 `json:"y,omitempty"`
	MaxSteps *int     `json:"max_steps,omitempty"`
	Until    *Until   `json:"until,omitempty"`

	// wait
	Condition string    `json:"condition,omitempty"`
	Expected  *Expected `json:"expected,omitempty"`
	Previous  *string   `json:"previous,omitempty"`
	IdleMS    *int      `json:"idle_ms,omitempty"`

	// press_key
	Key string `json:"key,omitempty"`

	// drag
	To *locate.Locator `json:"to,omitempty"`
	DX *float64        `json:"dx,omitempty"`
	DY *float64        `json:"dy,omitempty"`

	// upload
	Files []string `json:"files,omitempty"`

	carry bool // run by RunCarrying: the step's last verification may ride the next call
}

// Until stops a scroll once text shows in the viewport (inside selector,
// when given).
type Until struct {
	Text     string `json:"text"`
	Selector string `json:"selector,omitempty"`
}

// ObserveSpec asks for one control to be read after the action.
type ObserveSpec struct {
	locate.Locator
	PopupSelector string `json:"popup_selector,omitempty"`
	MaxOptions    *int   `json:"max_options,omitempty"`
	MaxChars      *int   `json:"max_chars,omitempty"`
	TimeoutMS     *int   `json:"timeout_ms,omitempty"`
}

// Range is a delay in milliseconds: a fixed number, or [min, max] for a
// uniformly random one (people do not type at a constant rate).
type Range struct {
	Min, Max int
}

// UnmarshalJSON reads 120 or [80, 200].
func (r *Range) UnmarshalJSON(b []byte) error {
	var n float64
	if err := json.Unmarshal(b, &n); err == nil {
		if n != math.Trunc(n) || math.Abs(n) > 1e9 {
			return fmt.Errorf("want an integer or [min, max]")
		}
		*r = Range{int(n), int(n)}
		return nil
	}
	var pair []float64
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("want an integer or [min, max]")
	}
	for _, x := range pair {
		if x != math.Trunc(x) || math.Abs(x) > 1e9 {
			return fmt.Errorf("want an integer or [min, max]")
		}
	}
	*r = Range{int(pair[0]), int(pair[1])}
	return nil
}

// MarshalJSON writes the form it was read in.
func (r Range) MarshalJSON() ([]byte, error) {
	if r.Min == r.Max {
		return json.Marshal(r.Min)
	}
	return json.Marshal([]int{r.Min, r.Max})
}

// Kind names the accepted shapes, for error messages.
func (Range) Kind() string { return "an integer or [min, max]" }

// Pick returns a duration within the range.
func (r *Range) Pick() time.Duration {
	if r == nil {
		return 0
	}
	ms := r.Min
	if r.Max > r.Min {
		ms += rand.IntN(r.Max - r.Min + 1)
	}
	return time.Duration(ms) * time.Millisecond
}

// Expected is the value a wait compares with: text, or a boolean for
// checked/selected/expanded ("mixed" is a string).
type Expected struct {
	Str  *string
	Bool *bool
}

// UnmarshalJSON reads a string or a boolean.
func (e *Expected) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		e.Str = &s
		return nil
	}
	var v bool
	if err := json.Unmarshal(b, &v); err == nil {
		e.Bool = &v
		return nil
	}
	return fmt.Errorf("want a string or a boolean")
}

// MarshalJSON writes the value.
func (e Expected) MarshalJSON() ([]byte, error) {
	if e.Bool != nil {
		return json.Marshal(*e.Bool)
	}
	return json.Marshal(e.Str)
}

// Kind names the accepted shapes, for error messages.
func (Expected) Kind() string { return "a string or true/false" }

// String renders the expected value for messages.
func (e *Expected) String() string {
	if e == nil {
		return "(none)"
	}
	if e.Bool != nil {
		return fmt.Sprint(*e.Bool)
	}
	return fmt.Sprintf("%q", *e.Str)
}

// Result says what an action did and what was verified.
type Result struct {
	Action   string              `json:"action"`
	Target   map[string]any      `json:"target,omitempty"`
	Verified string              `json:"verified,omitempty"`
	Value    *string             `json:"value,omitempty"`
	Selected map[string]any      `json:"selected,omitempty"`
	Scroll   *ScrollResult       `json:"scroll,omitempty"`
	Wait     map[string]any      `json:"wait,omitempty"`
	Dialogs  []tabs.DialogResult `json:"dialogs,omitempty"`
	Control  *Control            `json:"observe,omitempty"`
	// ObserveError reports a control read that failed; the action stands.
	ObserveError *errs.Error `json:"observe_error,omitempty"`
	// Loading says the tab's page had not finished loading when the step began.
	Loading *tabs.Loading `json:"loading,omitempty"`

	mayCarry bool     // the caller lets the step's last verification ride its next call
	later    *Pending // that check, when the step left one
}

// ScrollResult is where a scroll ended.
type ScrollResult struct {
	Steps   int     `json:"steps"`
	Found   *bool   `json:"found,omitempty"`
	ScrollX float64 `json:"scroll_x"`
	ScrollY float64 `json:"scroll_y"`
}
