package tabs

import (
	"context"
	"encoding/json"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/webmcp"
)

// Page tools (WebMCP): tools a page offers to agents, registered from
// script (document.modelContext.registerTool) or declared as a form
// (<form toolname tooldescription>). Once WebMCP.enable is sent (at
// attach) the browser reports every tool as it is added or removed, those
// registered before included; the tab keeps the list from those events,
// so reading it costs no round trip. The browser sends no removal when a
// document goes away: a frame's tools are dropped when it navigates.

// PageTool is one tool a page offers. Everything in it comes from the page
// and may be false: a page can lie about what its tool does.
type PageTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"` // as the page declared it
	Frame       string          `json:"frame"`                 // the frame that registered it
	// Form: declared by a <form toolname>; the browser fills the form.
	// Without AutoSubmit a person must then submit it.
	Form       bool `json:"form,omitempty"`
	AutoSubmit bool `json:"autosubmit,omitempty"`
	// The page's own hints (annotations).
	ReadOnly      bool `json:"readOnly,omitempty"`
	Consequential bool `json:"consequential,omitempty"`
}

// pageToolSet is the tools a tab's documents offer, as the events told.
type pageToolSet struct {
	list    []PageTool
	version int // changes with list
}

// PageTools lists the tools the tab's documents offer now, main frame
// first, each frame's in the order they were added. No round trip.
func (t *Tab) PageTools() []PageTool {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]PageTool, 0, len(t.page.tools.list))
	for _, tl := range t.page.tools.list {
		if tl.Frame == string(t.mainFrame) {
			out = append(out, tl)
		}
	}
	for _, tl := range t.page.tools.list {
		if tl.Frame != string(t.mainFrame) {
			out = append(out, tl)
		}
	}
	return out
}

// PageToolsVersion changes whenever the tab's page tools change.
func (t *Tab) PageToolsVersion() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.page.tools.version
}

// enableWebMCP asks the browser for the page's tools. A browser without
// the domain answers with an error: it has no page tools to report, which
// is no reason to refuse the tab.
func enableWebMCP(ctx context.Context, sess cdproto.Session) error {
	cdproto.Call(ctx, sess, webmcp.Enable, cdproto.Empty{})
	return nil
}

// onToolsAdded records added tools (t.mu held). A name registered again
// in the same frame replaces the old entry.
func (p *pageToolSet) onAdded(params jsonv2.Value) bool {
	var ev webmcp.EventToolsAdded
	if jsonv2.Unmarshal(params, &ev) != nil {
		return false
	}
	for _, tl := range ev.Tools {
		if tl == nil {
			continue
		}
		p.drop(string(tl.FrameID), tl.Name)
		p.list = append(p.list, pageToolOf(tl))
	}
	p.version++
	return true
}

func pageToolOf(tl *webmcp.Tool) PageTool {
	pt := PageTool{Name: tl.Name, Description: tl.Description, Frame: string(tl.FrameID), Form: tl.BackendNodeID != 0}
	if len(tl.InputSchema) > 0 {
		pt.InputSchema = json.RawMessage(append([]byte(nil), tl.InputSchema...))
	}
	if a := tl.Annotations; a != nil {
		pt.AutoSubmit, pt.ReadOnly, pt.Consequential = a.Autosubmit, a.ReadOnly, a.Consequential
	}
	return pt
}

// onToolsRemoved forgets removed tools (t.mu held).
func (p *pageToolSet) onRemoved(params jsonv2.Value) bool {
	var ev webmcp.EventToolsRemoved
	if jsonv2.Unmarshal(params, &ev) != nil {
		return false
	}
	for _, tl := range ev.Tools {
		if tl != nil {
			p.drop(string(tl.FrameID), tl.Name)
		}
	}
	p.version++
	return true
}

func (p *pageToolSet) drop(frame, name string) {
	for i, tl := range p.list {
		if tl.Frame == frame && tl.Name == name {
			p.list = append(p.list[:i:i], p.list[i+1:]...)
			return
		}
	}
}

// dropFrameTools forgets the tools of a frame whose document went away
// (navigated, detached); frame "" is every frame (a crashed renderer).
func (p *pageToolSet) dropFrame(frame cdproto.FrameID) bool {
	kept := p.list[:0:0]
	for _, tl := range p.list {
		if frame != "" && tl.Frame != string(frame) {
			kept = append(kept, tl)
		}
	}
	if len(kept) == len(p.list) {
		return false
	}
	p.list = kept
	p.version++
	return true
}

// onFrameDetached forgets a removed frame's tools.
func (p *pageToolSet) onFrameDetached(params jsonv2.Value) bool {
	var ev page.EventFrameDetached
	if jsonv2.Unmarshal(params, &ev) != nil {
		return false
	}
	return p.dropFrame(ev.FrameID)
}

// Whether a browser offers WebMCP, once a page call found out (see
// noSuchTool); a new connection may be another browser.
const (
	pageToolsAvailable   = "available"
	pageToolsUnavailable = "unavailable"
)

func (p *profile) notePageTools(available bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pageTools = pageToolsUnavailable
	if available {
		p.pageTools = pageToolsAvailable
	}
}

// webmcpHint says how to give this profile's browser WebMCP.
func (p *profile) webmcpHint() string {
	switch p.kind {
	case KindManaged:
		return "the managed browser starts with --enable-features=WebMCP; this one has no WebMCP: use a newer Chromium (tabwright doctor checks it)"
	case KindCDP:
		return "start that browser with --enable-features=WebMCP (Chromium or Chrome with WebMCP), then attach again"
	}
	return "turn WebMCP on in that browser (started with --enable-features=WebMCP) and reconnect"
}
