package batch

import (
	"encoding/json"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
)

// FuzzPrevalidate feeds arbitrary bytes to the batch validator. Properties:
// no panic; always a structured answer — either a Request with no
// violations (a step for every raw step, none nil, start_at inside the
// batch), or one or more violations, each an *errs.Error with code
// invalid_input, a message and a non-empty path; the same answer twice.
//
//	go test ./engine/batch -run '^$' -fuzz FuzzPrevalidate -fuzztime 30s
func FuzzPrevalidate(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `0`, `{`, `{"":1}`, `{"steps":[]}`, `{"steps":null}`, `{"tab_handle":"h","steps":{}}`,
		`{"tab_handle":"h","steps":[{"action":"click","selector":"#a"}]}`,
		`{"tab_handle":"h","steps":[1,"x",null,[],{}]}`, `{"tab_handle":"h","steps":[{"action":5}]}`, `{"tab_handle":"h","steps":[{"action":null}]}`,
		`{"tab_handle":"h","timeout_ms":99,"dialog_policy":"x","start_at":31,"steps":[{"action":"teleport"}]}`,
		`{"tab_handle":"h","start_at":-1,"timeout_ms":1e300,"steps":[{"action":"wait","condition":"url"}]}`,
		`{"tab_handle":"h","steps":[{"action":"click","ref":"e1","selector":"#a","nth":-1,"name":"","selector_type":"role","frame":{"path":["",""]},"frame_id":"F"}],"observe":{"ref":"e2"}}`,
		`{"tab_handle":"h","steps":[{"action":"fill","text":"","expected_value":"x","mode":"wheel"},{"action":"type","focused":false,"text":"x","delay_ms":[1,0]}]}`,
		`{"tab_handle":"h","steps":[{"action":"select_option","selector":"#f","value":"a","label":"b","index":-3},{"action":"scroll","until":{"text":""},"max_steps":0,"x":1}]}`,
		`{"tab_handle":"h","steps":[{"action":"wait","condition":"text","expected":"a","previous":"b","selector":"#l"},{"action":"wait","condition":"checked","selector":"#c","expected":"mixed","idle_ms":-1}]}`,
		`{"tab_handle":"h","steps":[{"action":"press_key","key":"Control+"},{"action":"press_key","key":"++"},{"action":"hover","selector":"x","offset":{"x_ratio":2}}]}`,
		`{"tab_handle":"h","steps":[{"action":"click","selector":"#a","settle_ms":[600,200],"observe":{"ref":"e1","max_options":1000,"frame":{"path":[]}}}],"observe":{"selector":"#r","max_chars":1}}`,
		`{"tab_handle":"h","steps":[{"action":"click","selector":"#a","tab_handle":"h","steps":[]}],"observe":[]}`,
		`{"tab_handle":"h","steps":[{"action":"scroll","delta_y":1e308,"delta_x":-1e308,"until":{"text":"a","selector":""}}],"start_at":0}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, v := Prevalidate(json.RawMessage(data))
		if len(v) == 0 {
			if req == nil {
				t.Fatalf("%q: neither a request nor violations", data)
			}
			if req.TabHandle == "" || len(req.Steps) == 0 || len(req.Steps) > ContractLimits().MaxSteps || len(req.Steps) != len(req.RawSteps) {
				t.Fatalf("%q: accepted an incomplete batch: %+v", data, req)
			}
			for i, s := range req.Steps {
				if s == nil {
					t.Fatalf("%q: accepted with step %d nil", data, i)
				}
				if extra := s.Validate(""); len(extra) > 0 {
					t.Fatalf("%q: accepted step %d that does not validate: %v", data, i, extra)
				}
			}
			if req.StartAt != nil && (*req.StartAt < 0 || *req.StartAt >= len(req.Steps)) {
				t.Fatalf("%q: accepted start_at %d for %d steps", data, *req.StartAt, len(req.Steps))
			}
			if req.TimeoutMS != nil && (*req.TimeoutMS < ContractLimits().MinTimeoutMS || *req.TimeoutMS > ContractLimits().MaxTimeoutMS) {
				t.Fatalf("%q: accepted timeout_ms %d", data, *req.TimeoutMS)
			}
			if req.Observe != nil && (req.Observe.Selector == "" || req.Observe.Ref != "") {
				t.Fatalf("%q: accepted batch observe %+v", data, req.Observe)
			}
		}
		for _, e := range v {
			if e == nil {
				t.Fatalf("%q: nil violation in %v", data, v)
			}
			if e.Code != errs.InvalidInput || e.Message == "" || e.Path == "" {
				t.Fatalf("%q: violation %#v", data, e)
			}
			if _, err := json.Marshal(e); err != nil {
				t.Fatalf("%q: violation does not marshal: %v", data, err)
			}
		}
		_, again := Prevalidate(json.RawMessage(data))
		if len(again) != len(v) {
			t.Fatalf("%q: %d then %d violations", data, len(v), len(again))
		}
		for i := range v {
			if v[i].Path != again[i].Path || v[i].Message != again[i].Message {
				t.Fatalf("%q: violation %d changed: %v then %v", data, i, v[i], again[i])
			}
		}
	})
}
