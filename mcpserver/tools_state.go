package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ---- browser_pdf, browser_emulate, browser_storage_state

type pdfInput struct {
	TabHandle       string   `json:"tab_handle" tool:"required"`
	Path            string   `json:"path" tool:"nonempty" doc:"Path of the PDF file to write, inside the output folder (--output-dir; relative paths are taken from it)."`
	Landscape       bool     `json:"landscape" tool:"default=false"`
	PrintBackground bool     `json:"print_background" tool:"default=false"`
	Scale           *float64 `json:"scale" tool:"min=0.1,max=2,default=1"`
	Paper           string   `json:"paper" tool:"enum=letter|legal|a4|a3,default=letter"`
	PageRanges      string   `json:"page_ranges" tool:"nonempty" doc:"e.g. 1-3, 5"`
	TimeoutMS       *int     `json:"timeout_ms" tool:"timeout"`
}

// papers are paper sizes in inches.
var papers = map[string][2]float64{"letter": {8.5, 11}, "legal": {8.5, 14}, "a4": {8.27, 11.69}, "a3": {11.69, 16.54}}

func (s *server) pdfTool() tool {
	return defineTool("browser_pdf", `Print a claimed tab's page to a PDF file (print media; the managed headless browser) and return its path and size; options landscape, print_background, scale, paper, page_ranges. Default path: a new file in the output folder (--output-dir).
Errors: unsupported (this browser cannot print), invalid_input, invalid_handle, timeout.`, s.runPDF)
}

