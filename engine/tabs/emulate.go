package tabs

import (
	"context"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"

	"github.com/tabwright/tabwright/engine/cdp"
)

// Emulation is what a tab pretends to be. Zero fields keep what was set
// before; Reset goes back to what the tab started with (the configured
// screen of the managed browser, else none) first.
type Emulation struct {
	Width       int     `json:"width,omitempty"`        // viewport CSS px
	Height      int     `json:"height,omitempty"`       // viewport CSS px
	DeviceScale float64 `json:"device_scale,omitempty"` // device pixels per CSS px
	Mobile      *bool   `json:"mobile,omitempty"`
	Media       string  `json:"media,omitempty"`        // screen, print, or "" for none
	ColorScheme string  `json:"color_scheme,omitempty"` // light, dark, no-preference
	Reset       bool    `json:"-"`
}

const emulationKey = "tabs.emulation"

// Emulate applies e on top of the tab's earlier overrides and returns what
// is in force now. It lasts as long as the claim.
func (t *Tab) Emulate(ctx context.Context, e Emulation) (Emulation, error) {
	cur := t.State(emulationKey, func() any { return t.baseEmulation() }).(*Emulation)
	next := *cur
	if e.Reset {
		next = *t.baseEmulation()
	}
	if e.Width > 0 {
		next.Width = e.Width
	}
	if e.Height > 0 {
		next.Height = e.Height
	}
	if e.DeviceScale > 0 {
		next.DeviceScale = e.DeviceScale
	}
	if e.Mobile != nil {
		next.Mobile = e.Mobile
	}
	if e.Media != "" {
		next.Media = e.Media
	}
	if e.ColorScheme != "" {
		next.ColorScheme = e.ColorScheme
	}
	metrics := func() error {
		if next.Width == 0 && next.Height == 0 && next.DeviceScale == 0 && next.Mobile == nil {
			_, err := cdproto.Call(ctx, t.sess, emulation.ClearDeviceMetricsOverride, cdproto.Empty{})
			return err
		}
		_, err := cdproto.Call(ctx, t.sess, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: int64(next.Width), Height: int64(next.Height), DeviceScaleFactor: next.DeviceScale, Mobile: next.Mobile != nil && *next.Mobile,
		})
		return err
	}
	media := func() error {
		p := emulation.SetEmulatedMediaParams{Media: next.Media, Features: []*emulation.MediaFeature{}}
		if next.ColorScheme != "" {
			p.Features = append(p.Features, &emulation.MediaFeature{Name: "prefers-color-scheme", Value: next.ColorScheme})
		}
		_, err := cdproto.Call(ctx, t.sess, emulation.SetEmulatedMedia, p)
		return err
	}
	if err := parallel(metrics, media); err != nil {
		return *cur, err
	}
	t.mu.Lock()
	*cur = next
	t.mu.Unlock()
	return next, nil
}

// emulateFocus makes the page behave as focused whatever the window does.
// Without it a page blur and refocus from the browser (another window
// activated, a busy machine's late activation) can leave focus in the main
// frame, and text inserted for a field in a frame lands in the main frame's
// last caret instead.
func emulateFocus(ctx context.Context, sess *cdp.Session) error {
	_, err := cdproto.Call(ctx, sess, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
	return err
}
