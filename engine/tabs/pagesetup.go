package tabs

import (
	"context"
	"sort"
	"strings"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// PageSetup is how the managed browser and each of its tabs start, as the
// server's configuration asks (--device, --init-script, …). Tabs of a
// browser the user runs are left as they are: it is their browser.
type PageSetup struct {
	// Screen is the viewport every tab starts with; nil keeps the
	// browser's own. browser_emulate changes it per tab from there.
	Screen *Screen
	// InitScripts run in every document, frames too, before its own scripts.
	InitScripts []string
	// Permissions are granted to every origin at start (PermissionNames).
	Permissions []string
	// Storage is loaded into the browser at start: its cookies, and the
	// localStorage of each of its origins.
	Storage *StorageState
}

// Screen is a device's viewport.
type Screen struct {
	Width, Height int
	Scale         float64 // device pixels per CSS pixel; 0 is 1
	Mobile        bool    // meta viewport, overlay scrollbars, mobile layout
	Touch         bool    // touch events and navigator.maxTouchPoints
}

// setupTab applies the page setup to a new session of a managed tab: one
// round trip per part configured, sent together, none otherwise.
func (t *Tab) setupTab(ctx context.Context, sess *cdp.Session) error {
	setup := t.profile.m.opt.Page
	if t.profile.kind != KindManaged {
		return nil
	}
	var calls []func() error
	if s := setup.Screen; s != nil {
		calls = append(calls, func() error {
			_, err := cdproto.Call(ctx, sess, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
				Width: int64(s.Width), Height: int64(s.Height), DeviceScaleFactor: s.Scale, Mobile: s.Mobile,
			})
			return err
		})
		if s.Touch {
			calls = append(calls, func() error {
				_, err := cdproto.Call(ctx, sess, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5})
				return err
			})
		}
	}
	calls = append(calls, initScripts(ctx, sess, setup.InitScripts)...)
	return parallel(calls...)
}

// initScripts are the calls that register the configured init scripts in
// a session (a page, or an out-of-process frame of one).
func initScripts(ctx context.Context, sess *cdp.Session, scripts []string) []func() error {
	var calls []func() error
	for _, src := range scripts {
		calls = append(calls, func() error {
			_, err := cdproto.Call(ctx, sess, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
			return err
		})
	}
	return calls
}

// baseEmulation is what browser_emulate starts from in a tab: the
// configured screen of the managed browser, else nothing.
func (t *Tab) baseEmulation() *Emulation {
	s := t.profile.m.opt.Page.Screen
	if s == nil || t.profile.kind != KindManaged {
		return &Emulation{}
	}
	mobile := s.Mobile
	return &Emulation{Width: s.Width, Height: s.Height, DeviceScale: s.Scale, Mobile: &mobile}
}

// setupBrowser prepares a managed browser that just started: permissions
// granted to every origin, storage state loaded.
func (m *Manager) setupBrowser(ctx context.Context, conn *cdp.Conn) error {
	setup := m.opt.Page
	descs, err := PermissionDescriptors(setup.Permissions)
	if err != nil {
		return err
	}
	var calls []func() error
	for _, d := range descs {
		calls = append(calls, func() error {
			_, err := cdproto.Call(ctx, conn.Browser(), browser.SetPermission, browser.SetPermissionParams{Permission: d, Setting: browser.PermissionSettingGranted})
			if err != nil {
				return errs.Wrap(errs.BrowserUnavailable, err, "granting "+d.Name+" (--grant-permissions)").WithHint("this browser does not grant %s: leave it out of --grant-permissions", d.Name)
			}
			return nil
		})
	}
	if err := parallel(calls...); err != nil {
		return err
	}
	if setup.Storage != nil {
		return loadStorageState(ctx, conn, setup.Storage)
	}
	return nil
}

// permissionNames are the names --grant-permissions takes: the
// Permissions API's, as Playwright takes them too, each with the
// descriptor the browser grants.
var permissionNames = map[string]browser.PermissionDescriptor{
	"geolocation":              {Name: "geolocation"},
	"notifications":            {Name: "notifications"},
	"push":                     {Name: "push", UserVisibleOnly: true},
	"clipboard-read":           {Name: "clipboard-read"},
	"clipboard-write":          {Name: "clipboard-write"},
	"camera":                   {Name: "camera"},
	"microphone":               {Name: "microphone"},
	"midi":                     {Name: "midi"},
	"midi-sysex":               {Name: "midi", Sysex: true},
	"background-sync":          {Name: "background-sync"},
	"periodic-background-sync": {Name: "periodic-background-sync"},
	"accelerometer":            {Name: "accelerometer"},
	"gyroscope":                {Name: "gyroscope"},
	"magnetometer":             {Name: "magnetometer"},
	"payment-handler":          {Name: "payment-handler"},
	"storage-access":           {Name: "storage-access"},
	"persistent-storage":       {Name: "persistent-storage"},
	"local-fonts":              {Name: "local-fonts"},
	"idle-detection":           {Name: "idle-detection"},
	"window-management":        {Name: "window-management"},
	"screen-wake-lock":         {Name: "screen-wake-lock"},
	"fullscreen":               {Name: "fullscreen", AllowWithoutGesture: true},
}

// PermissionNames are the names --grant-permissions takes, sorted.
func PermissionNames() []string {
	names := make([]string, 0, len(permissionNames))
	for n := range permissionNames {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// PermissionDescriptors are the descriptors of names, or an error naming
// the first unknown one.
func PermissionDescriptors(names []string) ([]*browser.PermissionDescriptor, error) {
	var out []*browser.PermissionDescriptor
	for _, n := range names {
		d, ok := permissionNames[strings.TrimSpace(n)]
		if !ok {
			return nil, errs.Input("--grant-permissions", "%q is not a permission tabwright knows", n).
				WithHint("use one of: %s", strings.Join(PermissionNames(), ", "))
		}
		out = append(out, &d)
	}
	return out, nil
}
