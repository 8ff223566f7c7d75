package tabs

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// longPage is 1000 CSS px wide content 6000 high, with a red 200x100 box
// far below the fold.
const longPage = `<!doctype html><title>Long</title><style>body{margin:0} #tall{width:1000px;height:6000px;background:#eee;position:relative}
#box{position:absolute;left:300px;top:4000px;width:200px;height:100px;background:#f00}</style><div id="tall"><div id="box"></div></div>`

func shotTab(t *testing.T) (*Tab, context.Context) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, longPage) }))
	t.Cleanup(srv.Close)
	m := newManager(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	opened, err := m.Open(ctx, OpenOptions{Owner: "s", URL: srv.URL, Active: true, Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	return opened.Tab, ctx
}

func within(t *testing.T, what string, img *Image, longSide, pixels int) {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if cfg.Width != img.Width || cfg.Height != img.Height || "image/"+format != img.MIME {
		t.Fatalf("%s: reported %dx%d %s, decodes as %dx%d %s", what, img.Width, img.Height, img.MIME, cfg.Width, cfg.Height, format)
	}
	if max(cfg.Width, cfg.Height) > longSide || cfg.Width*cfg.Height > pixels {
		t.Fatalf("%s: %dx%d is over %d px / %d pixels", what, cfg.Width, cfg.Height, longSide, pixels)
	}
}

func TestCaptureFitsVisionBounds(t *testing.T) {
	t.Parallel()
	tab, ctx := shotTab(t)
	vp, err := tab.Capture(ctx, Shot{})
	if err != nil {
		t.Fatal(err)
	}
	within(t, "viewport", vp, DefaultMaxLongSide, DefaultMaxPixels)

	// HiDPI: twice the device pixels, so the image is scaled down to fit.
	if _, err := tab.Emulate(ctx, Emulation{Width: 1280, Height: 800, DeviceScale: 2}); err != nil {
		t.Fatal(err)
	}
	hi, err := tab.Capture(ctx, Shot{})
	if err != nil {
		t.Fatal(err)
	}
	within(t, "hidpi viewport", hi, DefaultMaxLongSide, DefaultMaxPixels)
	if hi.DPR != 2 || hi.Viewport.W != 1280 || hi.Width < 1100 {
		t.Fatalf("hidpi: dpr %v, viewport %v, image %dx%d", hi.DPR, hi.Viewport, hi.Width, hi.Height)
	}
	if r := float64(hi.Width) / float64(hi.Height); r < 1.58 || r > 1.62 {
		t.Fatalf("hidpi aspect %dx%d", hi.Width, hi.Height)
	}

	full, err := tab.Capture(ctx, Shot{FullPage: true, Format: "jpeg", Quality: 50})
	if err != nil {
		t.Fatal(err)
	}
	within(t, "full page", full, DefaultMaxLongSide, DefaultMaxPixels)
	if full.Region.H != 6000 || full.Height < 1500 {
		t.Fatalf("full page: region %v, image %dx%d", full.Region, full.Width, full.Height)
	}

	// An element below the fold, at device pixels (200x100 CSS at 2x).
	if err := tab.Eval(ctx, "scrollTo(0, 3800), true", nil); err != nil {
		t.Fatal(err)
	}
	var box Rect
	if err := tab.Eval(ctx, "(() => { const r = document.getElementById('box').getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height}; })()", &box); err != nil {
		t.Fatal(err)
	}
	el, err := tab.Capture(ctx, Shot{Clip: &box})
	if err != nil {
		t.Fatal(err)
	}
	if el.Width != 400 || el.Height != 200 {
		t.Fatalf("element at 2x: %dx%d, region %v", el.Width, el.Height, el.Region)
	}
	dec, err := png.Decode(bytes.NewReader(el.Data))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []image.Point{{5, 5}, {200, 100}, {394, 194}} {
		if r, g, b, _ := dec.At(p.X, p.Y).RGBA(); r>>8 < 240 || g>>8 > 20 || b>>8 > 20 {
			t.Fatalf("pixel %v of the element shot is %d,%d,%d, not red", p, r>>8, g>>8, b>>8)
		}
	}
	small, err := tab.Capture(ctx, Shot{Clip: &box, MaxLongSide: 100})
	if err != nil {
		t.Fatal(err)
	}
	within(t, "element, 100 px", small, 100, DefaultMaxPixels)
}
