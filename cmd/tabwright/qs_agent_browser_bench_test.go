package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tabwright/tabwright/engine/tabs"
)

// BenchmarkAgentBrowserTools: the characters the +browser tool definitions
// add to every model turn (names, descriptions, schemas as the MCP server
// lists them, JSON). No browser starts: listing needs none.
func BenchmarkAgentBrowserTools(b *testing.B) {
	m, err := tabs.New(tabs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	n := 0
	for i := 0; i < b.N; i++ {
		br := &browserBridge{}
		if err := br.connect(context.Background(), m, "bench"); err != nil {
			b.Fatal(err)
		}
		raw, _ := json.Marshal(br.defs)
		n = len(raw)
		br.cs.Close()
	}
	b.ReportMetric(float64(n), "tool-defs-chars")
}
