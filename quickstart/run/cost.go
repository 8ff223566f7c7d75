package run

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
)

// Rate is one model's prices in US dollars per million tokens, for each of
// the four counters.
type Rate struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheWrite float64 `json:"cache_write"`
	CacheRead  float64 `json:"cache_read"`
}

// Prices is a price book: model name -> rate. The built-in one
// (BuiltinBook) is dated, and a user's --prices file replaces it.
type Prices map[string]Rate

// PricesError is a price book that cannot be used.
type PricesError struct{ Path, At, Message string }

func (e *PricesError) Error() string {
	at := ""
	if e.At != "" {
		at = " at " + e.At
	}
	return fmt.Sprintf("qs.prices: %s%s: %s (a price book is {\"MODEL\": {\"input\": N, \"output\": N, \"cache_write\": N, \"cache_read\": N}} in USD per million tokens)", e.Path, at, e.Message)
}

// LoadPrices reads a price book file.
func LoadPrices(path string) (Prices, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &PricesError{Path: path, Message: "cannot read it: " + err.Error()}
	}
	return ParsePrices(path, b)
}

// ParsePrices parses a price book: an object of models, each an object
// with any of input, output, cache_write, cache_read (missing is 0), each a
// non-negative number. Anything else is refused, naming where.
func ParsePrices(path string, b []byte) (Prices, error) {
	var raw map[string]map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, &PricesError{Path: path, Message: "not a JSON object of model objects: " + err.Error()}
	}
	p := Prices{}
	for model, fields := range raw {
		r, err := parseRate(path, model, fields, nil)
		if err != nil {
			return nil, err
		}
		p[model] = r
	}
	return p, nil
}

// parseRate reads one model's entry: the four rates, each a non-negative
// number (missing is 0), and any string field named in notes (a book's
// source); anything else is refused, naming where.
func parseRate(path, model string, fields map[string]any, notes map[string]bool) (Rate, error) {
	if strings.TrimSpace(model) == "" {
		return Rate{}, &PricesError{Path: path, At: `""`, Message: "a model name is empty"}
	}
	if fields == nil {
		return Rate{}, &PricesError{Path: path, At: model, Message: "a model's entry must be an object"}
	}
	var r Rate
	for k, v := range fields {
		if notes[k] {
			if _, ok := v.(string); !ok {
				return Rate{}, &PricesError{Path: path, At: model + "." + k, Message: "must be a string"}
			}
			continue
		}
		n, ok := v.(float64)
		if !ok || n < 0 || math.IsInf(n, 0) {
			return Rate{}, &PricesError{Path: path, At: model + "." + k, Message: "must be a non-negative number"}
		}
		switch k {
		case "input":
			r.Input = n
		case "output":
			r.Output = n
		case "cache_write":
			r.CacheWrite = n
		case "cache_read":
			r.CacheRead = n
		default:
			return Rate{}, &PricesError{Path: path, At: model + "." + k, Message: "unknown field (input, output, cache_write, cache_read)"}
		}
	}
	return r, nil
}

// Rate finds the rate for a run: the model the API reported, exactly; then
// the model the agent asked for (after the vendor prefix); then the
// longest book name the reported model extends with "-" (a dated snapshot,
// gpt-x-2025-01-01 priced as gpt-x).
func (p Prices) Rate(reported, agentName string) (Rate, bool) {
	if r, ok := p[reported]; ok && reported != "" {
		return r, true
	}
	if _, m, ok := strings.Cut(agentName, ":"); ok {
		if r, ok := p[m]; ok {
			return r, true
		}
	}
	names := make([]string, 0, len(p))
	for k := range p {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, k := range names {
		if reported != "" && strings.HasPrefix(reported, k+"-") {
			return p[k], true
		}
	}
	return Rate{}, false
}

// Cost is t priced at r, in dollars.
func (r Rate) Cost(t Tokens) float64 {
	return (float64(t.Input)*r.Input + float64(t.Output)*r.Output + float64(t.CacheWrite)*r.CacheWrite + float64(t.CacheRead)*r.CacheRead) / 1e6
}

// price sets r's estimated cost from the book; it reports false for a run
// with tokens that the book cannot price.
func (p Prices) price(r *AttemptResult) bool {
	if r.Tokens.Total() == 0 {
		if p != nil {
			zero := 0.0
			r.EstimatedCost = &zero
		}
		return true
	}
	if p == nil {
		return false
	}
	rate, ok := p.Rate(r.ModelReported, r.Agent)
	if !ok {
		return false
	}
	c := rate.Cost(r.Tokens)
	r.EstimatedCost = &c
	return true
}
