// Package tabs owns browsers, their tabs and the exclusive claims agents hold
// on them. A claimed tab is reached only through an opaque handle; all work
// on one tab runs through its serial queue.
package tabs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sort"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/engine/netgate"
)

// Options configure a Manager.
type Options struct {
	Launch launch.Options // the managed browser
	CDPURL string         // attach here instead of launching; never killed

	// ClaimDir holds the locks that show claims on a --cdp-url browser to
	// the other tabwright processes of this user; "" is the default place
	// (see engine/claimlock).
	ClaimDir string

	// Extensions, when set, adds one profile per browser profile paired
	// through the attach hub (kind extension).
	Extensions ExtensionSource

	// DownloadsDir is where the managed browser saves downloads; empty
	// means a folder in the system's temporary directory (downloads.go).
	DownloadsDir string

	// MaxDownloadBytes bounds one download, MaxDownloadsBytes all of them
	// together (downloads.go); 0 is the default of each. A page the agent
	// only opened can start downloads: the bounds keep it from filling the
	// disk.
	MaxDownloadBytes, MaxDownloadsBytes int64

	// MaxPopups bounds the live popups of one claimed tab (popups.go):
	// 0 is DefaultMaxPopups, NoPopups closes every one.
	MaxPopups int

	// SingleSpare keeps the tab a managed browser starts with as its only
	// spare (spare.go): the first Open gets it and no other is made. For a
	// process that opens one tab (qs's docs reader), where a second spare
	// would never be taken and its renderer would only take CPU.
	SingleSpare bool

	// Page is how the managed browser and its tabs start (pagesetup.go).
	Page PageSetup

	// Gate, when set, sends every request of the managed browser through
	// a gate on loopback that enforces origin rules and reaches the
	// upstream proxy (engine/netgate); refusals are explained in the
	// tab's logs.
	Gate *netgate.Options

	// IdleTimeout closes the managed browser once no call has used it
	// for this long (idle.go); the next call starts it again. 0: never.
	IdleTimeout time.Duration
}

// Manager holds the browsers and every claim on their tabs.
type Manager struct {
	opt      Options
	gate     *netgate.Gate // nil without Options.Gate
	profiles []*profile

	mu      sync.Mutex
	handles map[string]*Tab               // handle -> claim
	tombs   map[string]*errs.Error        // dead handle -> why it died
	claims  map[string]map[target.ID]*Tab // profile id -> target -> claim
	ext     map[string]*profile           // paired extension profiles by id
	dl      downloads                     // downloads.go
	closed  bool
	xp      crossProcess
}

// New returns a manager. No browser starts until one is used.
func New(opt Options) (*Manager, error) {
	m := &Manager{opt: opt, handles: map[string]*Tab{}, tombs: map[string]*errs.Error{}, claims: map[string]map[target.ID]*Tab{}, ext: map[string]*profile{}}
	if opt.CDPURL != "" {
		hostPort, err := launch.Endpoint(opt.CDPURL)
		if err != nil {
			return nil, err
		}
		m.profiles = append(m.profiles, &profile{id: KindCDP + ":" + hostPort, kind: KindCDP, m: m, lock: make(chan struct{}, 1)})
	} else {
		m.profiles = append(m.profiles, &profile{id: ManagedID, kind: KindManaged, m: m, lock: make(chan struct{}, 1)})
	}
	if opt.Gate != nil && opt.CDPURL == "" {
		g, err := netgate.Start(*opt.Gate)
		if err != nil {
			return nil, err
		}
		m.gate = g
	}
	return m, nil
}

// Prestart starts the managed browser in the background when it is the
// only browser, so that the first call finds it started or starting
// (a call waits for a start under way). Nothing starts when the manager
// drives a browser someone else runs (--cdp-url, the extension). A failed
// start is left to the first call, which starts it again and says why.
// It says whether it started one.
func (m *Manager) Prestart() bool {
	p := m.profiles[0]
	if p.kind != KindManaged || m.opt.Extensions != nil {
		return false
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), prestartWait)
		defer cancel()
		p.connect(ctx)
	}()
	return true
}

// prestartWait bounds Prestart's launch, as a call's timeout would.
const prestartWait = 60 * time.Second

// Close closes the tabs opened through this manager on browsers it does
// not own (a managed browser goes with them all), releases every claim and
// stops the managed browser.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	var opened []*Tab
	for _, t := range m.handles {
		if t.opened && t.profile.kind != KindManaged {
			opened = append(opened, t)
		}
	}
	m.mu.Unlock()
	m.closeAll(opened, "the server closed")
	for _, p := range m.profiles {
		p.close()
	}
	for _, p := range m.extensionProfiles() {
		p.close()
	}
	m.closeDownloads()
	if m.gate != nil {
		m.gate.Close()
	}
}

