package act

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// fill replaces the element's value and reads it back. native: focus,
// select everything, insert the text in one go (no per-key events); dom:
// set the value through the element's setter and fire input and change.
func fill(ctx context.Context, t *tabs.Tab, s *Step, r *Result) error {
	text := *s.Text
	start := then(injected.FnFillStart, text)
	if s.Mode == "dom" {
		start = then(injected.FnSetValue, text)
	}
	var target *locate.Target
	loader := t.Loader()
	var set valueSet
	// Find, check and start (dom: set) in one page call, under the step's
	// dialog policy: focusing a field can open a dialog.
	err := guardedFind(ctx, t, s, r, func(ctx context.Context) error {
		var err error
		target, err = resolveThen(ctx, t, s.Locator, locate.ForFill, start, &set, r)
		if err != nil || set.Done {
			return err
		}
		if text == "" {
			return pressKeys(ctx, t, []Key{mustKey("Delete")}, 0)
		}
		_, err = cdproto.Call(ctx, t.Session(), input.InsertText, input.InsertTextParams{Text: text})
		return err
	})
	if err != nil {
		return err
	}
	h, f := target.Handle, target.Frame
	if set.Refused {
		return errs.Input("text", "the %s input does not take %q (the browser turned it into %q); the field keeps its value", set.Type, set.Value, set.Got).
			WithHint("%s", valueFormat(set.Type))
	}
	want := fillWant(s, set)
	if r.mayCarry && f == nil && s.Observe == nil {
		r.later = carriedReadBack(t, loader, h, want, r) // rides the next step's first call
		return nil
	}
	err = readBack(ctx, t, f, h, want, r)
	if err != nil && (t.Loader() != loader || navigatedAway(err)) {
		return navigatedFill(r)
	}
	return err
}

// fillWant is what the field must hold after a fill: expected_value, else
// the text as the browser holds it (trimmed, a colour in lower case).
func fillWant(s *Step, set valueSet) string {
	switch {
	case s.ExpectedValue != nil:
		return *s.ExpectedValue
	case set.Value != "":
		return set.Value
	}
	return *s.Text
}

// carriedReadBack is a fill's read-back left for the next step's first
// call; a navigation since the fill stands for its verification.
func carriedReadBack(t *tabs.Tab, loader, handle, want string, r *Result) *Pending {
	return pending(loader, injected.FnValueIs, handle, []any{want}, func(ctx context.Context, value json.RawMessage, err error) error {
		if value == nil && err == nil {
			return navigatedFill(r)
		}
		var v readValue
		if err == nil {
			json.Unmarshal(value, &v)
			err = compareValue(v, want, r)
		}
		if err != nil && (t.Loader() != loader || navigatedAway(err)) {
			return navigatedFill(r)
		}
		return err
	})
}

func navigatedFill(r *Result) error {
	r.Verified = "value set; the page navigated before it could be read back"
	return nil
}

// valueSet is what the page says of a value set whole.
type valueSet struct {
	Done    bool   `json:"done"`
	Refused bool   `json:"refused"`
	Type    string `json:"type"`
	Value   string `json:"value"`
	Got     string `json:"got"`
}

// valueFormat says how a value input wants its text.
func valueFormat(typ string) string {
	switch typ {
	case "date":
		return "write dates as YYYY-MM-DD, e.g. 2024-03-09"
	case "time":
		return "write times as HH:MM or HH:MM:SS, 24-hour, e.g. 13:05"
	case "month":
		return "write months as YYYY-MM, e.g. 2024-03"
	case "week":
		return "write weeks as YYYY-Www, e.g. 2024-W09"
	case "datetime-local":
		return "write date and time as YYYY-MM-DDTHH:MM, e.g. 2024-03-09T13:05"
	case "color":
		return "write colours as #rrggbb, e.g. #1e90ff"
	case "range":
		return "give a number within the range's min and max, on its step"
	}
	return "check the value against the field's format"
}

