package mcpserver

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/schemas"
)

// Tool definitions cost next to nothing at start.
//
// They are written as code (each tool's def) but listed from tools.json,
// generated from that code: building them takes the 50 KB batch contract
// apart and encodes its 20 KB of structure. Measured with the lean list
// (37 KB in all): building every definition and adding it with its schema
// costs 5.2 ms a start (2.8 ms without browser_batch), against 0.18 ms for
// New with tools.json, on a cold-start budget of 30 ms.
//
// And the SDK is given each tool with a stand-in input schema, {"type":
// "object"} in its own schema type: AddTool decodes any other kind of schema
// into maps for its type check, and every schema once more in its search for
// x-mcp-header annotations, which for ours took longer than all the rest of
// New (about 4 ms warm, over 10 ms in a fresh process). tools/list gets the real
// definitions back from serveListed, a receiving middleware that lets the
// SDK answer (order, pagination, cache hints) and puts tools.json's
// definition in place of each tool listed. Nothing else in the SDK reads the
// input schema of a tool added with AddTool: it validates no input, and the
// x-mcp-header lookup of streamable HTTP calls finds none in either schema.
//
// TestToolsJSON fails when tools.json differs from what the code builds;
// TestListedTools checks what tools/list serves through the SDK. After
// changing a definition, a shared field description or the batch contract
// (schemas/browser_batch.input.schema.json), regenerate tools.json:
//
//	go generate ./mcpserver
//
// which runs `go test -run TestToolsJSON -update=true` in this package
// (that is also the command by hand, from mcpserver/).

//go:generate go test -run TestToolsJSON|TestReadmeProfiles|TestReadmeToolListFigures -update=true

// toolsJSON is every tool's definition, in the order of server.tools, as
// the code builds it (see toolsFile in listed_test.go).
//
//go:embed tools.json
var toolsJSON []byte

// unlistedSchema is the input schema the SDK is given for every tool; no
// client sees it. Its own schema type, which AddTool checks without
// decoding it into maps.
var unlistedSchema = &jsonschema.Schema{Type: "object"}

// listedTool is a definition as tools.json holds it: the input schema stays
// JSON text, which the SDK sends on as it is.
type listedTool struct {
	mcp.Tool
	InputSchema json.RawMessage `json:"inputSchema"`
}

// listed decodes tools.json, by tool name. New starts it in the background.
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

// inlined is tools.json with every input schema's $refs written out
// (Options.InlineSchemas), built on first use.
var inlined = sync.OnceValue(func() map[string]*listedTool {
	out := map[string]*listedTool{}
	for name, t := range listed() {
		c := *t
		if bytes.Contains(t.InputSchema, []byte(`"$defs"`)) {
			var s any
			if err := json.Unmarshal(t.InputSchema, &s); err != nil {
				panic("mcpserver: tools.json: " + err.Error()) // embedded and tested
			}
			b, err := json.Marshal(schemas.Inline(s))
			if err != nil {
				panic("mcpserver: " + err.Error())
			}
			c.InputSchema = b
		}
		out[name] = &c
	}
	return out
})

// serveListed is the receiving middleware that answers tools/list with the
// definitions of tools.json (inline: with their $refs written out) in place
// of the ones the SDK holds. described holds the descriptions that differ
// from tools.json's under this server's options (a figure such as
// --action-timeout's), by tool name.
func serveListed(inline bool, described map[string]string) mcp.Middleware {
	from := listed
	if inline {
		from = inlined
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler { return listFrom(next, from, described) }
}

func listFrom(next mcp.MethodHandler, from func() map[string]*listedTool, described map[string]string) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if method != "tools/list" || err != nil || !ok {
			return res, err
		}
		defs := from()
		out := *list
		out.Tools = make([]*mcp.Tool, 0, len(list.Tools))
		for _, t := range list.Tools {
			def, ok := defs[t.Name]
			if !ok {
				return nil, fmt.Errorf("mcpserver: %s is not in tools.json; run go generate ./mcpserver", t.Name)
			}
			tool := def.Tool
			tool.InputSchema = def.InputSchema
			if d, ok := described[t.Name]; ok {
				tool.Description = d
			}
			out.Tools = append(out.Tools, &tool)
		}
		return &out, nil
	}
}
