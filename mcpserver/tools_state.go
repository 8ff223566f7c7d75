package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// Bounds that the state tools' schemas list and their checks apply.
const (
	minPDFScale, maxPDFScale       = 0.1, 2.0
	maxViewportSide                = 10000 // CSS px; 0 keeps the current size
	minDeviceScale, maxDeviceScale = 0.5, 4.0
)

// ---- browser_pdf, browser_emulate, browser_storage_state

type pdfInput struct {
	TabHandle       string   `json:"tab_handle"`
	Path            string   `json:"path"`
	Landscape       bool     `json:"landscape"`
	PrintBackground bool     `json:"print_background"`
	Scale           *float64 `json:"scale"`
	Paper           string   `json:"paper"`
	PageRanges      string   `json:"page_ranges"`
	TimeoutMS       *int     `json:"timeout_ms"`
}

// papers are paper sizes in inches.
var papers = map[string][2]float64{"letter": {8.5, 11}, "legal": {8.5, 14}, "a4": {8.27, 11.69}, "a3": {11.69, 16.54}}

func (s *server) pdfTool() tool {
	return tool{
		name: "browser_pdf",
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: `Print a claimed tab's page to a PDF file (print media; the managed headless browser) and return its path and size; options landscape, print_background, scale, paper, page_ranges. Default path: a new file in the output folder (--output-dir).
Errors: unsupported (this browser cannot print), invalid_input, invalid_handle, timeout.`,
				InputSchema: object([]string{"tab_handle"}, map[string]schema{
					"tab_handle":       tabHandleField,
					"path":             str("Path of the PDF file to write, inside the output folder (--output-dir; relative paths are taken from it)."),
					"landscape":        boolean("", false),
					"print_background": boolean("", false),
					"scale":            schema{"type": "number", "minimum": minPDFScale, "maximum": maxPDFScale, "default": 1},
					"paper":            enum("", "letter", "letter", "legal", "a4", "a3"),
					"page_ranges":      str("e.g. 1-3, 5"),
					"timeout_ms":       timeoutField(),
				}),
			}
		},
		run: s.runPDF,
	}
}

func (s *server) runPDF(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
	var in pdfInput
	if err := decode(args, &in); err != nil {
		return nil, "", err
	}
	if err := firstErr(required("tab_handle", in.TabHandle), between("timeout_ms", in.TimeoutMS, minTimeoutMS(), maxTimeoutMS())); err != nil {
		return nil, "", err
	}
	paper, ok := papers[in.Paper]
	if in.Paper == "" {
		paper, ok = papers["letter"], true
	}
	switch {
	case !ok:
		return nil, "", errs.Input("paper", "must be letter, legal, a4 or a3; got %q", in.Paper)
	case in.Scale != nil && (*in.Scale < minPDFScale || *in.Scale > maxPDFScale):
		return nil, "", errs.Input("scale", "must be between %g and %g; got %g", minPDFScale, maxPDFScale, *in.Scale)
	}
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
	TabHandle   string   `json:"tab_handle"`
	Width       *int     `json:"width"`
	Height      *int     `json:"height"`
	DeviceScale *float64 `json:"device_scale"`
	Mobile      *bool    `json:"mobile"`
	Media       string   `json:"media"`
	ColorScheme string   `json:"color_scheme"`
	Reset       bool     `json:"reset"`
	TimeoutMS   *int     `json:"timeout_ms"`
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
	return tool{
		name: "browser_emulate",
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: `Make a claimed tab emulate a viewport of width x height CSS px, a device_scale (device px per CSS px), mobile, a media type or a color_scheme, until released; fields not given (or 0) keep what was set, reset drops every override first. Returns what is in force and what the page now reports.
Errors: invalid_input, invalid_handle, timeout.`,
				InputSchema: object([]string{"tab_handle"}, map[string]schema{
					"tab_handle":   tabHandleField,
					"width":        integer("", 0, maxViewportSide, 0),
					"height":       integer("", 0, maxViewportSide, 0),
					"device_scale": schema{"type": "number", "minimum": minDeviceScale, "maximum": maxDeviceScale},
					"mobile":       boolean("", false),
					"media":        enum("", "", "screen", "print"),
					"color_scheme": enum("", "", "light", "dark", "no-preference"),
					"reset":        boolean("", false),
					"timeout_ms":   timeoutField(),
				}),
			}
		},
		run: s.runEmulate,
	}
}

