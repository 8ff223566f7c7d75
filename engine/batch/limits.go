package batch

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/tabwright/tabwright/schemas"
)

// Limits are the batch contract's own numbers: how many steps a batch
// holds, where start_at may point and the bounds and default of its
// timeout_ms. They are read from the embedded contract, so nothing here
// restates them.
type Limits struct {
	MaxSteps         int
	MaxStartAt       int
	MinTimeoutMS     int
	MaxTimeoutMS     int
	DefaultTimeoutMS int
}

// ContractLimits reads Limits from the contract once, on first use (a
// server's start does not pay for it).
var ContractLimits = sync.OnceValue(func() Limits {
	type bound struct {
		MaxItems int `json:"maxItems"`
		Minimum  int `json:"minimum"`
		Maximum  int `json:"maximum"`
		Default  int `json:"default"`
	}
	var doc struct {
		Properties struct {
			Steps     bound `json:"steps"`
			StartAt   bound `json:"start_at"`
			TimeoutMS bound `json:"timeout_ms"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schemas.BrowserBatchInput, &doc); err != nil {
		panic("batch: the embedded batch contract: " + err.Error()) // part of the build
	}
	p := doc.Properties
	l := Limits{MaxSteps: p.Steps.MaxItems, MaxStartAt: p.StartAt.Maximum,
		MinTimeoutMS: p.TimeoutMS.Minimum, MaxTimeoutMS: p.TimeoutMS.Maximum, DefaultTimeoutMS: p.TimeoutMS.Default}
	if l.MaxSteps == 0 || l.MaxTimeoutMS == 0 || l.DefaultTimeoutMS == 0 {
		panic("batch: the embedded batch contract lacks steps.maxItems or timeout_ms's bounds") // part of the build
	}
	return l
})

// DefaultTimeout is the contract's default timeout_ms of a batch.
func DefaultTimeout() time.Duration {
	return time.Duration(ContractLimits().DefaultTimeoutMS) * time.Millisecond
}
