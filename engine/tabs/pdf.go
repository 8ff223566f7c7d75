package tabs

import (
	"context"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// PDF says how to print a page.
type PDF struct {
	Landscape       bool
	PrintBackground bool
	Scale           float64 // 0.1..2; 0 means 1
	PaperWidth      float64 // inches; 0 means 8.5 (letter)
	PaperHeight     float64 // inches; 0 means 11
	PageRanges      string  // e.g. "1-3, 5"; empty: every page
}

// PrintPDF prints the tab's page as Chromium prints it for the print media
// type. Only a headless browser prints through DevTools.
func (t *Tab) PrintPDF(ctx context.Context, p PDF) ([]byte, error) {
	res, err := cdproto.Call(ctx, t.sess, page.PrintToPDF, page.PrintToPDFParams{
		Landscape: ptr(p.Landscape), PrintBackground: ptr(p.PrintBackground), Scale: p.Scale,
		PaperWidth: p.PaperWidth, PaperHeight: p.PaperHeight, PageRanges: p.PageRanges,
	})
	if err != nil {
		var pe *cdp.ProtocolError
		if asProtocol(err, &pe) {
			msg := strings.ToLower(pe.Message)
			switch {
			case strings.Contains(msg, "not implemented") || strings.Contains(msg, "not supported"):
				return nil, errs.New(errs.Unsupported, "this browser does not print to PDF through DevTools: %s", pe.Message).
					WithHint("use a tab of the managed headless browser").WithFact(FactNoPrint)
			case strings.Contains(msg, "page range"):
				return nil, errs.Input("page_ranges", "%s", pe.Message).WithHint("ranges look like 1-3, 5; pages count from 1")
			}
		}
		return nil, err
	}
	return res.Data, nil
}
