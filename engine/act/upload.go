package act

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// upload sets local files on an <input type=file>, as choosing them in the
// file dialog would (input and change events fire).
func upload(ctx context.Context, t *tabs.Tab, s *Step, r *Result) error {
	files := make([]string, 0, len(s.Files))
	for i, f := range s.Files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return errs.Input(fmt.Sprintf("files[%d]", i), "%v", err)
		}
		st, err := os.Stat(abs)
		if err != nil || st.IsDir() {
			return errs.Input(fmt.Sprintf("files[%d]", i), "%s is not a readable file", abs).
				WithHint("paths are on the machine that runs tabwright")
		}
		files = append(files, abs)
	}
	target, err := resolve(ctx, t, s.Locator, locate.Need{Enabled: true}, r)
	if err != nil {
		return err
	}
	f := target.Frame
	obj, err := t.EvalObjectIn(ctx, f, injected.Actions().Installing(injected.Call(injected.FnByHandle, target.Handle)))
	if err != nil {
		return err
	}
	defer t.ReleaseObject(ctx, f, obj)
	sess := t.Session()
	if f != nil {
		sess = f.Session()
	}
	var isFile bool
	if err := t.CallOnIn(ctx, f, obj, "function(){ return this.localName === 'input' && this.type === 'file' }", &isFile); err != nil {
		return err
	}
	if !isFile {
		return errs.New(errs.NotActionable, "%s is not an <input type=file>", s.Locator).
			WithHint("find the file input itself (it may be hidden behind a styled button: target it with css)")
	}
	if _, err := cdproto.Call(ctx, sess, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: files, ObjectID: obj}); err != nil {
		return err
	}
	var count int
	if err := t.CallOnIn(ctx, f, obj, "function(){ return this.files.length }", &count); err != nil {
		return err
	}
	if count != len(files) {
		return errs.New(errs.ValueMismatch, "the input holds %d files after the upload, expected %d", count, len(files)).
			WithHint("an input without the multiple attribute takes one file")
	}
	r.Verified = fmt.Sprintf("the input holds %d file(s)", count)
	return nil
}
