package tabs

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg" // DecodeConfig reads the sizes of both formats
	_ "image/png"
	"math"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/tabwright/tabwright/engine/errs"
)

// Default bounds of a screenshot meant for a vision model: larger images
// are scaled down by the model's vendor anyway, after costing the bytes.
const (
	DefaultMaxLongSide = 1568
	DefaultMaxPixels   = 1_150_000
	DefaultJPEGQuality = 80
)

// Screenshot captures the tab's viewport as PNG bytes at device pixels (one
// round trip). Run it in the tab's queue (Do) like any other command.
func (t *Tab) Screenshot(ctx context.Context) ([]byte, error) {
	res, err := cdproto.Call(ctx, t.sess, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}

// Rect is a rectangle in CSS px.
type Rect struct {
	X, Y, W, H float64
}

// Shot says what to capture and how large the image may be.
type Shot struct {
	Format   string // "png" (default) or "jpeg"
	Quality  int    // JPEG quality 1..100; 0 means DefaultJPEGQuality
	FullPage bool   // the whole scrollable page instead of the viewport
	// Clip is a region in CSS px of the viewport (an element's box); it is
	// captured even where it reaches past the viewport.
	Clip        *Rect
	MaxLongSide int // longest side of the image in px; 0: DefaultMaxLongSide
	MaxPixels   int // width x height of the image; 0: DefaultMaxPixels
}

// Image is a capture and where its pixels lie on the page.
type Image struct {
	Data          []byte
	MIME          string
	Width, Height int      // the image's px
	Scale         float64  // image px per CSS px
	DPR           float64  // the page's device pixel ratio
	Region        Rect     // what was captured, CSS px of the document
	Viewport      Rect     // the viewport, CSS px of the document
	Loading       *Loading // the page had not finished loading
}

// Capture takes a screenshot sized to the shot's bounds: Chromium renders
// it at the scale that fits, so no image is decoded and resized here.
// Two round trips: the layout metrics (and device pixel ratio), the capture.
func (t *Tab) Capture(ctx context.Context, s Shot) (*Image, error) {
	loading := t.AwaitCommit(ctx)
	if loading != nil && !loading.Committed {
		// The blank document a navigation has not replaced yet never
		// paints: the capture would only wait out the deadline.
		return nil, errs.New(errs.Timeout, "nothing to capture yet: %s", loading).
			WithHint("retry once the page has loaded, or raise timeout_ms")
	}
	var lm page.GetLayoutMetricsResult
	var dpr float64
	err := parallel(
		func() (err error) {
			lm, err = cdproto.Call(ctx, t.sess, page.GetLayoutMetrics, cdproto.Empty{})
			return err
		},
		func() error { return t.Eval(ctx, "devicePixelRatio", &dpr) },
	)
	if err != nil {
		return nil, err
	}
	if dpr <= 0 {
		dpr = 1
	}
	img := &Image{DPR: dpr, MIME: "image/png", Loading: loading}
	if v := lm.CSSLayoutViewport; v != nil {
		img.Viewport = Rect{X: float64(v.PageX), Y: float64(v.PageY), W: float64(v.ClientWidth), H: float64(v.ClientHeight)}
	}
	content := img.Viewport
	if c := lm.CSSContentSize; c != nil {
		content = Rect{W: c.Width, H: c.Height}
	}
	switch {
	case s.Clip != nil:
		c := *s.Clip
		img.Region = intersect(Rect{X: c.X + img.Viewport.X, Y: c.Y + img.Viewport.Y, W: c.W, H: c.H}, content)
	case s.FullPage:
		img.Region = content
	default:
		img.Region = img.Viewport
	}
	if img.Region.W < 1 || img.Region.H < 1 {
		return nil, errs.New(errs.NotActionable, "nothing to capture: the region is %.0fx%.0f CSS px", img.Region.W, img.Region.H).
			WithHint("the element has no size on the page; pick a visible one")
	}
	params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, CaptureBeyondViewport: ptr(s.FullPage || s.Clip != nil)}
	if s.Format == "jpeg" {
		q := int64(s.Quality)
		if q == 0 {
			q = DefaultJPEGQuality
		}
		params.Format, params.Quality, img.MIME = page.CaptureScreenshotFormatJpeg, &q, "image/jpeg"
	}
	longSide, pixels := orInt(s.MaxLongSide, DefaultMaxLongSide), orInt(s.MaxPixels, DefaultMaxPixels)
	scale := fitScale(img.Region.W*dpr, img.Region.H*dpr, longSide, pixels)
	for attempt := 0; ; attempt++ {
		r := img.Region
		params.Clip = &page.Viewport{X: r.X, Y: r.Y, Width: r.W, Height: r.H, Scale: scale}
		res, err := cdproto.Call(ctx, t.sess, page.CaptureScreenshot, params)
		if err != nil {
			return nil, err
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(res.Data))
		if err != nil {
			return nil, errs.Wrap(errs.Internal, err, "reading the screenshot Chromium returned")
		}
		img.Data, img.Width, img.Height = res.Data, cfg.Width, cfg.Height
		// Chromium rounds the clip to device pixels; one more try at a
		// slightly smaller scale when that crossed a bound.
		over := math.Max(float64(max(cfg.Width, cfg.Height))/float64(longSide), math.Sqrt(float64(cfg.Width*cfg.Height)/float64(pixels)))
		if over <= 1 || attempt == 1 {
			break
		}
		scale = scale / over * 0.995
	}
	img.Scale = float64(img.Width) / img.Region.W
	return img, nil
}

// VisionShot is the viewport as a PNG in the default bounds (for the
// observation's vision section).
func (t *Tab) VisionShot(ctx context.Context) (data []byte, mime string, width, height int, scale float64, err error) {
	img, err := t.Capture(ctx, Shot{})
	if err != nil {
		return nil, "", 0, 0, 0, err
	}
	return img.Data, img.MIME, img.Width, img.Height, img.Scale, nil
}

// fitScale is the factor (at most 1: never larger than device pixels) that
// brings a w x h image within the longest side and the pixel count.
func fitScale(w, h float64, longSide, pixels int) float64 {
	s := 1.0
	if l := math.Max(w, h); l > float64(longSide) {
		s = float64(longSide) / l
	}
	if p := w * h * s * s; p > float64(pixels) {
		s *= math.Sqrt(float64(pixels) / p)
	}
	if s == 1 {
		return 1
	}
	return s * 0.999 // room for Chromium's rounding up
}

func intersect(a, b Rect) Rect {
	x0, y0 := math.Max(a.X, b.X), math.Max(a.Y, b.Y)
	x1, y1 := math.Min(a.X+a.W, b.X+b.W), math.Min(a.Y+a.H, b.Y+b.H)
	return Rect{X: x0, Y: y0, W: math.Max(0, x1-x0), H: math.Max(0, y1-y0)}
}

func orInt(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
