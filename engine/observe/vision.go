package observe

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
)

// Bounds of the vision section.
const (
	maxOCRChars = 4000
	ocrTimeout  = 20 * time.Second
)

// Capturer is a Page that takes viewport screenshots sized for vision
// models (*tabs.Tab is one): the image, its MIME type, size, and image px
// per CSS px.
type Capturer interface {
	VisionShot(ctx context.Context) (data []byte, mime string, width, height int, scale float64, err error)
}

// VisionImage describes the screenshot; Data is the image itself, which
// the MCP layer returns as image content rather than inside the JSON.
type VisionImage struct {
	MIME   string  `json:"mime"`
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Scale  float64 `json:"scale"` // image px per CSS px: multiply a grounding by it
	Data   []byte  `json:"-"`
}

var shotSeq atomic.Int64

// vision takes a screenshot of the viewport sized for vision models, writes
// it to a PNG file, grounds the listed interactive elements to their boxes
// in it, and runs tesseract on it when installed.
func vision(ctx context.Context, p Page, res *pageResult, opt Options) (*Vision, error) {
	v := &Vision{Groundings: map[string][4]int{}}
	if g := res.Groundings; g != nil {
		v.Viewport, v.Scroll = g.Viewport, g.Scroll
		for ref, box := range g.Boxes {
			v.Groundings[ref] = box
		}
	}
	if res.Truncated != nil && res.Truncated.Interactive != nil {
		v.Truncated = true // elements past the interactive bound are not grounded
	}
	var png []byte
	switch c := p.(type) {
	case Capturer:
		data, mime, w, h, scale, err := c.VisionShot(ctx)
		if err != nil {
			return nil, err
		}
		png = data
		v.Image = &VisionImage{MIME: mime, Width: w, Height: h, Scale: round3(scale), Data: data}
	case Screenshotter:
		var err error
		if png, err = c.Screenshot(ctx); err != nil {
			return nil, err
		}
	default:
		v.OCRNote = "this page cannot take screenshots"
		return v, nil
	}
	if opt.HideHost {
		v.OCR, v.OCRNote = ocrPrivate(ctx, png)
		return v, nil
	}
	path, err := writeShot(opt.ScreenshotDir, png)
	if err != nil {
		return nil, err
	}
	v.Screenshot = path
	v.OCR, v.OCRNote = ocr(ctx, path)
	return v, nil
}

// noOCRHere is the OCR note under HideHost: whatever the host lacks or
// failed at stays on the host.
const noOCRHere = "no OCR text here; read the image"

// ocrPrivate runs OCR on a copy of png in a folder of its own, removed
// before it returns.
func ocrPrivate(ctx context.Context, png []byte) (text, note string) {
	if bin, _ := OCRAvailable(); bin == "" {
		return "", noOCRHere
	}
	dir, err := os.MkdirTemp("", "tabwright-ocr-")
	if err != nil {
		return "", noOCRHere
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(path, png, 0o600); err != nil {
		return "", noOCRHere
	}
	if text, note = ocr(ctx, path); text == "" && strings.HasPrefix(note, "no OCR") {
		note = noOCRHere
	}
	return text, note
}

func writeShot(dir string, png []byte) (string, error) {
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "tabwright")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", errs.Wrap(errs.Internal, err, "making the screenshot folder")
	}
	name := "shot-" + strconv.FormatInt(time.Now().UnixMilli(), 10) + "-" + strconv.FormatInt(shotSeq.Add(1), 10) + ".png"
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o600); err != nil {
		return "", errs.Wrap(errs.Internal, err, "writing the screenshot")
	}
	return path, nil
}

// OCRAvailable says whether OCR text can be had, and if not, why.
func OCRAvailable() (bin string, note string) {
	bin, err := exec.LookPath("tesseract")
	if err != nil {
		return "", "tesseract is not installed (apt-get install tesseract-ocr)"
	}
	return bin, ""
}

// ocr runs tesseract on a PNG file; it says why when there is no text.
func ocr(ctx context.Context, path string) (text, note string) {
	bin, why := OCRAvailable()
	if bin == "" {
		return "", "no OCR: " + why
	}
	ctx, cancel := context.WithTimeout(ctx, ocrTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, path, "stdout").Output()
	if err != nil {
		return "", "no OCR: tesseract failed: " + clip(err.Error(), 200)
	}
	text = strings.TrimSpace(string(out))
	if text == "" {
		return "", "OCR found no text"
	}
	if len([]rune(text)) > maxOCRChars {
		text = clip(text, maxOCRChars)
	}
	return text, ""
}

// Grounding is one interactive element and its box, [x, y, width, height]
// in CSS px of the viewport (negative or past it when out of view).
type Grounding struct {
	Ref   string     `json:"ref"`
	Role  string     `json:"role"`
	Label string     `json:"label,omitempty"`
	Box   [4]float64 `json:"box"`
}

// Ground lists the page's interactive elements as an observation does
// (the same refs, at most maxInteractive) with their boxes, in view or not.
// It reports whether the list was cut. Two round trips.
func Ground(ctx context.Context, p Page, maxInteractive int) ([]Grounding, bool, error) {
	opt, err := Options{MaxInteractive: maxInteractive}.normalise()
	if err != nil {
		return nil, false, err
	}
	set, _ := ParseInclude([]string{SectionInteractive})
	var res *pageResult
	if err := evalPage(ctx, p, pageCall(opt, set, false), &res); err != nil {
		return nil, false, err
	}
	if res == nil {
		return nil, false, errs.New(errs.ProtocolError, "the page returned no elements")
	}
	refs := make([]string, 0, len(res.Interactive))
	for _, e := range res.Interactive {
		refs = append(refs, e.Ref)
	}
	list, _ := json.Marshal(refs)
	var boxes map[string][4]float64
	call := "(() => { const tw = globalThis.__tabwright; const out = {}; for (const r of " + string(list) + ") {" +
		" const el = tw.element(r); if (!el) continue; const b = el.getBoundingClientRect();" +
		" if (b.width > 0 && b.height > 0) out[r] = [b.x, b.y, b.width, b.height]; } return out; })()"
	if err := p.Eval(ctx, call, &boxes); err != nil {
		return nil, false, err
	}
	scopeRefs(p, res) // after the boxes: the page knows its own refs only
	out := make([]Grounding, 0, len(boxes))
	for i, e := range res.Interactive {
		if b, ok := boxes[refs[i]]; ok {
			out = append(out, Grounding{Ref: e.Ref, Role: e.Role, Label: e.Label, Box: b})
		}
	}
	return out, res.Truncated != nil && res.Truncated.Interactive != nil, nil
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
