//go:build realapps

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// conn is one MCP server process on stdio. read counts every character of
// text the driver received, as a model would read it; calls made for a
// check (uncounted) go through callQuiet.
type conn struct {
	session *mcp.ClientSession
	read    int
	tools   map[string]bool
}

// dial starts a server in dir: Playwright MCP writes snapshot and console
// files into its working directory.
func dial(ctx context.Context, argv []string, env []string, dir string) (*conn, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = stderrSink()
	client := mcp.NewClient(&mcp.Implementation{Name: "tabwright-real-apps", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	c := &conn{session: s, tools: map[string]bool{}}
	list, err := s.ListTools(ctx, nil)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	for _, t := range list.Tools {
		c.tools[t.Name] = true
	}
	return c, nil
}

// result is what one tool call gave back.
type result struct {
	text       string
	structured json.RawMessage
	isError    bool
}

// call runs a tool and counts its text as read.
func (c *conn) call(ctx context.Context, name string, args map[string]any) (result, error) {
	r, err := c.callQuiet(ctx, name, args)
	c.read += len(r.text)
	a, _ := json.Marshal(args)
	fmt.Fprintf(traceSink, "\n>>> %s %s\n%s\n", name, a, r.text)
	if len(r.structured) > 0 {
		fmt.Fprintf(traceSink, "structured (not counted): %s\n", r.structured)
	}
	return r, err
}

// callQuiet runs a tool without counting what it returned (the checks).
// A tool error is an error value whose text is the tool's own message.
func (c *conn) callQuiet(ctx context.Context, name string, args map[string]any) (result, error) {
	if !c.tools[name] {
		return result{}, fmt.Errorf("the server lists no tool %s", name)
	}
	r, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return result{}, fmt.Errorf("%s: %w", name, err)
	}
	var out result
	var parts []string
	for _, ct := range r.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	out.text = strings.Join(parts, "\n")
	out.isError = r.IsError
	if r.StructuredContent != nil {
		out.structured, _ = json.Marshal(r.StructuredContent)
	}
	if r.IsError {
		return out, fmt.Errorf("%s: %s", name, oneLine(out.text, 300))
	}
	return out, nil
}

func (c *conn) close() { c.session.Close() }

// oneLine puts a message on one line (markdown headings dropped), at most
// n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "### ", "")), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
