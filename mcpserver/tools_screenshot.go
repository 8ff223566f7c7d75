package mcpserver

import (
	"context"
	"fmt"
	"math"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ---- browser_screenshot

type screenshotInput struct {
	TabHandle string `json:"tab_handle" tool:"required"`
	FullPage  bool   `json:"full_page" tool:"default=false"`
	// One element instead of the viewport: the one locator type of every
	// tool (selector, selector_type, name, nth, ref, frame, frame_id).
	locate.Locator
	Format        string   `json:"format" tool:"enum=png|jpeg,default=png"`
	Quality       *int     `json:"quality"`
	MaxLongSide   *int     `json:"max_long_side"`
	MaxMegapixels *float64 `json:"max_megapixels"`
	SavePath      string   `json:"save_path" tool:"nonempty"`
	Groundings    bool     `json:"groundings" tool:"default=false"`
	TimeoutMS     *int     `json:"timeout_ms" tool:"timeout"`
}

// listedAs: the bounds the handler applies, defaults the engine's.
func (*screenshotInput) listedAs() map[string]schema {
	return map[string]schema{
		"quality":        integer("", 1, 100, tabs.DefaultJPEGQuality),
		"max_long_side":  integer("", 16, 8000, tabs.DefaultMaxLongSide),
		"max_megapixels": {"type": "number", "minimum": 0.01, "maximum": 40.0, "default": float64(tabs.DefaultMaxPixels) / 1e6},
	}
}

// rules: the element's rules, and the options that go together.
func (in *screenshotInput) rules() error {
	if err := firstViolation(act.ValidateScope(in.Locator)); err != nil {
		return err
	}
	switch {
	case in.Quality != nil && in.Format != "jpeg":
		return errs.Input("quality", "only goes with format jpeg")
	case in.FullPage && in.element():
		return errs.Input("full_page", "give full_page or an element (selector or ref), not both")
	case !in.element() && (in.Frame != nil || in.FrameID != ""):
		return errs.Input("selector", "a screenshot shows an element of a frame, not the frame alone: add a selector (or ref) of the element")
	}
	return nil
}

// element reports whether the input names an element to shoot.
func (in *screenshotInput) element() bool { return in.Selector != "" || in.Ref != "" }

// screenshotResult is the structured side; the image itself is content.
type screenshotResult struct {
	MIME       string              `json:"mime"`
	Width      int                 `json:"width"`
	Height     int                 `json:"height"`
	Bytes      int                 `json:"bytes"`
	Scale      float64             `json:"scale"`
	DPR        float64             `json:"device_scale"`
	Region     [4]float64          `json:"region"`
	Saved      string              `json:"saved,omitempty"`
	Groundings []observe.Grounding `json:"groundings,omitempty"`
	Cut        bool                `json:"groundings_truncated,omitempty"`
	Loading    *tabs.Loading       `json:"loading,omitempty"` // the page had not finished loading
}

const maxGroundings = 300

func (s *server) screenshotTool() tool {
	return defineTool("browser_screenshot", `Screenshot a claimed tab (image content, png or jpeg at quality): viewport, full_page, or a locator's element, scaled to fit max_long_side and max_megapixels; returns size and scale (image/CSS px). save_path also writes it in --output-dir; groundings: interactive elements' [x,y,w,h] in image px.
Errors: see browser_observe.`, s.runScreenshot).annotate(&mcp.ToolAnnotations{ReadOnlyHint: true})
}

func (s *server) runScreenshot(ctx context.Context, owner string, in *screenshotInput) (any, string, error) {
	shot := tabs.Shot{Format: in.Format, Quality: orDefault(in.Quality, 0), FullPage: in.FullPage, MaxLongSide: orDefault(in.MaxLongSide, 0)}
	if in.MaxMegapixels != nil {
		shot.MaxPixels = int(math.Round(*in.MaxMegapixels * 1e6))
	}
	var img *tabs.Image
	var ground []observe.Grounding
	var cut bool
	err := s.onTab(ctx, owner, in.TabHandle, in.TimeoutMS, func(ctx context.Context, t *tabs.Tab) (err error) {
		if in.element() {
			box, _, err := locate.Box(ctx, t, in.Locator)
			if err != nil {
				return err
			}
			shot.Clip = &box
		}
		if img, err = t.Capture(ctx, shot); err != nil {
			return err
		}
		if in.Groundings {
			ground, cut, err = observe.Ground(ctx, t, maxGroundings)
		}
		return err
	})
	if err != nil {
		return nil, "", err
	}
	out := screenshotResult{MIME: img.MIME, Width: img.Width, Height: img.Height, Bytes: len(img.Data), Scale: round3(img.Scale), DPR: img.DPR,
		Region: [4]float64{img.Region.X, img.Region.Y, img.Region.W, img.Region.H}, Cut: cut, Loading: img.Loading}
	if in.Groundings {
		out.Groundings = inImage(ground, img)
	}
	if in.SavePath != "" {
		saved, err := s.writeOutput(ctx, "save_path", in.SavePath, img.Data, 0o644)
		if err != nil {
			return nil, "", err
		}
		out.Saved = saved
	}
	text := fmt.Sprintf("%s %dx%d (%d bytes, %.3g image px per CSS px) of CSS region %.0f,%.0f %.0fx%.0f", img.MIME, img.Width, img.Height, len(img.Data), out.Scale, img.Region.X, img.Region.Y, img.Region.W, img.Region.H)
	if out.Saved != "" {
		text += "\nsaved to " + out.Saved
	}
	if img.Loading != nil {
		text += "\n" + img.Loading.String()
	}
	for _, g := range out.Groundings {
		text += fmt.Sprintf("\n%s %s %q [%.0f,%.0f,%.0f,%.0f]", g.Ref, g.Role, g.Label, g.Box[0], g.Box[1], g.Box[2], g.Box[3])
	}
	return withContent{result: out, extra: []mcp.Content{&mcp.ImageContent{Data: img.Data, MIMEType: img.MIME}}}, text, nil
}

// inImage turns viewport CSS boxes into boxes in the image's pixels and
// keeps those that show in it, clipped to it.
func inImage(list []observe.Grounding, img *tabs.Image) []observe.Grounding {
	out := []observe.Grounding{}
	for _, g := range list {
		x0 := (g.Box[0] + img.Viewport.X - img.Region.X) * img.Scale
		y0 := (g.Box[1] + img.Viewport.Y - img.Region.Y) * img.Scale
		x1, y1 := x0+g.Box[2]*img.Scale, y0+g.Box[3]*img.Scale
		x0, y0 = math.Max(0, x0), math.Max(0, y0)
		x1, y1 = math.Min(float64(img.Width), x1), math.Min(float64(img.Height), y1)
		if x1-x0 < 1 || y1-y0 < 1 {
			continue
		}
		g.Box = [4]float64{math.Round(x0), math.Round(y0), math.Round(x1 - x0), math.Round(y1 - y0)}
		out = append(out, g)
	}
	return out
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