// Browsers lists the profiles without starting any browser.
func (m *Manager) Browsers() []BrowserInfo {
	out := make([]BrowserInfo, 0, len(m.profiles))
	for _, p := range m.profiles {
		out = append(out, p.info())
	}
	for _, p := range m.extensionProfiles() {
		out = append(out, p.info())
	}
	return out
}

// Browser describes one profile; id "" is the default browser.
func (m *Manager) Browser(id string) (BrowserInfo, error) {
	p, err := m.profile(id)
	if err != nil {
		return BrowserInfo{}, err
	}
	return p.info(), nil
}

// DefaultBrowser is the id used when a call names none: the paired
// profile when exactly one is paired (attach mode), else the managed
// browser or the --cdp-url one.
func (m *Manager) DefaultBrowser() string { return m.defaultProfile().id }

func (m *Manager) defaultProfile() *profile {
	if ext := m.extensionProfiles(); len(ext) == 1 {
		return ext[0]
	}
	return m.profiles[0]
}

func (m *Manager) profile(id string) (*profile, error) {
	if id == "" {
		return m.defaultProfile(), nil
	}
	all := append(append([]*profile{}, m.profiles...), m.extensionProfiles()...)
	for _, p := range all {
		if p.id == id {
			return p, nil
		}
	}
	known := make([]string, 0, len(all))
	for _, p := range all {
		known = append(known, p.id)
	}
	return nil, errs.Input("browser_id", "no browser %q; known: %v", id, known).
		WithHint("list the browsers for their ids").WithFact(FactNoBrowser)
}

// connect returns the named browser (default: the first) and a live
// connection to it, with the connection's generation.
func (m *Manager) connect(ctx context.Context, browserID string) (*profile, *cdp.Conn, int, error) {
	p, err := m.profile(browserID)
	if err != nil {
		return nil, nil, 0, err
	}
	p.touch()
	conn, gen, err := p.connect(ctx)
	if err != nil {
		return nil, nil, 0, err
	}
	p.touch() // a start can outlast the idle timeout
	return p, conn, gen, nil
}

// TabInfo describes a tab for discovery.
type TabInfo struct {
	TabID     string `json:"tab_id"`
	BrowserID string `json:"browser_id"`
	URL       string `json:"url"`
	Title     string `json:"title"`
	Claimed   bool   `json:"claimed"`
	ClaimedBy string `json:"claimed_by,omitempty"` // "you", "another session" (of this process, or through the attach hub) or "another process"
	OpenerID  string `json:"opener_id,omitempty"`  // the tab whose page opened this one, for a popup
}

// Tabs lists a browser's page tabs, starting the browser if needed.
func (m *Manager) Tabs(ctx context.Context, owner, browserID string) ([]TabInfo, error) {
	p, conn, _, err := m.connect(ctx, browserID)
	if err != nil {
		return nil, err
	}
	defer p.busy()()
	pages, err := m.policePopups(ctx, p, conn.Browser()) // pages only, without popups over a bound
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []TabInfo{}
	for _, ti := range pages {
		info := TabInfo{TabID: string(ti.TargetID), BrowserID: p.id, URL: ti.URL, Title: ti.Title, OpenerID: string(ti.OpenerID)}
		if c := m.claims[p.id][ti.TargetID]; c != nil {
			info.Claimed = true
			info.ClaimedBy = "another session"
			if c.owner == owner {
				info.ClaimedBy = "you"
			}
		} else if p.kind == KindExtension && ti.Attached {
			// attached through the extension by another tabwright process
			info.Claimed, info.ClaimedBy = true, "another session"
		} else if m.heldAcross(p, ti.TargetID) {
			info.Claimed, info.ClaimedBy = true, ClaimedByProcess
		}
		out = append(out, info)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TabID < out[j].TabID })
	return out, nil
}

// OpenResult is what Open returns.
type OpenResult struct {
	TabInfo
	Tab *Tab // nil unless claimed
}

// OpenOptions says which tab Open makes and for whom.
type OpenOptions struct {
	Owner     string // who claims the tab
	BrowserID string // "" for the default browser
	URL       string
	Active    bool // bring the tab to the front
	Claim     bool // claim it for Owner
}

// Open opens a new tab on opt.URL and, when opt.Claim is set, claims it.
// The tab loads the URL in its own time; OpenAndLoad waits for the load.
func (m *Manager) Open(ctx context.Context, opt OpenOptions) (*OpenResult, error) {
	res, err := m.open(ctx, opt)
	if err == nil && res.Tab != nil {
		res.Tab.refillAfterFirstNavigation()
	}
	return res, err
}

