package tabs

import (
	"context"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// Screenshot captures the tab's viewport as PNG bytes (Page.captureScreenshot,
// one round trip). Run it in the tab's queue (Do) like any other command.
func (t *Tab) Screenshot(ctx context.Context) ([]byte, error) {
	res, err := cdproto.Call(ctx, t.sess, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}
