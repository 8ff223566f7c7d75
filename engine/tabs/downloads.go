package tabs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// downloads saves the managed browser's downloads in one folder and reports
// each finished one in the log of the tab that started it.
type downloads struct {
	mu      sync.Mutex
	dir     string
	temp    bool // made by us: removed at Close
	started map[string]*download
}

type download struct {
	tab  *Tab
	url  string
	name string
}

// startDownloads points conn's browser at the downloads folder (made on
// first use) and follows its download events.
func (m *Manager) startDownloads(ctx context.Context, conn *cdp.Conn) error {
	d := &m.dl
	d.mu.Lock()
	if d.dir == "" {
		if dir := m.opt.DownloadsDir; dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				d.mu.Unlock()
				return errs.Input("--downloads-dir", "cannot make %s: %v", dir, err)
			}
			d.dir = dir
		} else {
			dir, err := os.MkdirTemp("", "tabwright-downloads-")
			if err != nil {
				d.mu.Unlock()
				return errs.Wrap(errs.Internal, err, "making the downloads folder")
			}
			d.dir, d.temp = dir, true
		}
		d.started = map[string]*download{}
	}
	dir := d.dir
	d.mu.Unlock()
	conn.Browser().Listen(func(method string, params jsonv2.Value) { m.onDownload(method, params) })
	_, err := cdproto.Call(ctx, conn.Browser(), browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: ptr(true),
	})
	return err
}

// DownloadsDir is the folder downloads are saved in ("" until the managed
// browser started).
func (m *Manager) DownloadsDir() string {
	m.dl.mu.Lock()
	defer m.dl.mu.Unlock()
	return m.dl.dir
}

func (m *Manager) onDownload(method string, params jsonv2.Value) {
	d := &m.dl
	switch method {
	case "Browser.downloadWillBegin":
		var ev browser.EventDownloadWillBegin
		if jsonv2.Unmarshal(params, &ev) != nil {
			return
		}
		t := m.tabOfFrame(ev.FrameID)
		d.mu.Lock()
		d.started[ev.GUID] = &download{tab: t, url: ev.URL, name: ev.SuggestedFilename}
		d.mu.Unlock()
	case "Browser.downloadProgress":
		var ev browser.EventDownloadProgress
		if jsonv2.Unmarshal(params, &ev) != nil || ev.State == browser.DownloadProgressStateInProgress {
			return
		}
		d.mu.Lock()
		dl := d.started[ev.GUID]
		delete(d.started, ev.GUID)
		dir := d.dir
		d.mu.Unlock()
		if dl == nil || dl.tab == nil {
			return
		}
		// Off the connection's reader: the rename touches the disk.
		go dl.finish(dir, ev.GUID, ev.State)
	}
}

// finish names the file after the suggested name and logs it.
func (dl *download) finish(dir, guid string, state browser.DownloadProgressState) {
	e := LogEntry{Kind: LogDownload, URL: dl.url, Text: dl.name}
	if state != browser.DownloadProgressStateCompleted {
		e.Error = "download " + string(state)
		dl.tab.logs.locked(e)
		return
	}
	from := filepath.Join(dir, guid)
	to := freeName(dir, dl.name)
	if err := os.Rename(from, to); err != nil {
		to = from // keep the browser's name rather than lose the file
	}
	info, err := os.Stat(to)
	if err != nil {
		e.Error = "the file is gone: " + err.Error()
	} else {
		e.Path, e.Bytes = to, info.Size()
	}
	dl.tab.logs.locked(e)
}

// freeName is dir/name, or dir/name (2).ext and so on when taken.
func freeName(dir, name string) string {
	name = filepath.Base(strings.TrimSpace(name))
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = "download"
	}
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	p := filepath.Join(dir, name)
	for i := 2; ; i++ {
		if _, err := os.Lstat(p); os.IsNotExist(err) {
			return p
		}
		p = filepath.Join(dir, fmt.Sprintf("%s (%d)%s", stem, i, ext))
	}
}

// tabOfFrame is the claimed tab that holds the frame.
func (m *Manager) tabOfFrame(id cdproto.FrameID) *Tab {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.handles {
		if cdproto.FrameID(t.TargetID) == id {
			return t
		}
		if _, ok := t.mainWorlds.get(id); ok {
			return t
		}
	}
	return nil
}

// closeDownloads removes a downloads folder we made.
func (m *Manager) closeDownloads() {
	m.dl.mu.Lock()
	defer m.dl.mu.Unlock()
	if m.dl.temp {
		os.RemoveAll(m.dl.dir)
	}
}
