package hub

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Node is one tabwright process's place in attach mode: it runs the hub on
// the paired port, or, when another tabwright process runs it already,
// joins that hub as a client. Either way it lists the paired profiles for
// the engine (tabs.ExtensionSource). A joined node that loses its hub (that
// process stopped) takes the port over, or joins whichever process did.
type Node struct {
	opt Options

	mu       sync.Mutex
	hub      *Hub
	remote   *remoteHub
	profiles map[string]*NodeProfile
	closed   bool
	stop     chan struct{}
}

// Node roles.
const (
	RoleHub    = "hub"    // this process runs the hub
	RoleClient = "client" // this process joined another's hub
)

// StartOrJoin runs the hub on opt.Addr, or joins the one running there.
func StartOrJoin(opt Options) (*Node, error) {
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	n := &Node{opt: opt, profiles: map[string]*NodeProfile{}, stop: make(chan struct{})}
	if err := n.connect(); err != nil {
		return nil, err
	}
	go n.watch()
	return n, nil
}

// connect becomes the hub, or joins the hub that holds the port.
func (n *Node) connect() error {
	h, err := Start(n.opt)
	if err == nil {
		n.mu.Lock()
		n.hub, n.remote = h, nil
		n.mu.Unlock()
		fmt.Fprintf(n.opt.Log, "tabwright: attach hub on %s; waiting for paired browsers\n", h.Addr())
		return nil
	}
	if !addrInUse(err) {
		return err
	}
	r, jerr := joinHub(n.opt.Addr, n.opt.Key)
	if jerr != nil {
		return jerr
	}
	n.mu.Lock()
	n.hub, n.remote = nil, r
	n.mu.Unlock()
	fmt.Fprintf(n.opt.Log, "tabwright: joined the attach hub of another tabwright process on %s\n", n.opt.Addr)
	return nil
}

// watch takes over when the hub this node joined goes away.
func (n *Node) watch() {
	for {
		n.mu.Lock()
		r := n.remote
		n.mu.Unlock()
		if r == nil {
			return // this process runs the hub
		}
		select {
		case <-r.done:
		case <-n.stop:
			return
		}
		fmt.Fprintf(n.opt.Log, "tabwright: the attach hub's process went away; taking over\n")
		for wait := 50 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
			n.mu.Lock()
			closed := n.closed
			n.mu.Unlock()
			if closed {
				return
			}
			err := n.connect()
			if err == nil {
				break
			}
			fmt.Fprintf(n.opt.Log, "tabwright: %v; trying again\n", err)
			select {
			case <-time.After(wait):
			case <-n.stop:
				return
			}
		}
	}
}

// Role says whether this process runs the hub or joined another's.
func (n *Node) Role() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.hub != nil {
		return RoleHub
	}
	return RoleClient
}

// Hub returns the hub when this process runs it, else nil.
func (n *Node) Hub() *Hub {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.hub
}

// Close leaves or stops the hub; transports through it fail.
func (n *Node) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	close(n.stop)
	h, r := n.hub, n.remote
	n.mu.Unlock()
	if r != nil {
		r.close()
	}
	if h != nil {
		return h.Close()
	}
	return nil
}

// current lists the profiles the hub knows now.
func (n *Node) current() []profileInfo {
	n.mu.Lock()
	h, r := n.hub, n.remote
	n.mu.Unlock()
	switch {
	case h != nil:
		var out []profileInfo
		for _, p := range h.Profiles() {
			out = append(out, p.info())
		}
		return out
	case r != nil:
		return r.profiles()
	}
	return nil
}

// Profiles returns every profile seen since this node started, sorted by
// name then id; a profile the hub no longer lists shows as not connected.
func (n *Node) Profiles() []*NodeProfile {
	now := map[string]profileInfo{}
	for _, pi := range n.current() {
		now[pi.ID] = pi
	}
	n.mu.Lock()
	for id, pi := range now {
		np := n.profiles[id]
		if np == nil {
			np = &NodeProfile{n: n, id: id}
			n.profiles[id] = np
		}
		np.set(pi)
	}
	out := make([]*NodeProfile, 0, len(n.profiles))
	for id, np := range n.profiles {
		if _, ok := now[id]; !ok {
			np.disconnect()
		}
		out = append(out, np)
	}
	n.mu.Unlock()
	sortByName(out)
	return out
}

// ExtensionProfiles lists the paired profiles for the engine
// (tabs.Options.Extensions).
func (n *Node) ExtensionProfiles() []tabs.ExtensionProfile {
	list := n.Profiles()
	out := make([]tabs.ExtensionProfile, len(list))
	for i, p := range list {
		out[i] = p
	}
	return out
}

// WaitProfile waits until a connected profile satisfies match.
func (n *Node) WaitProfile(ctx context.Context, match func(*NodeProfile) bool) (*NodeProfile, error) {
	for {
		for _, p := range n.Profiles() {
			if p.Connected() && match(p) {
				return p, nil
			}
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return nil, errs.New(errs.Timeout, "no paired browser profile connected to the hub in time").
				WithHint("check that the extension is loaded and shows \"connected\" on its options page")
		}
	}
}

// NodeProfile is a paired profile as this process sees it, whether it runs
// the hub or joined it. It stays the same object for the life of the node,
// so the engine's claims on it survive a change of hub.
type NodeProfile struct {
	n  *Node
	id string

	mu   sync.Mutex
	info profileInfo
}

func (p *NodeProfile) set(pi profileInfo) {
	p.mu.Lock()
	p.info = pi
	p.mu.Unlock()
}

func (p *NodeProfile) disconnect() {
	p.mu.Lock()
	p.info.Connected = false
	p.mu.Unlock()
}

func (p *NodeProfile) get() profileInfo {
	for _, pi := range p.n.current() {
		if pi.ID == p.id {
			p.set(pi)
			return pi
		}
	}
	p.disconnect()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.info
}

// ID returns the profile's stable id.
func (p *NodeProfile) ID() string { return p.id }

// Name returns the name the user gave the profile.
func (p *NodeProfile) Name() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.info.Name
}

// Product returns the browser and version.
func (p *NodeProfile) Product() string { return p.get().Product }

// Connected tells whether the extension is connected to the hub now.
func (p *NodeProfile) Connected() bool { return p.get().Connected }

// FileAccess tells whether the user allowed the extension file:// URLs.
func (p *NodeProfile) FileAccess() bool { return p.get().FileAccess }

// Open returns a CDP transport for the profile, through this process's hub
// or the one it joined.
func (p *NodeProfile) Open() (cdp.Transport, error) {
	p.n.mu.Lock()
	h, r := p.n.hub, p.n.remote
	p.n.mu.Unlock()
	switch {
	case h != nil:
		if hp := h.Profile(p.id); hp != nil {
			return hp.Open()
		}
	case r != nil:
		return r.open(p.id)
	}
	return nil, errs.New(errs.BrowserUnavailable, "the extension of browser profile %q is not connected", p.Name()).
		WithHint("open that browser; the extension reconnects within 30 s of its start")
}
