package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/batch"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Replay is a tab's successful actions as browser_batch steps: what
// `tabwright batch --url StartURL --steps FILE` runs without a model.
type Replay struct {
	Tab      string            `json:"tab"`
	StartURL string            `json:"start_url"`
	Steps    []json.RawMessage `json:"steps"`
	// Next is the call to print the following steps from (--from), when
	// the batch stopped early: a navigation, or the batch's step limit.
	Next  int    `json:"next,omitempty"`
	Notes []Note `json:"notes"`
}

// Note is a call the steps leave out, or keep with a caveat, and why.
type Note struct {
	Seq  int    `json:"seq"`
	Tool string `json:"tool"`
	Why  string `json:"why"`
}

// readOnly are tools that only read: nothing of them is replayed.
var readOnly = map[string]bool{
	"browser_discover": true, "browser_observe": true, "browser_screenshot": true, "browser_logs": true, "browser_pdf": true,
}

// Steps turns the successful actions on tab (empty: the first tab that
// acted) from call from (0: the first) into batch steps. Every call on
// the tab that is not replayed is in Notes with the reason.
func Steps(s *Loaded, tab string, from int) (*Replay, error) {
	acted := actedTabs(s.Calls)
	if len(acted) == 0 {
		return nil, errs.Input("DIR", "no call in this session acted on a tab: nothing to replay")
	}
	if tab == "" {
		tab = acted[0]
	} else if !slices.Contains(acted, tab) {
		return nil, errs.Input("--tab", "no call acted on tab %q; the tabs that were acted on: %s", tab, strings.Join(acted, ", "))
	}
	b := &builder{r: &Replay{Tab: tab, Steps: []json.RawMessage{}, Notes: []Note{}}, limit: batch.ContractLimits().MaxSteps}
	if len(acted) > 1 {
		b.r.Notes = append(b.r.Notes, Note{Why: fmt.Sprintf("the session acted on %d tabs (%s); these steps are tab %s's (choose with --tab)", len(acted), strings.Join(acted, ", "), tab)})
	}
	for _, c := range s.Calls {
		if c.Tab != tab || c.Seq < from {
			continue
		}
		if !b.add(c) {
			break
		}
	}
	if len(b.reads) > 0 {
		b.r.Notes = append(b.r.Notes, Note{Why: "calls " + strings.Join(b.reads, ", ") + " only read the page: nothing to replay"})
	}
	return b.r, nil
}

// actedTabs lists the tabs a call acted on, in the order they were first.
func actedTabs(calls []Call) []string {
	var out []string
	for _, c := range calls {
		if c.Tab != "" && !readOnly[c.Tool] && !slices.Contains(out, c.Tab) {
			out = append(out, c.Tab)
		}
	}
	return out
}

type builder struct {
	r     *Replay
	limit int
	reads []string
}

func (b *builder) note(c Call, format string, args ...any) {
	b.r.Notes = append(b.r.Notes, Note{Seq: c.Seq, Tool: c.Tool, Why: fmt.Sprintf(format, args...)})
}

// add takes one call; false: the batch ends before it.
func (b *builder) add(c Call) bool {
	switch {
	case readOnly[c.Tool]:
		b.reads = append(b.reads, fmt.Sprintf("%d (%s)", c.Seq, c.Tool))
		return true
	case c.Tool == "browser_batch":
		return b.addBatch(c)
	case c.IsError:
		b.note(c, "failed (%s): left out", errorCode(c))
		return true
	case c.Tool == "browser_open_tab" || c.Tool == "browser_claim_tab":
		b.start(c.URLAfter)
		return true
	case c.Tool == "browser_navigate":
		return b.navigate(c)
	case c.Tool == "browser_dialog":
		b.dialog(c)
		return true
	}
	action, isAction := strings.CutPrefix(c.Tool, "browser_")
	if !isAction || !slices.Contains(act.BatchActions(), action) {
		b.note(c, "%s is not a browser_batch step: left out", c.Tool)
		return true
	}
	step, why := stepOf(action, c)
	if why != "" {
		b.note(c, "%s", why)
		return true
	}
	return b.push(c, step)
}

// start sets where the replay begins, while no step is taken yet.
func (b *builder) start(url string) {
	if len(b.r.Steps) == 0 && url != "" {
		b.r.StartURL = url
	}
}

// navigate: before any step, the page a navigation reached is where the
// replay starts; after one, a batch cannot navigate, so it ends there.
func (b *builder) navigate(c Call) bool {
	if len(b.r.Steps) == 0 {
		b.start(c.URLAfter)
		return true
	}
	b.r.Next = c.Seq
	b.note(c, "navigates, which a batch cannot: the steps stop here; print the rest with --from %d", c.Seq)
	return false
}

// dialog: the step before that opened it gets the answer as its policy.
func (b *builder) dialog(c Call) {
	var in struct {
		Action     string `json:"action"`
		PromptText string `json:"prompt_text"`
	}
	json.Unmarshal(c.Args, &in)
	n := len(b.r.Steps)
	if n == 0 || (in.Action != tabs.DialogAccept && in.Action != tabs.DialogDismiss) {
		b.note(c, "answered a dialog no replayed step opened: left out")
		return
	}
	var step map[string]json.RawMessage
	json.Unmarshal(b.r.Steps[n-1], &step)
	step["dialog_policy"], _ = json.Marshal(in.Action)
	b.r.Steps[n-1], _ = json.Marshal(step)
	why := "became dialog_policy " + in.Action + " of the step before it"
	if in.PromptText != "" {
		why += " (a batch cannot type a prompt's text: it accepts with the default)"
	}
	b.note(c, "%s", why)
}

