package observe

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestSummariseSchema(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{``, `{}`},
		{`{"type":"object"}`, `{}`},
		{`not json`, `any`},
		{`{"type":"object","properties":{"b":{"type":"number"},"a":{"type":"string"}},"required":["b"]}`, `b: number, a?: string`},
		{`{"type":"object","properties":{"cls":{"type":"string","enum":["eco","biz"]},"tags":{"type":"array","items":{"type":"string"}}}}`, `cls?: "eco"|"biz", tags?: string[]`},
		{`{"type":"object","properties":{"to":{"type":"object","properties":{"city":{"type":"string"}}}}}`, `to?: {city?: string}`},
		// A page's words cannot shape the line: odd names are quoted, made-up types are any.
		{`{"type":"object","properties":{"a\nb":{"type":"x\ny"}}}`, `"a\nb"?: any`},
	} {
		if got := SummariseSchema(json.RawMessage(c.schema)); got != c.want {
			t.Errorf("SummariseSchema(%s) = %q, want %q", c.schema, got, c.want)
		}
	}
}

// The text view gives each tool one line, the page's texts quoted, and
// says what the bound left out.
func TestRenderPageTools(t *testing.T) {
	var list []PageTool
	for i := 0; i < MaxPageTools+2; i++ {
		list = append(list, PageTool{Name: "t", Description: "line one\nline two"})
	}
	o := &Observation{Forms: []Form{}, Interactive: []Element{}}
	o.reserve(ReservedPageTools, pageToolsOf(toolsOnly(list)))
	text := Render(o)
	if n := strings.Count(text, "tool \"t\" ({}) \"line one line two\"\n"); n != MaxPageTools {
		t.Errorf("tool lines:\n%s", text)
	}
	if !strings.Contains(text, "… 2 more page tools not listed\n") || strings.Contains(text, "\nline two") {
		t.Errorf("text view:\n%s", text)
	}
}

type toolsOnly []PageTool

func (p toolsOnly) Eval(_ context.Context, _ string, _ any) error { return nil }
func (p toolsOnly) OfferedTools() []PageTool                      { return p }
