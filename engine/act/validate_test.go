package act

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
)

// stepOf decodes a step as a batch would (encoding/json).
func stepOf(t testing.TB, raw string) *Step {
	t.Helper()
	var s Step
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return &s
}

// Every rule of Validate, each with the exact paths it reports (under the
// prefix steps[3]), in order: Validate returns all violations at once, the
// contract's bounds in field order first, then the rules between fields.
func TestValidate(t *testing.T) {
	long := strings.Repeat("a", 10001)
	tests := []struct {
		name  string
		step  string
		paths []string // without the prefix; nil means valid
		msg   string   // substring of the first violation's message
	}{
		// valid steps, one per action
		{name: "click", step: `{"action":"click","selector":"#go","button":"right","click_count":2,"modifiers":["Alt","Shift"],"offset":{"x_ratio":0,"y_ratio":1},"settle_ms":[0,1000],"mode":"native","timeout_ms":100,"dialog_policy":"accept"}`},
		{name: "click by ref", step: `{"action":"click","ref":"e7","observe":{"selector":"#m","max_options":100,"max_chars":64000,"timeout_ms":5000}}`},
		{name: "click dom", step: `{"action":"click","selector":"#go","mode":"dom","button":"left","click_count":1}`},
		{name: "click by role with empty name in a frame", step: `{"action":"click","selector":"button","selector_type":"role","name":"","nth":0,"frame":{"path":["iframe#a"]}}`},
		{name: "fill empty text", step: `{"action":"fill","selector":"Email","selector_type":"label","text":"","expected_value":"","mode":"dom","frame_id":"F1"}`},
		{name: "type focused", step: `{"action":"type","focused":true,"text":"hi","delay_ms":[10,20]}`},
		{name: "type 10000 characters", step: `{"action":"type","selector":"#q","text":"` + long[:10000] + `"}`},
		{name: "hover", step: `{"action":"hover","selector":"//a","selector_type":"xpath","offset":{"x_ratio":0.5,"y_ratio":0.5}}`},
		{name: "select by index 0", step: `{"action":"select_option","selector":"#f","index":0}`},
		{name: "scroll until", step: `{"action":"scroll","until":{"text":"Bottom"},"max_steps":500,"mode":"wheel","x":1,"y":2}`},
		{name: "scroll a container", step: `{"action":"scroll","selector":"#list","delta_y":-10,"delta_x":3}`},
		{name: "wait text previous", step: `{"action":"wait","condition":"text","selector":"#l","previous":""}`},
		{name: "wait checked mixed", step: `{"action":"wait","condition":"checked","selector":"#c","expected":"mixed"}`},
		{name: "wait expanded false", step: `{"action":"wait","condition":"expanded","selector":"#m","expected":false}`},
		{name: "wait url", step: `{"action":"wait","condition":"url","expected":"/done"}`},
		{name: "wait network idle", step: `{"action":"wait","condition":"network_idle","idle_ms":10000}`},
		{name: "wait absent", step: `{"action":"wait","condition":"absent","selector":"#spinner"}`},
		{name: "press key guarded", step: `{"action":"press_key","key":"Control+Shift+Tab","selector":"#q"}`},
		{name: "press key alone", step: `{"action":"press_key","key":"Enter"}`},
		{name: "drag to", step: `{"action":"drag","selector":"#a","to":{"ref":"e2"}}`},
		{name: "drag by", step: `{"action":"drag","ref":"e1","dx":10}`},
		{name: "upload", step: `{"action":"upload","selector":"#file","files":["/tmp/a"]}`},

		// action
		{name: "no action", step: `{}`, paths: []string{"action"}, msg: `must be one of click, drag, fill, hover, press_key, scroll, select_option, type, upload, wait; got ""`},
		{name: "unknown action stops there", step: `{"action":"jump","button":"x","timeout_ms":1}`, paths: []string{"action"}, msg: `got "jump"`},

		// fields of other actions
		{name: "button on fill", step: `{"action":"fill","selector":"#e","text":"x","button":"left"}`, paths: []string{"button"}, msg: "is not a field of fill"},
		{name: "text on click", step: `{"action":"click","selector":"#e","text":"x"}`, paths: []string{"text"}, msg: "is not a field of click"},
		{name: "mode on hover", step: `{"action":"hover","selector":"#e","mode":"native"}`, paths: []string{"mode"}, msg: "is not a field of hover"},
		{name: "key and files on wait", step: `{"action":"wait","condition":"url","expected":"x","key":"a","files":["f"]}`, paths: []string{"key", "files"}},
		{name: "focused on fill", step: `{"action":"fill","selector":"#e","text":"x","focused":true}`, paths: []string{"focused"}},

		// locator presence per action
		{name: "click without locator", step: `{"action":"click"}`, paths: []string{"selector"}, msg: "is required for click"},
		{name: "fill without locator", step: `{"action":"fill","text":"x"}`, paths: []string{"selector"}, msg: "is required for fill"},
		{name: "upload without locator", step: `{"action":"upload","files":["a"]}`, paths: []string{"selector"}, msg: "is required for upload"},
		{name: "type with neither", step: `{"action":"type","text":"x"}`, paths: []string{"selector"}, msg: "not both and not neither"},
		{name: "type with selector and focused", step: `{"action":"type","selector":"#q","focused":true,"text":"x"}`, paths: []string{"selector"}, msg: "not both and not neither"},
		{name: "type with ref and focused", step: `{"action":"type","ref":"e1","focused":true,"text":"x"}`, paths: []string{"selector"}},
		{name: "type focused false", step: `{"action":"type","selector":"#q","focused":false,"text":"x"}`, paths: []string{"focused"}, msg: "may only be true"},
		{name: "type focused false alone", step: `{"action":"type","focused":false,"text":"x"}`, paths: []string{"focused", "selector"}},
		{name: "wait url with a selector", step: `{"action":"wait","condition":"url","selector":"#x","expected":"a"}`, paths: []string{"selector"}, msg: "condition url reads the page"},
		{name: "wait network_idle with a ref", step: `{"action":"wait","condition":"network_idle","ref":"e1"}`, paths: []string{"selector"}, msg: "condition network_idle reads the page"},
		{name: "wait visible without selector", step: `{"action":"wait","condition":"visible"}`, paths: []string{"selector"}, msg: "condition visible needs a selector"},

		// locator rules
		{name: "ref with selector", step: `{"action":"click","ref":"e1","selector":"#a"}`, paths: []string{"ref"}, msg: "a ref names the element alone"},
		{name: "ref with nth", step: `{"action":"click","ref":"e1","nth":0}`, paths: []string{"ref"}},
		{name: "ref with frame_id", step: `{"action":"click","ref":"e1","frame_id":"F"}`, paths: []string{"ref"}},
		{name: "selector_type without selector", step: `{"action":"scroll","delta_y":1,"selector_type":"css"}`, paths: []string{"selector"}, msg: "selector_type, name, nth, frame and frame_id need a selector"},
		{name: "nth without selector on click", step: `{"action":"click","nth":1}`, paths: []string{"selector", "selector"}, msg: "is required for click"},
		{name: "bad selector_type", step: `{"action":"click","selector":"x","selector_type":"text"}`, paths: []string{"selector_type"}, msg: `must be one of css, xpath, label, placeholder, role; got "text"`},
		{name: "name without role", step: `{"action":"click","selector":"x","name":"Go"}`, paths: []string{"name"}, msg: "is only for selector_type role"},
		{name: "name with label", step: `{"action":"click","selector":"x","selector_type":"label","name":""}`, paths: []string{"name"}},
		{name: "negative nth", step: `{"action":"click","selector":"x","nth":-1}`, paths: []string{"nth"}, msg: "must be 0 or more"},
		{name: "selector too long", step: `{"action":"click","selector":"` + long + `"}`, paths: []string{"selector"}, msg: "longer than 10000"},
		{name: "frame and frame_id", step: `{"action":"click","selector":"x","frame":{"url":"u"},"frame_id":"F"}`, paths: []string{"frame"}, msg: "give frame or frame_id, not both"},
		{name: "empty frame", step: `{"action":"click","selector":"x","frame":{}}`, paths: []string{"frame"}, msg: "at least one of url, title and path"},
		{name: "frame path too deep", step: `{"action":"click","selector":"x","frame":{"path":["a","a","a","a","a","a","a","a","a","a","a","a","a","a","a","a","a"]}}`, paths: []string{"frame.path"}, msg: "more than 16"},
		{name: "empty frame path step", step: `{"action":"click","selector":"x","frame":{"path":["iframe",""]}}`, paths: []string{"frame.path[1]"}, msg: "must not be empty"},

		// common fields
		{name: "bad dialog_policy", step: `{"action":"click","selector":"x","dialog_policy":"ignore"}`, paths: []string{"dialog_policy"}, msg: "must be one of ask, accept, dismiss"},
		{name: "timeout too short", step: `{"action":"click","selector":"x","timeout_ms":99}`, paths: []string{"timeout_ms"}, msg: "must be between 100 and 30000; got 99"},
		{name: "timeout too long", step: `{"action":"click","selector":"x","timeout_ms":30001}`, paths: []string{"timeout_ms"}},
		{name: "offset out of range", step: `{"action":"hover","selector":"x","offset":{"x_ratio":1.5,"y_ratio":-0.1}}`, paths: []string{"offset.x_ratio", "offset.y_ratio"}, msg: "must be between 0 and 1; got 1.5"},

		// click
		{name: "bad button", step: `{"action":"click","selector":"x","button":"back"}`, paths: []string{"button"}, msg: "must be one of left, middle, right"},
		{name: "click_count 3", step: `{"action":"click","selector":"x","click_count":3}`, paths: []string{"click_count"}, msg: "must be 1 or 2; got 3"},
		{name: "click_count 0", step: `{"action":"click","selector":"x","click_count":0}`, paths: []string{"click_count"}},
		{name: "click mode wheel", step: `{"action":"click","selector":"x","mode":"wheel"}`, paths: []string{"mode"}, msg: "must be one of native, dom"},
		{name: "unknown modifier", step: `{"action":"click","selector":"x","modifiers":["Shift","Ctrl"]}`, paths: []string{"modifiers[1]"}, msg: `got "Ctrl"`},
		{name: "modifier twice", step: `{"action":"click","selector":"x","modifiers":["Shift","Alt","Shift"]}`, paths: []string{"modifiers[2]"}, msg: "Shift is given twice"},
		{name: "dom right click", step: `{"action":"click","selector":"x","mode":"dom","button":"right"}`, paths: []string{"mode"}, msg: "dom clicks are left, single"},
		{name: "dom double click", step: `{"action":"click","selector":"x","mode":"dom","click_count":2}`, paths: []string{"mode"}},
		{name: "dom with modifiers", step: `{"action":"click","selector":"x","mode":"dom","modifiers":["Alt"]}`, paths: []string{"mode"}},
		{name: "dom with offset", step: `{"action":"click","selector":"x","mode":"dom","offset":{"x_ratio":0,"y_ratio":0}}`, paths: []string{"mode"}},
		{name: "settle_ms min > max", step: `{"action":"click","selector":"x","settle_ms":[300,100]}`, paths: []string{"settle_ms"}, msg: "min 300 is greater than max 100"},
		{name: "settle_ms too long", step: `{"action":"click","selector":"x","settle_ms":1001}`, paths: []string{"settle_ms"}, msg: "must be between 0 and 1000 ms"},
		{name: "settle_ms out of range both ends", step: `{"action":"click","selector":"x","settle_ms":[-1,1001]}`, paths: []string{"settle_ms"}, msg: "must be between 0 and 1000 ms"},
		{name: "settle_ms below zero and reversed", step: `{"action":"click","selector":"x","settle_ms":[-1,-2]}`, paths: []string{"settle_ms", "settle_ms"}},

		// fill
		{name: "fill without text", step: `{"action":"fill","selector":"x"}`, paths: []string{"text"}, msg: "is required"},
		{name: "fill mode wheel", step: `{"action":"fill","selector":"x","text":"a","mode":"wheel"}`, paths: []string{"mode"}, msg: "must be one of native, dom"},

		// type
		{name: "type without text", step: `{"action":"type","selector":"x"}`, paths: []string{"text"}, msg: "is required"},
		{name: "type too long", step: `{"action":"type","selector":"x","text":"` + long + `"}`, paths: []string{"text"}, msg: "longer than 10000 characters"},
		{name: "delay_ms min > max", step: `{"action":"type","selector":"x","text":"a","delay_ms":[50,10]}`, paths: []string{"delay_ms"}, msg: "min 50 is greater than max 10"},
		{name: "delay_ms too long", step: `{"action":"type","selector":"x","text":"a","delay_ms":[0,1001]}`, paths: []string{"delay_ms"}},

		// select_option
		{name: "select none", step: `{"action":"select_option","selector":"x"}`, paths: []string{"value"}, msg: "give exactly one of value, label and index"},
		{name: "select value and label", step: `{"action":"select_option","selector":"x","value":"a","label":"A"}`, paths: []string{"value"}},
		{name: "select all three", step: `{"action":"select_option","selector":"x","value":"a","label":"A","index":0}`, paths: []string{"value"}},
		{name: "select negative index", step: `{"action":"select_option","selector":"x","index":-1}`, paths: []string{"index"}, msg: "must be 0 or more"},

		// scroll
		{name: "scroll without delta_y or until", step: `{"action":"scroll"}`, paths: []string{"delta_y"}, msg: "is required unless until is given"},
		{name: "scroll delta_x only", step: `{"action":"scroll","delta_x":5}`, paths: []string{"delta_y"}},
		{name: "scroll mode native", step: `{"action":"scroll","delta_y":1,"mode":"native"}`, paths: []string{"mode"}, msg: "must be one of dom, wheel"},
		{name: "max_steps 0", step: `{"action":"scroll","delta_y":1,"max_steps":0}`, paths: []string{"max_steps"}, msg: "must be between 1 and 500; got 0"},
		{name: "max_steps 501", step: `{"action":"scroll","delta_y":1,"max_steps":501}`, paths: []string{"max_steps"}},
		{name: "until without text", step: `{"action":"scroll","until":{"selector":"#l"}}`, paths: []string{"until.text"}, msg: "must not be empty"},
		{name: "until text too long", step: `{"action":"scroll","until":{"text":"` + long[:2001] + `"}}`, paths: []string{"until.text"}},
		{name: "x without y", step: `{"action":"scroll","delta_y":1,"x":3}`, paths: []string{"x"}, msg: "give x and y together"},
		{name: "y without x", step: `{"action":"scroll","delta_y":1,"y":3}`, paths: []string{"x"}},

		// wait
		{name: "wait without condition", step: `{"action":"wait"}`, paths: []string{"condition"}, msg: "is required"},
		{name: "unknown condition", step: `{"action":"wait","condition":"gone"}`, paths: []string{"condition", "selector"}, msg: `must be one of attached, absent`},
		{name: "text with expected and previous", step: `{"action":"wait","condition":"text","selector":"#l","expected":"a","previous":"b"}`, paths: []string{"expected"}, msg: "exactly one"},
		{name: "text with neither", step: `{"action":"wait","condition":"text","selector":"#l"}`, paths: []string{"expected"}},
		{name: "previous on visible", step: `{"action":"wait","condition":"visible","selector":"#l","previous":"b"}`, paths: []string{"previous"}, msg: "is only for condition text"},
		{name: "value without expected", step: `{"action":"wait","condition":"value","selector":"#l"}`, paths: []string{"expected"}, msg: "is required for condition value"},
		{name: "url without expected", step: `{"action":"wait","condition":"url"}`, paths: []string{"expected"}, msg: "is required for condition url"},
		{name: "checked with a word", step: `{"action":"wait","condition":"checked","selector":"#c","expected":"yes"}`, paths: []string{"expected"}, msg: "must be true or false for condition checked"},
		{name: "selected mixed", step: `{"action":"wait","condition":"selected","selector":"#c","expected":"mixed"}`, paths: []string{"expected"}},
		{name: "url with a boolean", step: `{"action":"wait","condition":"url","expected":true}`, paths: []string{"expected"}, msg: "must be a string for condition url"},
		{name: "text with a boolean", step: `{"action":"wait","condition":"text","selector":"#l","expected":false}`, paths: []string{"expected"}},
		{name: "expected on visible", step: `{"action":"wait","condition":"visible","selector":"#l","expected":"x"}`, paths: []string{"expected"}, msg: "is not used by condition visible"},
		{name: "idle_ms too short", step: `{"action":"wait","condition":"network_idle","idle_ms":99}`, paths: []string{"idle_ms"}, msg: "must be between 100 and 10000"},

		// press_key
		{name: "press without key", step: `{"action":"press_key"}`, paths: []string{"key"}, msg: "is required"},
		{name: "bad chord", step: `{"action":"press_key","key":"Control+Nope"}`, paths: []string{"key"}},
		{name: "dangling plus", step: `{"action":"press_key","key":"Control+"}`, paths: []string{"key"}},

		// drag
		{name: "drag nowhere", step: `{"action":"drag","selector":"#a"}`, paths: []string{"to"}, msg: "give a target locator (to) or a distance (dx, dy)"},
		{name: "drag to and by", step: `{"action":"drag","selector":"#a","to":{"selector":"#b"},"dy":3}`, paths: []string{"to"}, msg: "give to or dx/dy, not both"},
		{name: "drag to nothing", step: `{"action":"drag","selector":"#a","to":{"nth":1}}`, paths: []string{"to.selector", "to.selector"}, msg: "is required"},
		{name: "drag to ref with selector", step: `{"action":"drag","selector":"#a","to":{"ref":"e1","selector":"#b"}}`, paths: []string{"to.ref"}},
		{name: "drag to name without role", step: `{"action":"drag","selector":"#a","to":{"selector":"#b","name":"x"}}`, paths: []string{"to.name"}},

		// upload
		{name: "upload without files", step: `{"action":"upload","selector":"#f"}`, paths: []string{"files"}, msg: "is required"},
		{name: "upload empty path", step: `{"action":"upload","selector":"#f","files":["/a",""]}`, paths: []string{"files[1]"}, msg: "must not be empty"},

		// observe
		{name: "observe bounds", step: `{"action":"click","selector":"x","observe":{"max_options":0,"max_chars":999,"timeout_ms":5001}}`, paths: []string{"observe.max_options", "observe.max_chars", "observe.timeout_ms"}},
		{name: "observe ref with selector", step: `{"action":"click","selector":"x","observe":{"ref":"e1","selector":"#m"}}`, paths: []string{"observe.ref"}},
		{name: "observe name without role", step: `{"action":"click","selector":"x","observe":{"selector":"#m","name":"M"}}`, paths: []string{"observe.name"}},
		{name: "observe frame and frame_id", step: `{"action":"click","selector":"x","observe":{"selector":"#m","frame":{"title":"t"},"frame_id":"F"}}`, paths: []string{"observe.frame"}},

		// everything at once
		{
			name:  "every violation is reported",
			step:  `{"action":"click","selector":"x","name":"n","timeout_ms":5,"dialog_policy":"maybe","offset":{"x_ratio":2,"y_ratio":0},"button":"back","click_count":3,"modifiers":["X"],"settle_ms":[9,1],"text":"t","observe":{"max_options":0}}`,
			paths: []string{"timeout_ms", "dialog_policy", "observe.max_options", "offset.x_ratio", "button", "click_count", "modifiers[0]", "settle_ms", "text", "name"},
			msg:   "must be between 100 and 30000; got 5",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := stepOf(t, tc.step)
			got := s.Validate("steps[3]")
			var paths []string
			for _, e := range got {
				if e.Code != errs.InvalidInput {
					t.Errorf("%s: code %q, want invalid_input", e.Path, e.Code)
				}
				if e.Message == "" {
					t.Errorf("%s: empty message", e.Path)
				}
				paths = append(paths, e.Path)
			}
			var want []string
			for _, p := range tc.paths {
				want = append(want, "steps[3]."+p)
			}
			if !slices.Equal(paths, want) {
				t.Fatalf("paths %q, want %q\n%v", paths, want, got)
			}
			if tc.msg != "" && !strings.Contains(got[0].Message, tc.msg) {
				t.Errorf("message %q, want it to contain %q", got[0].Message, tc.msg)
			}
		})
	}
}

// Without a prefix the paths are the bare field names (the single-action
// tools' form), and a chord error keeps its hint.
func TestValidateNoPrefix(t *testing.T) {
	got := stepOf(t, `{"action":"press_key","key":"Control+Nope","timeout_ms":1}`).Validate("")
	if len(got) != 2 || got[0].Path != "timeout_ms" || got[1].Path != "key" {
		t.Fatalf("got %v", got)
	}
	if got[1].Hint == "" {
		t.Errorf("chord error without a hint: %v", got[1])
	}
	got = stepOf(t, `{"action":"upload","selector":"#f","files":[""]}`).Validate("")
	if len(got) != 1 || got[0].Path != "files[0]" {
		t.Fatalf("got %v", got)
	}
}

// Validate does not change the step it checks.
func TestValidateDoesNotMutate(t *testing.T) {
	raw := `{"action":"click","selector":"x","click_count":3,"settle_ms":[9,1],"observe":{"max_options":0}}`
	s := stepOf(t, raw)
	before, _ := json.Marshal(s)
	s.Validate("steps[0]")
	s.Validate("steps[0]")
	after, _ := json.Marshal(s)
	if string(before) != string(after) {
		t.Fatalf("step changed:\n%s\n%s", before, after)
	}
}