// addBatch takes a batch's steps that succeeded: all of them, or those
// before the one that failed.
func (b *builder) addBatch(c Call) bool {
	var in struct {
		Steps        []map[string]json.RawMessage `json:"steps"`
		StartAt      int                          `json:"start_at"`
		DialogPolicy json.RawMessage              `json:"dialog_policy"`
	}
	if json.Unmarshal(c.Args, &in) != nil || in.StartAt < 0 || in.StartAt > len(in.Steps) {
		b.note(c, "its arguments were not recorded whole: left out")
		return true
	}
	end := len(in.Steps)
	if c.IsError {
		var failed struct {
			FailedStep *int `json:"failed_step"`
		}
		json.Unmarshal(c.Structured, &failed)
		if failed.FailedStep == nil || *failed.FailedStep < in.StartAt || *failed.FailedStep > end {
			b.note(c, "failed (%s) before its steps ran: left out", errorCode(c))
			return true
		}
		end = *failed.FailedStep
		b.note(c, "failed at step %d (%s): steps %d to %d left out", end, errorCode(c), end, len(in.Steps)-1)
	}
	for _, step := range in.Steps[in.StartAt:end] {
		if _, own := step["dialog_policy"]; !own && len(in.DialogPolicy) > 0 {
			step["dialog_policy"] = in.DialogPolicy
		}
		raw, _ := json.Marshal(step)
		if !b.push(c, raw) {
			return false
		}
	}
	return true
}

// push appends a step that the batch contract accepts.
func (b *builder) push(c Call, step json.RawMessage) bool {
	if len(b.r.Steps) == b.limit {
		b.r.Next = c.Seq
		b.note(c, "a batch holds at most %d steps: the steps stop here; print the rest with --from %d", b.limit, c.Seq)
		return false
	}
	one, _ := json.Marshal(map[string]any{"tab_handle": "replay", "steps": []json.RawMessage{step}})
	if _, v := batch.Prevalidate(one); len(v) > 0 {
		b.note(c, "its step is not a valid browser_batch step (%s): left out", v[0].Error())
		return true
	}
	if strings.Contains(string(step), tabs.Redacted) {
		b.note(c, "holds %s where the server hid a secret: put the value back in the steps file before replaying", tabs.Redacted)
	}
	b.r.Steps = append(b.r.Steps, step)
	return true
}

// stepOf is a single-action call's arguments as a batch step: the tab
// handle dropped, refs replaced by the selectors recorded for them.
func stepOf(action string, c Call) (json.RawMessage, string) {
	var args map[string]json.RawMessage
	if json.Unmarshal(c.Args, &args) != nil || args == nil {
		return nil, "its arguments were not recorded whole: left out"
	}
	delete(args, "tab_handle")
	args["action"], _ = json.Marshal(action)
	if why := replaceRef(args, c, ""); why != "" {
		return nil, why
	}
	if why := manyOptions(args); why != "" {
		return nil, why
	}
	if obs, ok := args["observe"]; ok && strings.Contains(string(obs), `"ref"`) {
		delete(args, "observe") // a read after the step: the replay's result is the same without it
	}
	if _, ok := args["frame_id"]; ok {
		return nil, "names its frame by frame_id, which is one browser run's: left out"
	}
	raw, _ := json.Marshal(args)
	return raw, ""
}

// replaceRef puts the selector recorded for the ref of field ("" is the
// step's own locator) in place of the ref.
func replaceRef(args map[string]json.RawMessage, c Call, field string) string {
	var ref string
	if json.Unmarshal(args["ref"], &ref) != nil || ref == "" {
		return ""
	}
	loc, ok := c.Stable[field]
	if !ok || loc.Selector == "" {
		why := c.StableError
		if why == "" {
			why = "the recording has no selector for it"
		}
		return fmt.Sprintf("used ref %s and it could not be replaced by a selector (%s): left out", ref, why)
	}
	if loc.FrameID != "" {
		return fmt.Sprintf("used ref %s, in a frame known only by its frame_id (one browser run's): left out", ref)
	}
	delete(args, "ref")
	for _, k := range []string{"selector_type", "name", "nth", "frame", "frame_id"} {
		delete(args, k)
	}
	args["selector"], _ = json.Marshal(loc.Selector)
	if loc.Frame != nil {
		args["frame"], _ = json.Marshal(loc.Frame)
	}
	return ""
}

// manyOptions turns select_option's values/labels of one option into the
// batch's value/label; several cannot be one batch step.
func manyOptions(args map[string]json.RawMessage) string {
	for _, plural := range []string{"values", "labels"} {
		raw, ok := args[plural]
		if !ok {
			continue
		}
		var list []string
		json.Unmarshal(raw, &list)
		if len(list) != 1 {
			return fmt.Sprintf("chose %d options at once (%s), which a batch step cannot: left out", len(list), plural)
		}
		delete(args, plural)
		args[strings.TrimSuffix(plural, "s")], _ = json.Marshal(list[0])
	}
	return ""
}

func errorCode(c Call) string {
	if c.Error != nil {
		return c.Error.Code
	}
	return "error"
}
