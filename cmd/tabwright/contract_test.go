package main

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/tabwright/tabwright/schemas"
)

// What tools/list advertises for browser_batch is the contract in the repo's
// schemas/ copy, description strings aside.
func TestBatchContractOverToolsList(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--lazy-browser") // tools/list needs no browser
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
		if !reflect.DeepEqual(schemas.Structure(want), schemas.Structure(schemas.Inline(got))) {
			t.Fatalf("browser_batch's advertised schema differs from the contract")
		}
		return
	}
	t.Fatal("browser_batch not listed")
}
