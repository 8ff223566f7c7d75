package main

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// withoutDescriptions drops every description string, at any depth.
func withoutDescriptions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if _, isString := e.(string); k == "description" && isString {
				continue
			}
			out[k] = withoutDescriptions(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutDescriptions(e)
		}
		return out
	}
	return v
}

// What tools/list advertises for browser_batch is the contract in the repo's
// schemas/ copy, description strings aside.
func TestBatchContractOverToolsList(t *testing.T) {
	s := startServer(t)
	tools, err := s.sess.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../schemas/browser_batch.input.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var want any
	json.Unmarshal(raw, &want)
	for _, tl := range tools.Tools {
		if tl.Name != "browser_batch" {
			continue
		}
		b, _ := json.Marshal(tl.InputSchema)
		var got any
		json.Unmarshal(b, &got)
		if !reflect.DeepEqual(withoutDescriptions(want), withoutDescriptions(got)) {
			t.Fatalf("browser_batch's advertised schema differs from the contract")
		}
		return
	}
	t.Fatal("browser_batch not listed")
}
