package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
		reach := newAppReach(t.Route)
		g, err := startGate(sb, tr, reach)
		if err != nil {
			return nil, nil, err
		}
		m, err := tabs.New(tabs.Options{Launch: launch.Options{Args: []string{"--proxy-server=http://" + g.addr, "--proxy-bypass-list=<-loopback>"}}})
		if err != nil {
			g.close()
			return nil, nil, err
		}
		b := &browserBridge{tr: tr, reach: reach}
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
	tr    *trace.Trace
	reach appReach
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
	if u, ok := args["url"].(string); ok {
		if why := b.reach.urlRefusal(u); why != "" {
			return agent.Result{Text: name + ": " + why, IsError: true}
		}
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

// appReach is where the agent's browser may go: any port on the loopback
// (the sandbox's, where the agent serves its app), except the loopback
// ports the docs route is served on, whose pages read_docs reads (on the
// local backend the sandbox's loopback is the docs server's too). The rule
// is by port, not by host: 127.0.0.1 and localhost are one loopback.
type appReach struct{ docsPorts map[int]bool }

func newAppReach(route []string) appReach {
	r := appReach{docsPorts: map[int]bool{}}
	for _, page := range route {
		if u, err := url.Parse(page); err == nil && loopbackHost(u.Hostname()) {
			r.docsPorts[urlPort(u)] = true
		}
	}
	return r
}

// refusal says why the browser may not reach host:port, "" when it may.
// Each message names the rule it applies and what to do instead.
func (r appReach) refusal(host string, port int) string {
	switch {
	case !loopbackHost(host):
		return fmt.Sprintf("agent_browser.not_loopback: %s is not on this machine's loopback. The browser is for the app you run here (http://127.0.0.1:PORT/ or http://localhost:PORT/); read documentation with read_docs.", net.JoinHostPort(host, strconv.Itoa(port)))
	case r.docsPorts[port]:
		return fmt.Sprintf("agent_browser.docs_port: port %d on the loopback is where the documentation is served; read it with read_docs. Serve your app on another port and open http://127.0.0.1:PORT/ here.", port)
	}
	return ""
}

func (r appReach) urlRefusal(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Sprintf("agent_browser.bad_url: %q is not an http:// or https:// URL; open the app you run here at http://127.0.0.1:PORT/.", raw)
	}
	return r.refusal(u.Hostname(), urlPort(u))
}

// urlPort is u's port, or its scheme's default.
func urlPort(u *url.URL) int {
	if n, err := strconv.Atoi(u.Port()); err == nil {
		return n
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
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

func startGate(sb *sandbox.Sandbox, tr *trace.Trace, reach appReach) (*gate, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil {
			return nil, fmt.Errorf("agent_browser.bad_address: %q is not host:port", addr)
		}
		if why := reach.refusal(host, n); why != "" {
			return nil, errors.New(why)
		}
		return sb.DialInside(n)
	}
	rp := &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.Out.URL = r.In.URL; r.Out.Host = r.In.Host },
		Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true},
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, port := r.URL.Hostname(), urlPort(r.URL)
		if r.Method == http.MethodConnect {
			h, p, _ := net.SplitHostPort(r.Host)
			host, port = h, atoiOr(p, 443)
		}
		if why := reach.refusal(host, port); why != "" {
			tr.Add(trace.BrowserBlocked(host, r.URL.String()))
			http.Error(w, "tabwright: "+why, http.StatusForbidden)
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

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}

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
