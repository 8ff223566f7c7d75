package batch

import (
	"encoding/json"
	"testing"

	"github.com/tabwright/tabwright/schemas"
)

// TestContractLimits: Limits are the numbers the contract states, each
// read from the keyword that states it.
func TestContractLimits(t *testing.T) {
	var doc struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(schemas.BrowserBatchInput, &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Properties
	num := func(field, keyword string) int { return int(p[field][keyword].(float64)) }
	want := Limits{
		MaxSteps:         num("steps", "maxItems"),
		MaxStartAt:       num("start_at", "maximum"),
		MinTimeoutMS:     num("timeout_ms", "minimum"),
		MaxTimeoutMS:     num("timeout_ms", "maximum"),
		DefaultTimeoutMS: num("timeout_ms", "default"),
	}
	if got := ContractLimits(); got != want {
		t.Errorf("ContractLimits() = %+v, want the contract's %+v", got, want)
	}
	if want.MaxStartAt != want.MaxSteps-1 {
		t.Errorf("the contract's start_at maximum %d is not its last step index %d", want.MaxStartAt, want.MaxSteps-1)
	}
}
