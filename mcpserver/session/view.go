package session

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
)

// The view is one HTML file with no script and no request: styles inline,
// screenshots as data: URLs, and a Content-Security-Policy that forbids
// anything else. Everything from the session is page text a model read,
// so html/template escapes all of it.

//go:embed view.html.tmpl
var viewSource string

var viewTemplate = template.Must(template.New("view").Funcs(template.FuncMap{
	"ms": func(v float64) string {
		if v >= 1000 {
			return fmt.Sprintf("%.2f s", v/1000)
		}
		return fmt.Sprintf("%.0f ms", v)
	},
}).Parse(viewSource))

// maxShotBytes is the largest screenshot file embedded; larger ones were
// not written by this package.
const maxShotBytes = 4 << 20

// viewCall is a call as the page shows it.
type viewCall struct {
	Call
	At         string // since the session began
	ArgsJSON   string
	Structured string
	Shot       template.URL // a data: URL of the screenshot, or ""
	ShotNote   string
}

// tabSummary is what one tab's console and network said over the session.
type tabSummary struct {
	Tab                                        string
	Calls, Console, Warnings, Errors, Requests int
	FailedRequests, Navigations, Bytes, Lost   int64
	URLs                                       []string
}

type viewData struct {
	Meta      Meta
	Started   string
	Calls     []viewCall
	Failed    int
	Tabs      []*tabSummary
	Skipped   int
	TotalMS   float64
	ShotBytes int
}

// View writes the session as one self-contained HTML page.
func View(s *Loaded, w io.Writer) error {
	d := viewData{Meta: s.Meta, Skipped: s.Skipped, Started: time.UnixMilli(s.Meta.StartedMS).UTC().Format(time.RFC3339)}
	tabs := map[string]*tabSummary{}
	for _, c := range s.Calls {
		vc := viewCall{Call: c, At: fmt.Sprintf("+%.2f s", float64(c.StartedMS-s.Meta.StartedMS)/1000), ArgsJSON: indent(c.Args), Structured: indent(c.Structured)}
		vc.Shot, vc.ShotNote = embedShot(s.Dir, c.Shot)
		if c.Shot != nil && vc.Shot != "" {
			d.ShotBytes += c.Shot.Bytes
		}
		if c.IsError {
			d.Failed++
		}
		d.TotalMS += c.DurationMS
		d.Calls = append(d.Calls, vc)
		summarise(tabs, c)
	}
	for _, t := range tabs {
		d.Tabs = append(d.Tabs, t)
	}
	sort.Slice(d.Tabs, func(i, j int) bool { return d.Tabs[i].Tab < d.Tabs[j].Tab })
	var b bytes.Buffer
	if err := viewTemplate.Execute(&b, d); err != nil {
		return errs.Wrap(errs.Internal, err, "rendering the session view")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// summarise adds c's log lines to its tab's summary.
func summarise(tabs map[string]*tabSummary, c Call) {
	if c.Tab == "" {
		return
	}
	t := tabs[c.Tab]
	if t == nil {
		t = &tabSummary{Tab: c.Tab}
		tabs[c.Tab] = t
	}
	t.Calls++
	if c.Logs == nil {
		return
	}
	t.Lost += c.Logs.Lost
	for _, l := range c.Logs.Entries {
		switch l.Kind {
		case "console":
			t.Console++
			if l.Level == "warning" {
				t.Warnings++
			}
			if l.Level == "error" {
				t.Errors++
			}
		case "error":
			t.Errors++
		case "network":
			t.Requests++
			t.Bytes += l.Bytes
			if l.Error != "" || l.Status >= 400 {
				t.FailedRequests++
			}
		case "navigation":
			t.Navigations++
			if len(t.URLs) < 20 {
				t.URLs = append(t.URLs, l.URL)
			}
		}
	}
}

// embedShot reads a screenshot the session wrote and returns it as a
// data: URL; a file that is missing, a link, too large or not a JPEG is
// noted instead.
func embedShot(dir string, s *Shot) (template.URL, string) {
	if s == nil {
		return "", ""
	}
	if !shotName.MatchString(s.File) {
		return "", "screenshot file name not one this tool writes"
	}
	path := filepath.Join(dir, filepath.FromSlash(s.File))
	info, err := os.Lstat(path)
	switch {
	case err != nil:
		return "", "screenshot missing: " + err.Error()
	case !info.Mode().IsRegular():
		return "", "screenshot is not a regular file"
	case info.Size() > maxShotBytes:
		return "", "screenshot too large to embed"
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", "screenshot unreadable: " + err.Error()
	}
	if len(raw) < 3 || raw[0] != 0xff || raw[1] != 0xd8 || raw[2] != 0xff {
		return "", "screenshot is not a JPEG"
	}
	// Only base64 follows the fixed prefix: nothing a page wrote reaches the URL.
	return template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(raw)), ""
}

// indent pretty-prints JSON for reading; what does not parse is shown as is.
func indent(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}
