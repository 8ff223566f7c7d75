package main

import (
	"context"
	"encoding/json"
	_ "image/jpeg" // image sizes for the trace
	_ "image/png"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/mcpserver"
	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/appbrowser"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// agentBrowserTools are the tabwright tools a model agent gets with
// --agent-tools +browser: what a person does at a page. Their names,
// descriptions and schemas are whatever the MCP server lists.
const agentBrowserTools = "browser_open_tab,browser_tab_control,browser_navigate,browser_observe,browser_screenshot,browser_click,browser_fill,browser_type,browser_press_key,browser_wait,browser_batch"

// browserTools makes, per attempt, a browser for the agent: its own
// Chromium whose every request goes through the gate appbrowser sets up
// (the sandbox's loopback only; never a docs host, so the record of pages
// read stays read_docs's), and tabwright's MCP server over it, connected
// in process. The agent sees exactly the server's tools.
func browserTools(version string) func(ctx context.Context, t *task.Task, sb *sandbox.Sandbox, tr *trace.Trace) (agent.ExtraTools, func(), error) {
	return func(ctx context.Context, t *task.Task, sb *sandbox.Sandbox, tr *trace.Trace) (agent.ExtraTools, func(), error) {
		reach := appbrowser.NewReach(t.Route)
		m, err := tabs.New(appbrowser.Options(reach, sb, tr))
		if err != nil {
			return nil, nil, err
		}
		b := &browserBridge{tr: tr, reach: reach}
		closeAll := func() {
			if b.cs != nil {
				b.cs.Close()
			}
			m.Close()
		}
		if err := b.connect(ctx, m, version); err != nil {
			closeAll()
			return nil, nil, err
		}
		return b, closeAll, nil
	}
}

type browserBridge struct {
	tr    *trace.Trace
	reach appbrowser.Reach
	cs    *mcp.ClientSession
	defs  []agent.ToolDef
}

func (b *browserBridge) connect(ctx context.Context, m *tabs.Manager, version string) error {
	srv, err := mcpserver.NewWithOptions(m, version, mcpserver.Options{Tools: agentBrowserTools, HideHost: true})
	if err != nil {
		return err
	}
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		return err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "tabwright-qs-agent", Version: version}, nil)
	if b.cs, err = client.Connect(ctx, ct, nil); err != nil {
		return err
	}
	list, err := b.cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	for _, t := range list.Tools {
		var schema map[string]any
		raw, _ := json.Marshal(t.InputSchema)
		if json.Unmarshal(raw, &schema) != nil || schema == nil {
			schema = map[string]any{"type": "object"}
		}
		b.defs = append(b.defs, agent.ToolDef{Name: t.Name, Description: t.Description, Schema: schema})
	}
	return nil
}

func (b *browserBridge) Defs() []agent.ToolDef { return b.defs }

// Call runs one browser tool; a URL off the loopback is refused before it
// reaches the browser (the gate refuses the rest: links, redirects).
// Images (a screenshot) go to the model; the trace keeps their sizes.
func (b *browserBridge) Call(ctx context.Context, name string, input json.RawMessage) agent.ToolAnswer {
	start := time.Now()
	r := b.call(ctx, name, input)
	facts := appbrowser.FitImages(&r)
	b.tr.Add(trace.Browser(name, string(input), r.IsError, r.Text, time.Since(start), facts...))
	return r
}

func (b *browserBridge) call(ctx context.Context, name string, input json.RawMessage) agent.ToolAnswer {
	var args map[string]any
	if err := json.Unmarshal(input, &args); err != nil {
		return agent.ToolAnswer{Text: name + " needs a JSON object of arguments: " + err.Error(), IsError: true}
	}
	if u, ok := args["url"].(string); ok {
		if why := b.reach.URLRefusal(u); why != "" {
			return agent.ToolAnswer{Text: name + ": " + why, IsError: true}
		}
	}
	if _, ok := args["save_path"]; ok {
		// The browser runs outside the sandbox: a file it wrote would land
		// on the harness's machine, not in the workspace.
		return agent.ToolAnswer{Text: name + ": save_path is not available here; the image is shown to you in this result.", IsError: true}
	}
	res, err := b.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return agent.ToolAnswer{Text: name + " failed: " + err.Error(), IsError: true}
	}
	out := agent.ToolAnswer{IsError: res.IsError}
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			out.Images = append(out.Images, agent.Image{MediaType: c.MIMEType, Data: c.Data})
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		parts = append(parts, string(raw))
	}
	out.Text = strings.Join(parts, "\n")
	return out
}
