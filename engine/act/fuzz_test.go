package act

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
)

// FuzzValidate decodes arbitrary JSON into a Step as a batch does
// (encoding/json) and validates it under steps[0]. Properties: no panic;
// every violation is invalid_input with a message and a path under
// "steps[0]."; validating twice gives the same answer.
//
//	go test ./engine/act -run '^$' -fuzz FuzzValidate -fuzztime 30s
func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `{"action":"jump"}`,
		`{"action":"click","selector":"#go","button":"right","click_count":2,"modifiers":["Alt","Alt","X"],"settle_ms":[9,1],"mode":"dom","offset":{"x_ratio":2,"y_ratio":-1}}`,
		`{"action":"click","ref":"e1","selector":"#a","nth":-1,"name":"","selector_type":"role","frame":{"path":["",""]},"frame_id":"F"}`,
		`{"action":"fill","text":"","expected_value":"x","mode":"wheel","button":"left"}`,
		`{"action":"type","focused":false,"text":"x","delay_ms":[1,0]}`, `{"action":"type","focused":true,"selector":"#q"}`,
		`{"action":"select_option","selector":"#f","value":"a","label":"b","index":-3}`,
		`{"action":"scroll","until":{"text":"","selector":""},"max_steps":0,"x":1}`, `{"action":"scroll","delta_y":1e308,"delta_x":-1e308}`,
		`{"action":"wait","condition":"text","expected":"a","previous":"b","selector":"#l"}`, `{"action":"wait","condition":"url","ref":"e1","expected":true}`,
		`{"action":"wait","condition":"checked","selector":"#c","expected":"mixed","idle_ms":-1}`, `{"action":"wait","condition":"nope"}`,
		`{"action":"press_key","key":"Control+"}`, `{"action":"press_key","key":"++"}`, `{"action":"press_key","key":"Control+Shift+Alt+Meta+a"}`,
		`{"action":"drag","selector":"#a","to":{"nth":-1,"name":"x","frame":{}},"dx":1}`, `{"action":"upload","ref":"e1","files":["",""]}`,
		`{"action":"hover","selector":"x","observe":{"ref":"e1","selector":"y","max_options":1000,"max_chars":1,"timeout_ms":0,"frame":{"path":[]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Step
		if json.Unmarshal(data, &s) != nil {
			return
		}
		first := s.Validate("steps[0]")
		for _, e := range first {
			if e == nil {
				t.Fatalf("%s: nil violation", data)
			}
			if e.Code != errs.InvalidInput {
				t.Fatalf("%s: code %q: %v", data, e.Code, e)
			}
			if e.Message == "" {
				t.Fatalf("%s: empty message at %s", data, e.Path)
			}
			if !strings.HasPrefix(e.Path, "steps[0].") || len(e.Path) == len("steps[0].") {
				t.Fatalf("%s: path %q is not under steps[0].", data, e.Path)
			}
		}
		second := s.Validate("steps[0]")
		if len(first) != len(second) {
			t.Fatalf("%s: %d then %d violations", data, len(first), len(second))
		}
		for i := range first {
			if first[i].Path != second[i].Path || first[i].Message != second[i].Message {
				t.Fatalf("%s: violation %d changed: %v then %v", data, i, first[i], second[i])
			}
		}
	})
}
