package observe

import (
	"context"
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

var shotSeq atomic.Int64

// vision writes a screenshot of the viewport to a PNG file, grounds the
// listed interactive elements to their boxes in it, and runs tesseract on it
// when installed.
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
	shooter, ok := p.(Screenshotter)
	if !ok {
		v.OCRNote = "this page cannot take screenshots"
		return v, nil
	}
	png, err := shooter.Screenshot(ctx)
	if err != nil {
		return nil, err
	}
	dir := opt.ScreenshotDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "tabwright")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "making the screenshot folder")
	}
	name := "shot-" + strconv.FormatInt(time.Now().UnixMilli(), 10) + "-" + strconv.FormatInt(shotSeq.Add(1), 10) + ".png"
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o600); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "writing the screenshot")
	}
	v.Screenshot = path
	v.OCR, v.OCRNote = ocr(ctx, path)
	return v, nil
}

// ocr runs tesseract on a PNG file; it says why when there is no text.
func ocr(ctx context.Context, path string) (text, note string) {
	bin, err := exec.LookPath("tesseract")
	if err != nil {
		return "", "no OCR: tesseract is not installed (apt-get install tesseract-ocr)"
	}
	ctx, cancel := context.WithTimeout(ctx, ocrTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, path, "stdout").Output()
	if err != nil {
		return "", "no OCR: tesseract failed: " + clip(err.Error(), 200)
	}
	text = strings.TrimSpace(string(out))
	if len([]rune(text)) > maxOCRChars {
		text = clip(text, maxOCRChars)
	}
	return text, ""
}
