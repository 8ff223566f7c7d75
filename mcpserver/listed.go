package mcpserver

import (
	_ "embed"
	"encoding/json"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools' definitions are written as code (each tool's def), but the
// server lists them from tools.json, generated from that code: building them
// takes the 50 KB batch contract apart and encodes some 100 KB of schemas,
// which every start of `tabwright mcp` would otherwise pay before it can
// answer tools/list.
//
// TestToolsJSON fails when tools.json differs from what the code builds.
// After changing a definition, a shared field description or the batch
// contract (schemas/browser_batch.input.schema.json), regenerate it:
//
//	go generate ./mcpserver
//
// which runs `go test -run TestToolsJSON -update=true` in this package
// (that is also the command by hand, from mcpserver/).

//go:generate go test -run TestToolsJSON -update=true

// toolsJSON is every tool's definition, in the order of server.tools, as
// the code builds it (see toolsFile in listed_test.go).
//
//go:embed tools.json
var toolsJSON []byte

// listedTool is a definition as tools.json holds it: the input schema stays
// the JSON text, which the SDK sends on as it is.
type listedTool struct {
	mcp.Tool
	InputSchema json.RawMessage `json:"inputSchema"`
}

var listed = sync.OnceValue(func() map[string]*listedTool {
	var all []*listedTool
	if err := json.Unmarshal(toolsJSON, &all); err != nil {
		panic("mcpserver: tools.json: " + err.Error()) // embedded and tested
	}
	out := make(map[string]*listedTool, len(all))
	for _, t := range all {
		out[t.Name] = t
	}
	return out
})

// listedTools returns the definitions to serve, by tool name: fresh copies,
// since the SDK keeps the ones it is given.
func listedTools() map[string]*mcp.Tool {
	out := map[string]*mcp.Tool{}
	for name, t := range listed() {
		def := t.Tool
		def.InputSchema = t.InputSchema
		out[name] = &def
	}
	return out
}

// listedFields returns the properties the named tool's listed input schema
// advertises, sorted.
func listedFields(name string) []string {
	t, ok := listed()[name]
	if !ok {
		panic("mcpserver: " + name + " is not in tools.json; run go generate ./mcpserver")
	}
	var in struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(t.InputSchema, &in); err != nil {
		panic("mcpserver: tools.json: " + name + ": " + err.Error())
	}
	out := make([]string, 0, len(in.Properties))
	for k := range in.Properties {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