// open is Open without making a new spare tab: a blank claimed tab is the
// spare when there is one.
func (m *Manager) open(ctx context.Context, opt OpenOptions) (*OpenResult, error) {
	p, conn, gen, err := m.connect(ctx, opt.BrowserID)
	if err != nil {
		return nil, err
	}
	defer p.busy()()
	if opt.Claim && opt.URL == "about:blank" {
		if res, ok := m.openSpare(ctx, opt, p, conn, gen); ok {
			return res, nil
		}
	}
	created, err := cdproto.Call(ctx, conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: opt.URL, Background: ptr(!opt.Active)})
	if err != nil {
		return nil, err
	}
	res := &OpenResult{TabInfo: TabInfo{TabID: string(created.TargetID), BrowserID: p.id, URL: opt.URL}}
	if !opt.Claim {
		return res, nil
	}
	t, err := m.claim(ctx, opt.Owner, p, conn, gen, created.TargetID, true)
	if err != nil {
		// Nobody holds the tab we made: close it rather than leave it behind.
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeWait)
		defer cancel()
		cdproto.Call(closeCtx, conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: created.TargetID})
		return nil, err
	}
	res.Tab, res.Claimed, res.ClaimedBy = t, true, "you"
	return res, nil
}

// OpenAndLoad opens a claimed tab on about:blank and then navigates it to
// opt.URL in the tab's queue, so that the caller learns where the load
// ended and its status (a tab opened straight on the URL loads unobserved).
// When the load fails the tab stays open and claimed: the result comes back
// with the error and the caller decides whether to keep it.
func (m *Manager) OpenAndLoad(ctx context.Context, opt OpenOptions) (*OpenResult, *NavResult, error) {
	url := opt.URL
	opt.URL, opt.Claim = "about:blank", true
	opened, err := m.open(ctx, opt)
	if err != nil {
		return nil, nil, err
	}
	opened.Tab.refillAfterFirstNavigation()
	var nav *NavResult
	err = opened.Tab.Do(ctx, func(ctx context.Context) error {
		var err error
		nav, err = opened.Tab.Navigate(ctx, Navigation{URL: url})
		return err
	})
	opened.URL = url
	if nav != nil {
		opened.URL, opened.Title = nav.URL, nav.Title
	}
	return opened, nav, err
}

// ClaimOptions names the existing tab Claim claims and for whom.
type ClaimOptions struct {
	Owner     string
	BrowserID string // "" for the default browser
	TabID     string
	// ExpectedURL and ExpectedTitle, when set, must equal the tab's current
	// URL and title exactly.
	ExpectedURL, ExpectedTitle string
}

// Claim claims an existing tab for opt.Owner.
func (m *Manager) Claim(ctx context.Context, opt ClaimOptions) (*Tab, error) {
	p, conn, gen, err := m.connect(ctx, opt.BrowserID)
	if err != nil {
		return nil, err
	}
	defer p.busy()()
	tabID := opt.TabID
	info, err := cdproto.Call(ctx, conn.Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: target.ID(tabID)})
	if err != nil && errs.Code(err) != errs.ProtocolError {
		return nil, err // the browser, not the tab id, is the problem
	}
	if err != nil || info.TargetInfo == nil || info.TargetInfo.Type != "page" || m.hiddenSpare(p, info.TargetInfo.TargetID) {
		return nil, errs.Input("tab_id", "no tab %q in browser %s", tabID, p.id).
			WithHint("list the browser's tabs for their current ids").WithFact(FactNoTab)
	}
	ti := info.TargetInfo
	if opt.ExpectedURL != "" && ti.URL != opt.ExpectedURL {
		return nil, errs.New(errs.TabMismatch, "tab %s shows url %q, expected %q", tabID, ti.URL, opt.ExpectedURL).
			WithHint("discover the tabs again and claim the one you meant")
	}
	if opt.ExpectedTitle != "" && ti.Title != opt.ExpectedTitle {
		return nil, errs.New(errs.TabMismatch, "tab %s shows title %q, expected %q", tabID, ti.Title, opt.ExpectedTitle).
			WithHint("discover the tabs again and claim the one you meant")
	}
	return m.claim(ctx, opt.Owner, p, conn, gen, ti.TargetID, false)
}

