// Package appbrowser is where a model agent's browser (qs run
// --agent-tools +browser) may go and how that is enforced: the managed
// browser's own network gate (engine/netgate) with one more rule, the
// sandbox's loopback only and never the docs route's ports, and every
// permitted request carried into the sandbox. The MCP server the agent
// talks to is the CLI's wiring; this package decides the network.
package appbrowser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/jpeg" // image sizes for the trace
	_ "image/png"
	"net"
	"net/url"
	"strconv"

	"github.com/tabwright/tabwright/engine/netgate"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/quickstart/agent"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// Reach is where the agent's browser may go: any port on the loopback
// (the sandbox's, where the agent serves its app), except the loopback
// ports the docs route is served on, whose pages read_docs reads (on the
// local backend the sandbox's loopback is the docs server's too). The rule
// is by port, not by host: 127.0.0.1 and localhost are one loopback.
type Reach struct{ docsPorts map[int]bool }

// NewReach is the reach of a task whose docs route is route.
func NewReach(route []string) Reach {
	r := Reach{docsPorts: map[int]bool{}}
	for _, page := range route {
		if u, err := url.Parse(page); err == nil && netgate.IsLoopback(u.Hostname()) {
			r.docsPorts[netgate.TargetOf(u).Port] = true
		}
	}
	return r
}

// Refusal says why the browser may not reach host:port, "" when it may.
// Each message names the rule it applies and what to do instead.
func (r Reach) Refusal(host string, port int) string {
	switch {
	case !netgate.IsLoopback(host):
		return fmt.Sprintf("agent_browser.not_loopback: %s is not on this machine's loopback. The browser is for the app you run here (http://127.0.0.1:PORT/ or http://localhost:PORT/); read documentation with read_docs.", net.JoinHostPort(host, strconv.Itoa(port)))
	case r.docsPorts[port]:
		return fmt.Sprintf("agent_browser.docs_port: port %d on the loopback is where the documentation is served; read it with read_docs. Serve your app on another port and open http://127.0.0.1:PORT/ here.", port)
	}
	return ""
}

// URLRefusal says why the browser may not open raw, "" when it may: a
// tool's url is refused before it reaches the browser.
func (r Reach) URLRefusal(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Sprintf("agent_browser.bad_url: %q is not an http:// or https:// URL; open the app you run here at http://127.0.0.1:PORT/.", raw)
	}
	return r.Refusal(u.Hostname(), netgate.TargetOf(u).Port)
}

// Options are the agent browser's tabs options for one attempt: its own
// managed Chromium whose every request goes through a gate that applies
// reach, carries what it lets through into sb (the app's port there),
// and records each refusal in tr.
func Options(reach Reach, sb *sandbox.Sandbox, tr *trace.Trace) tabs.Options {
	return tabs.Options{Gate: &netgate.Options{
		Refuse:      func(t netgate.Target) string { return reach.Refusal(t.Host, t.Port) },
		Dial:        func(_ context.Context, t netgate.Target) (net.Conn, error) { return sb.DialInside(t.Port) },
		OnRefused:   func(t netgate.Target, rawURL string) { tr.Add(trace.BrowserBlocked(t.Host, rawURL)) },
		RefusalPage: true,
	}}
}

// FitImages keeps the images the model's API takes and says in r's text
// why any other is not shown; it returns the sizes of those kept, for the
// trace.
func FitImages(r *agent.ToolAnswer) []trace.Image {
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

// imageFact is an image's size, as the trace keeps it; 0x0 when it is not
// a png or jpeg image.
func imageFact(im agent.Image) trace.Image {
	f := trace.Image{MediaType: im.MediaType, Bytes: len(im.Data)}
	if c, format, err := image.DecodeConfig(bytes.NewReader(im.Data)); err == nil && "image/"+format == im.MediaType {
		f.Width, f.Height = c.Width, c.Height
	}
	return f
}
