package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/errs"
)

//go:embed demo.html
var demoPage []byte

// runDemo is what a newcomer runs first: it starts `tabwright mcp` as a
// real MCP server process, connects to it as an agent would, opens a bundled
// page served on loopback and prints what the agent gets back.
func runDemo(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("demo")
	asJSON := fs.Bool("json", false, "print the observation as JSON instead of its text rendering")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return errs.Wrap(errs.Internal, err, "serving the demo page")
	}
	page := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(demoPage)
	})}
	go page.Serve(ln)
	defer page.Close()
	url := fmt.Sprintf("http://%s/", ln.Addr())

	self, err := os.Executable()
	if err != nil {
		return errs.Wrap(errs.Internal, err, "finding this program")
	}
	start := time.Now()
	client := mcp.NewClient(&mcp.Implementation{Name: "tabwright-demo", Version: version}, nil)
	cmd := exec.Command(self, "mcp")
	cmd.Stderr = os.Stderr
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return errs.Wrap(errs.Internal, err, "starting the MCP server")
	}
	defer sess.Close()
	tools, err := sess.ListTools(ctx, nil)
	if err != nil {
		return errs.Wrap(errs.Internal, err, "listing tools")
	}
	fmt.Fprintf(stdout, "server up in %v with %d tools\n", time.Since(start).Round(time.Millisecond), len(tools.Tools))

	opened, text, err := callTool(ctx, sess, "browser_open_tab", map[string]any{"url": url})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "browser_open_tab -> %s\n", text)
	var o struct {
		TabHandle string `json:"tab_handle"`
	}
	json.Unmarshal(opened, &o)
	fmt.Fprintf(stdout, "(browser launch + load took %v in all)\n\n", time.Since(start).Round(time.Millisecond))
	obs, text, err := callTool(ctx, sess, "browser_observe", map[string]any{"tab_handle": o.TabHandle})
	if err != nil {
		return err
	}
	if *asJSON {
		fmt.Fprintf(stdout, "%s\n", obs)
	} else {
		fmt.Fprintf(stdout, "browser_observe (%d bytes of JSON) renders as:\n\n%s\n", len(obs), text)
	}

	// Act as an agent would: strict locators, trusted input, verified.
	steps := []struct {
		tool string
		args map[string]any
	}{
		{"browser_fill", map[string]any{"tab_handle": o.TabHandle, "selector": "Email address", "selector_type": "label", "text": "reader@example.com"}},
		// The default profile does the other step kinds through browser_batch.
		{"browser_batch", map[string]any{"tab_handle": o.TabHandle, "steps": []any{map[string]any{"action": "select_option", "selector": "#branch", "label": "Old Mill"}}}},
		{"browser_click", map[string]any{"tab_handle": o.TabHandle, "selector": "button", "selector_type": "role", "name": "Sign in"}},
	}
	for _, st := range steps {
		_, text, err := callTool(ctx, sess, st.tool, st.args)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s -> %s\n", st.tool, text)
	}
	return nil
}

// callTool calls a tool and returns its structured result and its text.
func callTool(ctx context.Context, sess *mcp.ClientSession, name string, args map[string]any) (json.RawMessage, string, error) {
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, "", errs.Wrap(errs.Internal, err, name)
	}
	text := ""
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text += t.Text
		}
	}
	if res.IsError {
		return nil, "", errs.New(errs.Internal, "%s failed: %s", name, text)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	return raw, text, nil
}