// claim reserves the tab first, so that of two racing sessions exactly one
// attaches, then attaches and prepares the page. opened says the tab was
// made for owner (Open).
func (m *Manager) claim(ctx context.Context, owner string, p *profile, conn *cdp.Conn, gen int, id target.ID, opened bool) (*Tab, error) {
	t := &Tab{
		handle: newHandle(), owner: owner, profile: p, gen: gen, opened: opened,
		TargetID: id, queue: make(chan struct{}, 1), dead: make(chan struct{}), popups: newPopupLedger(opened),
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errs.New(errs.BrowserUnavailable, "the server is shutting down")
	}
	if c := m.claims[p.id][id]; c != nil {
		m.mu.Unlock()
		if c.owner == owner {
			return nil, errs.New(errs.TabInUse, "you already hold tab %s as %s", id, c.handle).
				WithHint("use that tab_handle, or release it first")
		}
		return nil, errs.New(errs.TabInUse, "tab %s is claimed by another session", id).
			WithHint("open a new tab, or wait until the other session releases it").WithFact(FactHeldBySession)
	}
	if m.claims[p.id] == nil {
		m.claims[p.id] = map[target.ID]*Tab{}
	}
	m.claims[p.id][id] = t
	m.handles[t.handle] = t
	m.mu.Unlock()

	if err := m.lockAcross(t); err != nil {
		m.forget(t, errs.As(err))
		return nil, err
	}
	if err := t.attach(ctx, conn); err != nil {
		m.forget(t, errs.As(err))
		return nil, err
	}
	if !opened {
		if err := m.adoptPopups(ctx, t); err != nil {
			m.forget(t, errs.As(err))
			return nil, err
		}
	}
	return t, nil
}

// Get returns owner's live tab for handle.
func (m *Manager) Get(owner, handle string) (*Tab, error) {
	m.mu.Lock()
	t, tomb := m.handles[handle], m.tombs[handle]
	m.mu.Unlock()
	if t == nil && tomb != nil {
		return nil, tomb
	}
	if t != nil {
		t.profile.touch()
	}
	if t == nil || t.owner != owner {
		return nil, deadHandle("unknown tab handle %q", handle).
			WithHint("use a tab handle that opening or claiming a tab returned to this owner").WithFact(FactUnknownHandle)
	}
	if err := t.deadErr(); err != nil {
		return nil, err
	}
	return t, nil
}

// Release ends owner's claim and leaves the tab open as it is.
func (m *Manager) Release(ctx context.Context, owner, handle string) error {
	t, err := m.Get(owner, handle)
	if err != nil {
		return err
	}
	m.forget(t, deadHandle("tab handle %q was released", handle).WithHint("claim the tab again to use it"))
	return t.detach(ctx)
}

// CloseTab closes the tab and returns once the browser has destroyed it,
// so a discovery right after no longer lists it; its handle dies.
func (m *Manager) CloseTab(ctx context.Context, owner, handle string) error {
	t, err := m.Get(owner, handle)
	if err != nil {
		return err
	}
	m.forget(t, deadHandle("tab handle %q belongs to a closed tab", handle).WithHint("open or claim another tab"))
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
	}
	browser := t.sess.Conn().Browser()
	if _, err := cdproto.Call(ctx, browser, target.CloseTarget, target.CloseTargetParams{TargetID: t.TargetID}); err != nil {
		return err
	}
	select {
	case <-t.sess.Done(): // the browser detached us: the target is being destroyed
	case <-ctx.Done():
		return errs.New(errs.Timeout, "the browser did not destroy tab %s in time", t.TargetID).
			WithHint("discover the tabs to see whether it closed")
	}
	return gone(ctx, browser, t.TargetID)
}

// gone waits until the browser no longer lists target id. The detach comes
// with the target's destruction; the list may trail it by a moment.
func gone(ctx context.Context, browser *cdp.Session, id target.ID) error {
	for wait := time.Millisecond; ; wait *= 2 {
		_, err := cdproto.Call(ctx, browser, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: id})
		if errs.Code(err) == errs.ProtocolError {
			return nil // "no target with given id"
		}
		if err != nil {
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return errs.New(errs.Timeout, "the browser still lists closed tab %s", id)
		}
	}
}

// closeWait bounds closing a tab nobody could use.
const closeWait = 2 * time.Second

// Activate brings the tab to the front.
func (m *Manager) Activate(ctx context.Context, owner, handle string) error {
	t, err := m.Get(owner, handle)
	if err != nil {
		return err
	}
	_, err = cdproto.Call(ctx, t.sess.Conn().Browser(), target.ActivateTarget, target.ActivateTargetParams{TargetID: t.TargetID})
	return err
}

func newHandle() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "th_" + hex.EncodeToString(b)
}

func browserVersion(ctx context.Context, c *cdp.Conn) (string, error) {
	v, err := cdproto.Call(ctx, c.Browser(), browser.GetVersion, cdproto.Empty{})
	if err != nil {
		return "", err
	}
	return v.Product, nil
}

func ptr[T any](v T) *T { return &v }

// gateRefusal explains the network gate's refusals in the logs of p's
// tabs: only the managed browser goes through the gate.
func (m *Manager) gateRefusal(p *profile) func(string) string {
	if m.gate == nil || p.kind != KindManaged {
		return nil
	}
	return m.gate.Refusal
}