func (s *server) runEmulate(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
	var in emulateInput
	if err := decode(args, &in); err != nil {
		return nil, "", err
	}
	if err := emulateCheck(in); err != nil {
		return nil, "", err
	}
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

func emulateCheck(in emulateInput) error {
	if err := firstErr(required("tab_handle", in.TabHandle), between("width", in.Width, 0, maxViewportSide), between("height", in.Height, 0, maxViewportSide),
		between("timeout_ms", in.TimeoutMS, minTimeoutMS(), maxTimeoutMS())); err != nil {
		return err
	}
	switch {
	case in.Width != nil && *in.Width > 0 && *in.Width < 100:
		return errs.Input("width", "at least 100 CSS px (0 keeps the current); got %d", *in.Width)
	case in.Height != nil && *in.Height > 0 && *in.Height < 100:
		return errs.Input("height", "at least 100 CSS px (0 keeps the current); got %d", *in.Height)
	case in.DeviceScale != nil && (*in.DeviceScale < minDeviceScale || *in.DeviceScale > maxDeviceScale):
		return errs.Input("device_scale", "must be between %g and %g; got %g", minDeviceScale, maxDeviceScale, *in.DeviceScale)
	case in.Media != "" && in.Media != "screen" && in.Media != "print":
		return errs.Input("media", "must be screen or print; got %q", in.Media)
	case in.ColorScheme != "" && in.ColorScheme != "light" && in.ColorScheme != "dark" && in.ColorScheme != "no-preference":
		return errs.Input("color_scheme", "must be light, dark or no-preference; got %q", in.ColorScheme)
	case !in.Reset && in.Width == nil && in.Height == nil && in.DeviceScale == nil && in.Mobile == nil && in.Media == "" && in.ColorScheme == "":
		return errs.Input("width", "nothing to emulate").WithHint("give width/height, device_scale, mobile, media or color_scheme, or reset")
	}
	return nil
}

type storageInput struct {
	TabHandle string `json:"tab_handle"`
	Action    string `json:"action"`
	Path      string `json:"path"`
	TimeoutMS *int   `json:"timeout_ms"`
}

const maxStateFile = 16 << 20

func (s *server) storageStateTool() tool {
	return tool{
		name: "browser_storage_state",
		def: func() *mcp.Tool {
			return &mcp.Tool{
				Description: `Save or restore the managed browser's sign-in state through a file (Playwright's storage state format): export writes every cookie and the localStorage of the tab's origin to path; import sets the file's cookies and, for the origin the tab shows, its localStorage (other origins are listed as skipped). Values stay in the file, not in the reply.
Errors: unsupported (not the managed browser), invalid_input, invalid_handle, timeout.`,
				InputSchema: object([]string{"tab_handle", "action", "path"}, map[string]schema{
					"tab_handle": tabHandleField,
					"action":     enum("", "", "export", "import"),
					"path":       str("Path of the state file, inside the output folder (--output-dir; relative paths are taken from it)."),
					"timeout_ms": timeoutField(),
				}),
			}
		},
		run: s.runStorageState,
	}
}

func (s *server) runStorageState(ctx context.Context, owner string, args json.RawMessage) (any, string, error) {
	var in storageInput
	if err := decode(args, &in); err != nil {
		return nil, "", err
	}
	if err := firstErr(required("tab_handle", in.TabHandle), required("action", in.Action), oneOf("action", in.Action, "export", "import"),
		required("path", in.Path), between("timeout_ms", in.TimeoutMS, minTimeoutMS(), maxTimeoutMS())); err != nil {
		return nil, "", err
	}
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
