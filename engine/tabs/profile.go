package tabs

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/deadline"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/launch"
)

// Kinds of browser profile.
const (
	KindManaged = "managed"
	KindCDP     = "cdp"
)

// ManagedID is the id of the browser this program launches itself.
const ManagedID = "managed"

// profile is one browser the manager can reach: the managed Chromium, or an
// existing DevTools endpoint. Its connection is made on first use and made
// again after the browser died; every claim made on a dead connection dies
// with it.
type profile struct {
	id   string
	kind string
	m    *Manager

	lock    chan struct{} // held while connecting; a context-aware mutex
	mu      sync.Mutex
	popupMu sync.Mutex // one look at the popups at a time (popups.go)
	spare   spareTab   // spare.go
	conn    *cdp.Conn
	managed *launch.Browser
	version string
	gen     int
	ext     ExtensionProfile // kind extension only
	idle    idleState        // idle.go
	// pageTools: whether the connected browser offers WebMCP, once known
	// (webmcp.go); "" until a page call found out.
	pageTools string
}

// BrowserInfo describes a profile for discovery.
type BrowserInfo struct {
	BrowserID    string   `json:"browser_id"`
	Kind         string   `json:"kind"`
	Name         string   `json:"name,omitempty"` // the name the user gave a paired profile
	Connected    bool     `json:"connected"`
	Version      string   `json:"version,omitempty"`
	Headless     bool     `json:"headless,omitempty"`
	Capabilities []string `json:"capabilities"`
	// PageTools says whether the browser offers pages WebMCP (tools they
	// register for agents): available, unavailable, or left out until known.
	PageTools string `json:"page_tools,omitempty"`
}

// capabilities lists what agents can do with a profile's tabs.
var capabilities = []string{"open_tab", "claim_tab", "navigate", "observe"}

func (p *profile) info() BrowserInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	bi := BrowserInfo{BrowserID: p.id, Kind: p.kind, Capabilities: capabilities}
	if p.conn != nil && p.conn.Err() == nil {
		bi.Connected = true
		bi.Version = p.version
		bi.PageTools = p.pageTools
	}
	bi.Headless = p.kind == KindManaged && !p.m.opt.Launch.Headful
	if p.ext != nil {
		bi.Name, bi.Capabilities = p.ext.Name(), extensionCapabilities
		if p.ext.FileAccess() {
			bi.Capabilities = append(append([]string{}, extensionCapabilities...), CapabilityFileURLs)
		}
		bi.Connected = p.ext.Connected()
		bi.Version = p.ext.Product()
	}
	return bi
}

// environment names the browser for the observation, e.g.
// "chromium/156 headless".
func (p *profile) environment() string {
	p.mu.Lock()
	v, managed := p.version, p.managed
	p.mu.Unlock()
	name, ver, _ := strings.Cut(v, "/")
	name = strings.ToLower(strings.TrimPrefix(name, "Headless"))
	if name == "chrome" && managed != nil && strings.Contains(managed.Path, "chromium") {
		name = "chromium"
	}
	major, _, _ := strings.Cut(ver, ".")
	mode := "cdp"
	if p.kind == KindExtension {
		mode = "extension"
	}
	if p.kind == KindManaged {
		mode = "headless"
		if p.m.opt.Launch.Headful {
			mode = "headful"
		}
	}
	return name + "/" + major + " " + mode
}

// connect returns a live connection, launching or attaching when there is
// none or the last one died.
func (p *profile) connect(ctx context.Context) (*cdp.Conn, int, error) {
	select {
	case p.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, 0, deadline.Err(ctx, "waiting for the browser "+p.id+" to start")
	}
	defer func() { <-p.lock }()

	p.mu.Lock()
	conn, gen := p.conn, p.gen
	p.mu.Unlock()
	if conn != nil && conn.Err() == nil {
		return conn, gen, nil
	}
	if conn != nil {
		p.m.dropClaims(p, gen)
	}

	var managed *launch.Browser
	var version string
	switch p.kind {
	case KindManaged:
		b, err := p.startManaged(ctx)
		if err != nil {
			return nil, 0, err
		}
		managed, conn, version = b, b.Conn, b.Version
	default: // a connection to a browser someone else runs: ask its version
		var c *cdp.Conn
		var err error
		if p.kind == KindExtension {
			c, err = p.openExtension()
		} else {
			c, err = launch.Attach(ctx, p.m.opt.CDPURL)
		}
		if err != nil {
			return nil, 0, err
		}
		if version, err = browserVersion(ctx, c); err != nil {
			c.Close()
			return nil, 0, err
		}
		conn = c
	}

	if p.m.isClosed() {
		conn.Close()
		if managed != nil {
			managed.Close() // started while the manager closed (Prestart)
		}
		return nil, 0, errs.New(errs.BrowserUnavailable, "the server is shutting down")
	}
	p.mu.Lock()
	p.gen++
	gen = p.gen
	p.conn, p.managed, p.version = conn, managed, version
	p.pageTools = "" // perhaps another browser now
	p.mu.Unlock()
	if managed != nil && p.keepsSpare() {
		p.adoptStartupTab(conn, gen)
	}
	go func() {
		<-conn.Done()
		p.m.dropClaims(p, gen)
		if managed != nil {
			managed.Close() // reap the process and remove its profile directory
		}
	}()
	if managed != nil && p.m.opt.IdleTimeout > 0 {
		go p.watchIdle(conn, gen)
	}
	return conn, gen, nil
}

// startManaged starts the managed browser, through the network gate when
// there is one, and sets it up: downloads, permissions, storage state.
func (p *profile) startManaged(ctx context.Context) (*launch.Browser, error) {
	opt := p.m.opt.Launch
	opt.StartupTab = p.keepsSpare()
	if p.m.gate != nil {
		opt.Args = append(slices.Clip(opt.Args), p.m.gate.BrowserArgs()...)
	}
	b, err := launch.Start(ctx, opt)
	if err != nil {
		return nil, err
	}
	if err := p.m.startDownloads(ctx, b.Conn); err != nil {
		b.Close()
		return nil, err
	}
	if err := p.m.setupBrowser(ctx, b.Conn); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// close stops a managed browser or drops the connection to an attached one
// (which keeps running).
func (p *profile) close() {
	p.mu.Lock()
	conn, managed := p.conn, p.managed
	p.conn, p.managed = nil, nil
	p.mu.Unlock()
	if managed != nil {
		managed.Close()
	} else if conn != nil {
		conn.Close()
	}
}

// browserOf returns the browser session of connection generation gen, or
// nil once that connection is gone.
func (p *profile) browserOf(gen int) *cdp.Session {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil || p.gen != gen || p.conn.Err() != nil {
		return nil
	}
	return p.conn.Browser()
}
