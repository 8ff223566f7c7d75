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

// Default bounds of downloads: one file, and all the files of a server's
// life together.
const (
	DefaultMaxDownloadBytes  = 100 << 20
	DefaultMaxDownloadsBytes = 500 << 20
)

// downloads saves the managed browser's downloads in one folder and reports
// each finished one in the log of the tab that started it. A download that
// grows past its bound, or past what the folder may still take, is
// cancelled and its part removed, and the log says so.
type downloads struct {
	mu      sync.Mutex
	dir     string
	temp    bool // made by us: removed at Close
	started map[string]*download
	browser *cdp.Session // where cancelDownload goes
	perFile int64
	total   int64
	kept    int64 // bytes of the finished downloads in the folder
}

type download struct {
	tab     *Tab
	url     string
	name    string
	refused string // why it was cancelled, once it was
	size    int64  // bytes it has, or says it will have
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
		d.perFile, d.total = orDefault(m.opt.MaxDownloadBytes, DefaultMaxDownloadBytes), orDefault(m.opt.MaxDownloadsBytes, DefaultMaxDownloadsBytes)
	}
	d.browser = conn.Browser()
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
		if jsonv2.Unmarshal(params, &ev) != nil {
			return
		}
		if ev.State == browser.DownloadProgressStateInProgress {
			d.bound(ev)
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
		go dl.finish(dir, ev.GUID, ev.State, d.admit)
	}
}

// bound cancels a download in progress that is, or says it will be, past
// its bound or past what the folder may still take.
func (d *downloads) bound(ev browser.EventDownloadProgress) {
	size := max(int64(ev.ReceivedBytes), int64(ev.TotalBytes))
	d.mu.Lock()
	dl := d.started[ev.GUID]
	why := ""
	if dl != nil && dl.refused == "" {
		dl.size = size
		why = d.over(size, d.inFlight(dl))
		dl.refused = why
	}
	sess := d.browser
	d.mu.Unlock()
	if why != "" && sess != nil {
		sess.Post(context.Background(), browser.CommandCancelDownload, browser.CancelDownloadParams{GUID: ev.GUID})
	}
}

// admit counts a finished file of size bytes into the folder, or says
// why it may not stay (it finished before its cancel arrived).
func (d *downloads) admit(size int64) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	why := d.over(size, 0)
	if why == "" {
		d.kept += size
	}
	return why
}

// inFlight is what the downloads under way other than dl hold. Called
// with d.mu held.
func (d *downloads) inFlight(dl *download) int64 {
	var n int64
	for _, o := range d.started {
		if o != dl && o.refused == "" {
			n += o.size
		}
	}
	return n
}

// over says why a download of size bytes may not be kept beside others
// bytes of downloads under way, or "". Called with d.mu held.
func (d *downloads) over(size, others int64) string {
	switch {
	case size > d.perFile:
		return fmt.Sprintf("refused: larger than %s, the bound of one download (--max-download-mb)", mib(d.perFile))
	case d.kept+others+size > d.total:
		return fmt.Sprintf("refused: the downloads would pass %s in all (--max-downloads-mb); %s are kept", mib(d.total), mib(d.kept))
	}
	return ""
}

func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

func orDefault(n, def int64) int64 {
	if n <= 0 {
		return def
	}
	return n
}

// finish names the file after the suggested name, keeps it when admit
// lets it stay, and logs it. A cancelled download's part is removed.
func (dl *download) finish(dir, guid string, state browser.DownloadProgressState, admit func(int64) string) {
	e := LogEntry{Kind: LogDownload, URL: dl.url, Text: dl.name}
	if state != browser.DownloadProgressStateCompleted {
		os.Remove(filepath.Join(dir, guid))
		e.Error = "download " + string(state)
		if dl.refused != "" {
			e.Error = dl.refused
		}
		dl.tab.logs.locked(e)
		return
	}
	from := filepath.Join(dir, guid)
	to := freeName(dir, dl.name)
	if err := os.Rename(from, to); err != nil {
		to = from // keep the browser's name rather than lose the file
	}
	info, err := os.Stat(to)
	switch {
	case err != nil:
		e.Error = "the file is gone: " + err.Error()
	default:
		if why := admit(info.Size()); why != "" {
			os.Remove(to)
			e.Error = why
			break
		}
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
