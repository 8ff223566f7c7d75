package mcpserver

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
)

// sampleInput is a defineTool input with one field of each kind the tags
// describe.
type sampleInput struct {
	Handle string   `json:"handle" tool:"required"`
	Color  string   `json:"color" tool:"enum=red|blue,default=red"`
	Size   *int     `json:"size" tool:"min=1,max=9"`
	Tags   []string `json:"tags"`
	Note   string   `json:"note" tool:"nonempty" doc:"Anything."`
}

func (*sampleInput) listedAs() map[string]schema {
	return map[string]schema{"tags": {"type": "array", "minItems": 1, "maxItems": 2, "uniqueItems": true, "items": schema{"type": "string", "enum": []string{"a", "b", "c"}}}}
}

// One struct gives the listed schema, the checks (each at its path) and the
// defaults.
func TestDefineTool(t *testing.T) {
	var got *sampleInput
	tl := defineTool("sample", "A sample.", func(_ context.Context, _ string, in *sampleInput) (any, string, error) {
		got = in
		return nil, "", nil
	})
	want := schema{"type": "object", "additionalProperties": false, "required": []string{"handle"}, "properties": map[string]schema{
		"handle": {"type": "string"},
		"color":  {"type": "string", "enum": []string{"red", "blue"}, "default": "red"},
		"size":   {"type": "integer", "minimum": 1.0, "maximum": 9.0},
		"tags":   {"type": "array", "minItems": 1, "maxItems": 2, "uniqueItems": true, "items": schema{"type": "string", "enum": []string{"a", "b", "c"}}},
		"note":   {"type": "string", "minLength": 1, "description": "Anything."},
	}}
	if s := tl.definition().InputSchema; !reflect.DeepEqual(s, want) {
		t.Errorf("schema\n%v\nwant\n%v", s, want)
	}
	for _, tc := range []struct{ args, path, message string }{
		{`{}`, "handle", "is required"},
		{`{"handle":"h","color":"green"}`, "color", `must be one of red, blue; got "green"`},
		{`{"handle":"h","size":10}`, "size", "must be between 1 and 9; got 10"},
		{`{"handle":"h","tags":[]}`, "tags", "must hold 1 to 2 entries; got 0"},
		{`{"handle":"h","tags":["a","d"]}`, "tags[1]", `must be one of a, b, c; got "d"`},
		{`{"handle":"h","tags":["a","a"]}`, "tags[1]", `"a" is given twice`},
		{`{"handle":"h","note":""}`, "note", "must not be empty"},
	} {
		_, _, err := tl.run(context.Background(), "o", json.RawMessage(tc.args))
		if e := errs.As(err); err == nil || e.Code != errs.InvalidInput || e.Path != tc.path || e.Message != tc.message {
			t.Errorf("%s: %v, want invalid_input at %s: %s", tc.args, err, tc.path, tc.message)
		}
	}
	if _, _, err := tl.run(context.Background(), "o", json.RawMessage(`{"handle":"h","size":9,"tags":["b"]}`)); err != nil {
		t.Fatal(err)
	}
	if got.Color != "red" || *got.Size != 9 || got.Tags[0] != "b" {
		t.Errorf("decoded %+v, want the default color red, size 9, tags [b]", got)
	}
}