func (s *server) runPDF(ctx context.Context, owner string, in *pdfInput) (any, string, error) {
	paper := papers[in.Paper]
	p := tabs.PDF{Landscape: in.Landscape, PrintBackground: in.PrintBackground, PaperWidth: paper[0], PaperHeight: paper[1], PageRanges: in.PageRanges}
	if in.Scale != nil {
		p.Scale = *in.Scale
	}
	var data []byte
	err := s.onTab(ctx, owner, in.TabHandle, in.TimeoutMS, func(ctx context.Context, t *tabs.Tab) (err error) {
		data, err = t.PrintPDF(ctx, p)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	path := in.Path
	if path == "" {
		path = "page-" + strconv.FormatInt(time.Now().UnixMilli(), 10) + ".pdf"
	}
	path, err = s.writeOutput(ctx, "path", path, data, 0o644)
	if err != nil {
		return nil, "", err
	}
	return map[string]any{"path": path, "bytes": len(data)}, fmt.Sprintf("PDF written to %s (%d bytes)", path, len(data)), nil
}

type emulateInput struct {
	TabHandle   string   `json:"tab_handle" tool:"required"`
	Width       *int     `json:"width" tool:"min=0,max=10000,default=0"` // CSS px; 0 keeps the current size
	Height      *int     `json:"height" tool:"min=0,max=10000,default=0"`
	DeviceScale *float64 `json:"device_scale" tool:"min=0.5,max=4"`
	Mobile      *bool    `json:"mobile" tool:"default=false"`
	Media       string   `json:"media" tool:"enum=screen|print"`
	ColorScheme string   `json:"color_scheme" tool:"enum=light|dark|no-preference"`
	Reset       bool     `json:"reset" tool:"default=false"`
	TimeoutMS   *int     `json:"timeout_ms" tool:"timeout"`
}

// minViewportSide is the smallest width or height a viewport may be given.
const minViewportSide = 100

// rules: a side given is at least minViewportSide, and something is asked.
func (in *emulateInput) rules() error {
	for _, side := range []struct {
		name string
		px   *int
	}{{"width", in.Width}, {"height", in.Height}} {
		if side.px != nil && *side.px > 0 && *side.px < minViewportSide {
			return errs.Input(side.name, "at least %d CSS px (0 keeps the current); got %d", minViewportSide, *side.px)
		}
	}
	if !in.Reset && in.Width == nil && in.Height == nil && in.DeviceScale == nil && in.Mobile == nil && in.Media == "" && in.ColorScheme == "" {
		return errs.Input("width", "nothing to emulate").WithHint("give width/height, device_scale, mobile, media or color_scheme, or reset")
	}
	return nil
}

// pageView is what the page itself reports after an emulation.
type pageView struct {
	Width       int     `json:"width"`
	Height      int     `json:"height"`
	DeviceScale float64 `json:"device_scale"`
	Dark        bool    `json:"prefers_dark"`
	Print       bool    `json:"print_media"`
}

func (s *server) emulateTool() tool {
	return defineTool("browser_emulate", `Make a claimed tab emulate a viewport of width x height CSS px, a device_scale (device px per CSS px), mobile, a media type or a color_scheme, until released; fields not given (or 0) keep what was set, reset drops every override first. Returns what is in force and what the page now reports.
Errors: invalid_input, invalid_handle, timeout.`, s.runEmulate)
}

func (s *server) runEmulate(ctx context.Context, owner string, in *emulateInput) (any, string, error) {
	e := tabs.Emulation{Width: orDefault(in.Width, 0), Height: orDefault(in.Height, 0), Mobile: in.Mobile, Media: in.Media, ColorScheme: in.ColorScheme, Reset: in.Reset}
	if in.DeviceScale != nil {
		e.DeviceScale = *in.DeviceScale
	}
	var now tabs.Emulation
	var view pageView
	err := s.onTab(ctx, owner, in.TabHandle, in.TimeoutMS, func(ctx context.Context, t *tabs.Tab) (err error) {
		if now, err = t.Emulate(ctx, e); err != nil {
			return err
		}
		// Read two frames later, when the page has laid out at the new size.
		return t.Eval(ctx, `new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done({width: innerWidth, height: innerHeight, device_scale: devicePixelRatio,
  prefers_dark: matchMedia('(prefers-color-scheme: dark)').matches, print_media: matchMedia('print').matches}))))`, &view)
	})
	if err != nil {
		return nil, "", err
	}
	text := fmt.Sprintf("the page sees %dx%d CSS px at %gx, dark %v, print %v", view.Width, view.Height, view.DeviceScale, view.Dark, view.Print)
	return map[string]any{"emulation": now, "page": view}, text, nil
}

type storageInput struct {
	TabHandle string `json:"tab_handle" tool:"required"`
	Action    string `json:"action" tool:"required,enum=export|import"`
	Path      string `json:"path" tool:"required,nonempty" doc:"Path of the state file, inside the output folder (--output-dir; relative paths are taken from it)."`
	TimeoutMS *int   `json:"timeout_ms" tool:"timeout"`
}

const maxStateFile = 16 << 20

func (s *server) storageStateTool() tool {
	return defineTool("browser_storage_state", `Save or restore the managed browser's sign-in state through a file (Playwright's storage state format): export writes every cookie and the localStorage of the tab's origin to path; import sets the file's cookies and, for the origin the tab shows, its localStorage (other origins are listed as skipped). Values stay in the file, not in the reply.
Errors: unsupported (not the managed browser), invalid_input, invalid_handle, timeout.`, s.runStorageState)
}

func (s *server) runStorageState(ctx context.Context, owner string, in *storageInput) (any, string, error) {
	var state tabs.StorageState
	if in.Action == "import" {
		raw, err := s.readOutput(ctx, "path", in.Path, maxStateFile)
		if err != nil {
			return nil, "", err
		}
		if err := json.Unmarshal(raw, &state); err != nil {
			// The decoder's words quote the file's bytes: say where, not what.
			return nil, "", errs.Input("path", "%s is not a storage state file (%s)", in.Path, jsonWhere(err)).WithHint("export one first with action export")
		}
	}
	var out any
	var text string
	err := s.onTab(ctx, owner, in.TabHandle, in.TimeoutMS, func(ctx context.Context, t *tabs.Tab) error {
		if in.Action == "import" {
			imp, err := t.ImportStorage(ctx, &state)
			if err != nil {
				return err
			}
			out, text = imp, fmt.Sprintf("imported %d cookies and %d localStorage items from %s", imp.Cookies, imp.Items, in.Path)
			return nil
		}
		st, err := t.ExportStorage(ctx)
		if err != nil {
			return err
		}
		raw, _ := json.MarshalIndent(st, "", "  ")
		saved, err := s.writeOutput(ctx, "path", in.Path, raw, 0o600)
		if err != nil {
			return err
		}
		in.Path = saved
		items := 0
		for _, o := range st.Origins {
			items += len(o.LocalStorage)
		}
		out = map[string]any{"path": in.Path, "cookies": len(st.Cookies), "origins": len(st.Origins), "local_storage_items": items}
		text = fmt.Sprintf("exported %d cookies and %d localStorage items to %s", len(st.Cookies), items, in.Path)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return out, text, nil
}

// jsonWhere says where a file failed to decode, quoting none of it.
func jsonWhere(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("not JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("field %q has the wrong type", typ.Field)
	}
	return "not of that shape"
}