// readBack reads the element's value and compares it with want. A secret
// (a password, a card number) is compared in the page: its value is never
// in the result nor in the error.
func readBack(ctx context.Context, t *tabs.Tab, f *tabs.Frame, handle, want string, r *Result) error {
	var got readValue
	if err := eval(ctx, t, f, injected.Call(injected.FnReadValue, handle, want), &got); err != nil {
		return err
	}
	return compareValue(got, want, r)
}

// compareValue records the value read back and compares it with want.
func compareValue(got readValue, want string, r *Result) error {
	if got.Secret {
		if !got.Equal {
			return errs.New(errs.ValueMismatch, "the secret field does not hold the text given after the action (it holds %d characters; its value is not shown)", got.Length).
				WithHint("the page may reformat or limit input (maxlength, masks)")
		}
		r.Verified = "value read back equals the expected value (a secret: not shown)"
		return nil
	}
	r.Value = &got.Value
	if got.Value != want {
		return errs.New(errs.ValueMismatch, "the field holds %q after the action, expected %q", got.Value, want).
			WithHint("the page may reformat or limit input (maxlength, masks); set expected_value to what it should hold")
	}
	r.Verified = "value read back equals the expected value"
	return nil
}

// readValue is what the page reads back of a field: its value, or for a
// secret only whether it equals what was asked and its length.
type readValue struct {
	Value  string `json:"value"`
	Secret bool   `json:"secret"`
	Equal  bool   `json:"equal"`
	Length int    `json:"length"`
}

// typeText sends trusted key events for each character, into the located
// element or (focused: true) into whatever has focus. It stops as soon as
// focus leaves that element, so no keystroke lands elsewhere.
func typeText(ctx context.Context, t *tabs.Tab, s *Step, r *Result) error {
	var handle string
	var f *tabs.Frame
	if s.Focused != nil && *s.Focused {
		var focus *struct {
			Handle string         `json:"handle"`
			Target map[string]any `json:"target"`
		}
		if err := eval(ctx, t, nil, injected.Call(injected.FnFocusedEditable), &focus); err != nil {
			return err
		}
		if focus == nil {
			return errs.New(errs.NotActionable, "no editable element has focus").WithHint("click the field first, or give a selector")
		}
		handle, r.Target = focus.Handle, focus.Target
	} else {
		var focused bool
		target, err := resolveThen(ctx, t, s.Locator, locate.ForTyping, then(injected.FnFocus), &focused, r)
		if err != nil {
			return err
		}
		handle, f = target.Handle, target.Frame
		if !focused {
			return errs.New(errs.NotActionable, "the element did not take focus").WithHint("the page may redirect focus; click the field first")
		}
	}
	typed := 0
	for i, ch := range *s.Text {
		if i > 0 {
			settle(ctx, s.DelayMS.Pick())
			var still bool
			if err := eval(ctx, t, f, injected.Call(injected.FnIsFocused, handle), &still); err != nil {
				return err
			}
			if !still {
				return errs.New(errs.NotActionable, "focus left the element after %d of %d characters", typed, len([]rune(*s.Text))).
					WithHint("the page moved focus (autocomplete, validation); check what was typed and continue from there")
			}
		}
		err := guarded(ctx, t, s, r, func(ctx context.Context) error {
			if k, ok := KeyForRune(ch); ok {
				return pressKeys(ctx, t, []Key{k}, 0)
			}
			_, err := cdproto.Call(ctx, t.Session(), input.InsertText, input.InsertTextParams{Text: string(ch)})
			return err
		})
		if err != nil {
			return err
		}
		typed++
	}
	var got readValue
	if err := eval(ctx, t, f, injected.Call(injected.FnReadValue, handle, ""), &got); err == nil && !got.Secret {
		r.Value = &got.Value
	}
	r.Verified = fmt.Sprintf("%d characters typed with focus kept on the element", typed)
	return nil
}

