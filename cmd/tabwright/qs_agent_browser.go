package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // image sizes for the trace
	_ "image/png"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/mcpserver"
	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/egress"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/task"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// agentBrowserTools are the tabwright tools a model agent gets with
// --agent-tools +browser: what a person does at a page. Their names,
// descriptions and schemas are whatever the MCP server lists.
const agentBrowserTools = "browser_open_tab,browser_tab_control,browser_navigate,browser_observe,browser_screenshot,browser_click,browser_fill,browser_type,browser_press_key,browser_wait,browser_batch"

// browserTools makes, per attempt, a browser for the agent: its own
// Chromium whose every request goes through a gate that reaches only the
// sandbox's loopback (the app the agent served; never a docs host, so the
// record of pages read stays read_docs's), and tabwright's MCP server over
// it, connected in process. The agent sees exactly the server's tools.
func browserTools(version string) func(ctx context.Context, t *task.Task, sb *sandbox.Sandbox, tr *trace.Trace) (agent.ExtraTools, func(), error) {
	return func(ctx context.Context, t *task.Task, sb *sandbox.Sandbox, tr *trace.Trace) (agent.ExtraTools, func(), error) {
		allowed := func(host string) bool { return loopbackHost(host) && !egress.HostMatches(host, t.DocsAllow) }
		g, err := startGate(sb, tr, allowed)
		if err != nil {
			return nil, nil, err
		}
		m, err := tabs.New(tabs.Options{Launch: launch.Options{Args: []string{"--proxy-server=http://" + g.addr, "--proxy-bypass-list=<-loopback>"}}})
		if err != nil {
			g.close()
			return nil, nil, err
		}
		b := &browserBridge{tr: tr, allowed: allowed}
		closeAll := func() {
			if b.cs != nil {
				b.cs.Close()
			}
			m.Close()
			g.close()
		}
		if err := b.connect(ctx, m, version); err != nil {
			closeAll()
			return nil, nil, err
		}
		return b, closeAll, nil
	}
}

type browserBridge struct {
	tr      *trace.Trace
	allowed func(host string) bool // loopback, and not a docs host
	cs      *mcp.ClientSession
	defs    []agent.ToolDef
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
func (b *browserBridge) Call(ctx context.Context, name string, input json.RawMessage) agent.Result {
	start := time.Now()
	r := b.call(ctx, name, input)
	facts := fitImages(&r)
	b.tr.Add(trace.Browser(name, string(input), r.IsError, r.Text, time.Since(start), facts...))
	return r
}

// fitImages keeps the images the model's API takes and says in the text
// why any other is not shown; it returns the sizes of those kept.
func fitImages(r *agent.Result) []trace.Image {
	var kept []agent.Image
	var facts []trace.Image
	for _, im := range r.Images {
		f := imageFact(im)
		if f.Bytes > agent.MaxImageBytes || f.Width > agent.MaxImageSide || f.Height > agent.MaxImageSide || f.Width == 0 {
			r.Text += fmt.Sprintf("\n[an image (%s %dx%d, %d bytes) is not shown: the model takes png or jpeg up to %d MB and %d px a side; ask again with a smaller max_long_side or max_megapixels, or format jpeg]",
				f.MediaType, f.Width, f.Height, f.Bytes, agent.MaxImageBytes>>20, agent.MaxImageSide)
			continue
		}
		kept, facts = append(kept, im), append(facts, f)
	}
	r.Images = kept
	return facts
}

func (b *browserBridge) call(ctx context.Context, name string, input json.RawMessage) agent.Result {
	var args map[string]any
	if err := json.Unmarshal(input, &args); err != nil {
		return agent.Result{Text: name + " needs a JSON object of arguments: " + err.Error(), IsError: true}
	}
	if u, ok := args["url"].(string); ok && !b.urlAllowed(u) {
		return agent.Result{Text: fmt.Sprintf("%s: %q is not the app on this machine's loopback. The browser is for the app you run here (http://127.0.0.1:PORT/ or http://localhost:PORT/); read documentation with read_docs.", name, u), IsError: true}
	}
	if _, ok := args["save_path"]; ok {
		// The browser runs outside the sandbox: a file it wrote would land
		// on the harness's machine, not in the workspace.
		return agent.Result{Text: name + ": save_path is not available here; the image is shown to you in this result.", IsError: true}
	}
	res, err := b.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return agent.Result{Text: name + " failed: " + err.Error(), IsError: true}
	}
	out := agent.Result{IsError: res.IsError}
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

// imageFact is an image's size, as the trace keeps it; 0x0 when it is not
// a png or jpeg image.
func imageFact(im agent.Image) trace.Image {
	f := trace.Image{MediaType: im.MediaType, Bytes: len(im.Data)}
	if c, format, err := image.DecodeConfig(bytes.NewReader(im.Data)); err == nil && "image/"+format == im.MediaType {
		f.Width, f.Height = c.Width, c.Height
	}
	return f
}

func (b *browserBridge) urlAllowed(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && b.allowed(u.Hostname())
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// gate is the agent browser's only proxy: loopback requests are carried
// into the sandbox (the app's port there), everything else is refused and
// recorded.
type gate struct {
	addr string
	srv  *http.Server
}

func startGate(sb *sandbox.Sandbox, tr *trace.Trace, allowed func(host string) bool) (*gate, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil || !allowed(host) {
			return nil, fmt.Errorf("the agent's browser reaches only the sandbox's loopback, not %s", addr)
		}
		return sb.DialInside(n)
	}
	rp := &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.Out.URL = r.In.URL; r.Out.Host = r.In.Host },
		Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true},
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.URL.Hostname()
		if r.Method == http.MethodConnect {
			host, _, _ = net.SplitHostPort(r.Host)
		}
		if !allowed(host) {
			tr.Add(trace.BrowserBlocked(host, r.URL.String()))
			http.Error(w, "tabwright: the agent's browser reaches only the app on this machine's loopback; documentation is read with read_docs", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodConnect {
			tunnel(w, r, dial)
			return
		}
		rp.ServeHTTP(w, r)
	})
	g := &gate{addr: ln.Addr().String(), srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go g.srv.Serve(ln)
	return g, nil
}

func (g *gate) close() { g.srv.Close() }

// tunnel carries a CONNECT (https on loopback) into the sandbox.
func tunnel(w http.ResponseWriter, r *http.Request, dial func(context.Context, string, string) (net.Conn, error)) {
	in, err := dial(r.Context(), "tcp", r.Host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		in.Close()
		http.Error(w, "cannot tunnel", http.StatusInternalServerError)
		return
	}
	c, buf, err := hj.Hijack()
	if err != nil {
		in.Close()
		return
	}
	c.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n"))
	go func() {
		defer in.Close()
		if buf.Reader.Buffered() > 0 {
			io.CopyN(in, buf, int64(buf.Reader.Buffered()))
		}
		io.Copy(in, c)
	}()
	io.Copy(c, in)
	c.Close()
}
