package mcpserver

import "testing"

// BenchmarkNew: building the server with its default tool list, which every
// start of `tabwright mcp` pays before it can answer.
func BenchmarkNew(b *testing.B) {
	for i := 0; i < b.N; i++ {
		New(nil, "bench")
	}
}