// pressKey presses a chord like Control+A, optionally only while focus is
// on the located element.
func pressKey(ctx context.Context, t *tabs.Tab, s *Step, r *Result) error {
	chord, err := ParseChord("key", s.Key)
	if err != nil {
		return err
	}
	if s.Selector != "" || s.Ref != "" {
		var focused bool
		if _, err := resolveThen(ctx, t, s.Locator, locate.Attached, then(injected.FnIsFocused), &focused, r); err != nil {
			return err
		}
		if !focused {
			return errs.New(errs.NotActionable, "focus is not on %s, so %s was not pressed", s.Locator, s.Key).
				WithHint("focus the element first (click it), or drop the selector to press the key wherever focus is")
		}
	}
	err = guarded(ctx, t, s, r, func(ctx context.Context) error {
		return pressChord(ctx, t, chord)
	})
	if err != nil {
		return err
	}
	r.Verified = "key events dispatched: " + s.Key
	return nil
}

// pressChord holds the modifiers, presses the key and releases all.
func pressChord(ctx context.Context, t *tabs.Tab, c Chord) error {
	// In a chord a letter names the key, not its case: Control+A is the A key
	// with Control, the same as Control+a, unless Shift is in the chord.
	var held int64
	for _, m := range c.Modifiers {
		held |= modBit(m)
	}
	if c.Key.Shift && held != 0 && held&ModShift == 0 && len(c.Key.Key) == 1 {
		if lower, ok := LookupKey(strings.ToLower(c.Key.Key)); ok && !lower.Shift {
			c.Key = lower
		}
	}
	var mask int64
	var events []cdp.Command
	for _, m := range c.Modifiers {
		mask |= modBit(m)
		events = append(events, keyEvent(input.DispatchKeyEventTypeRawKeyDown, m, mask, false))
	}
	// With Control, Alt or Meta held a key types nothing; it is a command.
	withText := mask&(ModControl|ModAlt|ModMeta) == 0
	// A modifier pressed on its own reports itself held, as real keyboards do.
	events = append(events,
		keyEvent(input.DispatchKeyEventTypeKeyDown, c.Key, mask|modBit(c.Key), withText),
		keyEvent(input.DispatchKeyEventTypeKeyUp, c.Key, mask, false))
	for i := len(c.Modifiers) - 1; i >= 0; i-- {
		mask &^= modBit(c.Modifiers[i])
		events = append(events, keyEvent(input.DispatchKeyEventTypeKeyUp, c.Modifiers[i], mask, false))
	}
	// Sent back to back: the browser keeps their order.
	return t.Session().Pipeline(ctx, events...)
}

// pressKeys presses and releases each key, with Shift where the key needs it.
func pressKeys(ctx context.Context, t *tabs.Tab, keys []Key, mask int64) error {
	for _, k := range keys {
		c := Chord{Key: k}
		if k.Shift && mask&ModShift == 0 {
			shift, _ := LookupKey("Shift")
			c.Modifiers = []Key{shift}
		}
		if err := pressChord(ctx, t, c); err != nil {
			return err
		}
	}
	return nil
}

func keyEvent(typ input.DispatchKeyEventType, k Key, mask int64, withText bool) cdp.Command {
	p := input.DispatchKeyEventParams{
		Type: typ, Modifiers: mask, Key: k.Key, Code: k.Code,
		WindowsVirtualKeyCode: k.KeyCode, NativeVirtualKeyCode: k.KeyCode, Location: k.Location,
	}
	if typ == input.DispatchKeyEventTypeKeyDown {
		if withText && k.Text != "" {
			p.Text, p.UnmodifiedText = k.Text, k.Text
		} else {
			p.Type = input.DispatchKeyEventTypeRawKeyDown
		}
	}
	return cdp.Command{Method: input.DispatchKeyEvent.Method, Params: p}
}

func modBit(k Key) int64 {
	switch k.Key {
	case "Alt":
		return ModAlt
	case "Control":
		return ModControl
	case "Meta":
		return ModMeta
	case "Shift":
		return ModShift
	}
	return 0
}

func mustKey(name string) Key {
	k, ok := LookupKey(name)
	if !ok {
		panic("no key " + name)
	}
	return k
}
