// Package session keeps what an MCP session did, for a person to look at
// and for a script to replay: one folder per session holding every tool
// call (arguments redacted, the result as the model saw it, duration,
// error), a small screenshot after each call that acted on a page and the
// tab's console and network entries since the call before. It reads the
// folder back (View renders it as one HTML page, Steps turns a tab's
// successful actions into browser_batch steps).
//
// A folder's layout, format 1:
//
//	session.json      Meta
//	calls.jsonl       one Call per line, in the order the calls ended
//	shots/000001.jpg  the screenshot of call 1, when it has one
//
// Every name in it is made here (a time, a random suffix, a number): no
// path comes from a page or a model.
package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
)

// Format is the version of the folder's layout and records.
const Format = 1

// File names inside a session folder.
const (
	MetaFile  = "session.json"
	CallsFile = "calls.jsonl"
	ShotsDir  = "shots"
)

// Meta describes the session.
type Meta struct {
	Format    int    `json:"format"`
	ID        string `json:"id"`
	StartedMS int64  `json:"started_ms"`
	Server    string `json:"server"` // tabwright's version
	Client    string `json:"client,omitempty"`
	// Redacted: the server had secrets to hide; they were replaced by
	// [redacted] in arguments, results and logs (not in screenshots).
	Redacted bool `json:"redacted,omitempty"`
	// Stopped says why the recording stopped before the session ended.
	Stopped string `json:"stopped,omitempty"`
}

// Call is one tool call.
type Call struct {
	Seq        int             `json:"seq"` // order of arrival, from 1
	Tool       string          `json:"tool"`
	StartedMS  int64           `json:"started_ms"`
	DurationMS float64         `json:"duration_ms"` // the call alone, without the recording
	Tab        string          `json:"tab,omitempty"`
	URLBefore  string          `json:"url_before,omitempty"`
	URLAfter   string          `json:"url_after,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	// Stable are the locators, at call time, of the elements the call
	// named by ref ("": the step's own locator). A replay uses them
	// instead of the refs.
	Stable map[string]locate.Locator `json:"stable,omitempty"`
	// StableError says why a ref could not be turned into a selector.
	StableError string          `json:"stable_error,omitempty"`
	IsError     bool            `json:"is_error,omitempty"`
	Error       *errs.Error     `json:"error,omitempty"`
	Text        string          `json:"text"`                 // the result's text content
	Structured  json.RawMessage `json:"structured,omitempty"` // its structured content
	Images      []Image         `json:"images,omitempty"`     // image content, by size only
	Shot        *Shot           `json:"shot,omitempty"`
	ShotError   string          `json:"shot_error,omitempty"`
	Logs        *Logs           `json:"logs,omitempty"`
	Cut         []string        `json:"cut,omitempty"` // what the record left out to stay bounded
}

// Image is an image the result carried: its type and size, not its bytes.
type Image struct {
	MIME  string `json:"mime"`
	Bytes int    `json:"bytes"`
}

// Shot is a screenshot taken after the call.
type Shot struct {
	File   string  `json:"file"` // relative to the session folder
	Bytes  int     `json:"bytes"`
	Width  int     `json:"width"`
	Height int     `json:"height"`
	MS     float64 `json:"ms"` // what taking it cost
}

// Logs are the tab's entries since the call before on that tab.
type Logs struct {
	Entries []LogLine `json:"entries"`
	More    int       `json:"more,omitempty"` // entries left out past the bound
	Lost    int64     `json:"lost,omitempty"` // entries the tab's ring evicted before they were read
}

// LogLine is one console, error, network or navigation entry, summarised.
type LogLine struct {
	Kind       string  `json:"kind"`
	Level      string  `json:"level,omitempty"`
	Text       string  `json:"text,omitempty"`
	URL        string  `json:"url,omitempty"`
	Method     string  `json:"method,omitempty"`
	Status     int64   `json:"status,omitempty"`
	Type       string  `json:"type,omitempty"`
	DurationMS float64 `json:"duration_ms,omitempty"`
	Bytes      int64   `json:"bytes,omitempty"`
	Error      string  `json:"error,omitempty"`
	Source     string  `json:"source,omitempty"`
}

// Bounds of what a folder's reader accepts: a file larger than these was
// not written by this package.
const (
	maxMetaBytes = 64 << 10
	maxLineBytes = 8 << 20
	maxCalls     = 100_000
)

// Loaded is a session folder read back.
type Loaded struct {
	Dir   string
	Meta  Meta
	Calls []Call // by Seq
	// Skipped counts lines that could not be read (a line cut by a crash).
	Skipped int
}

// Load reads the session folder dir.
func Load(dir string) (*Loaded, error) {
	meta, err := readMeta(filepath.Join(dir, MetaFile))
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, CallsFile))
	if err != nil {
		if os.IsNotExist(err) {
			return &Loaded{Dir: dir, Meta: meta}, nil
		}
		return nil, errs.Wrap(errs.InvalidInput, err, "reading the session's calls").WithPath("DIR").
			WithHint("give a session folder you can read (the --save-session folder holds one per session)")
	}
	defer f.Close()
	calls, skipped, err := ParseCalls(f)
	if err != nil {
		return nil, err
	}
	return &Loaded{Dir: dir, Meta: meta, Calls: calls, Skipped: skipped}, nil
}

func readMeta(path string) (Meta, error) {
	var m Meta
	f, err := os.Open(path)
	if err != nil {
		return m, errs.Input("DIR", "%s is not a session folder: %v", filepath.Dir(path), err).
			WithHint("give a folder tabwright mcp --save-session wrote, or the folder above it (its newest session is used)")
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxMetaBytes+1))
	if err != nil {
		return m, errs.Wrap(errs.InvalidInput, err, "reading "+MetaFile)
	}
	if len(raw) > maxMetaBytes || json.Unmarshal(raw, &m) != nil {
		return m, errs.Input("DIR", "%s is not a session's %s", path, MetaFile)
	}
	if m.Format != Format {
		return m, errs.Input("DIR", "%s has format %d; this tabwright reads format %d", path, m.Format, Format)
	}
	return m, nil
}

// ParseCalls reads calls.jsonl: one Call per line, sorted by Seq. Lines
// that do not parse (a write cut short) are counted, not fatal; a line
// longer than any this package writes, or too many lines, is an error.
func ParseCalls(r io.Reader) (calls []Call, skipped int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if len(calls) == maxCalls {
			return nil, 0, errs.Input(CallsFile, "more than %d calls", maxCalls)
		}
		var c Call
		if json.Unmarshal(line, &c) != nil || c.Seq <= 0 || c.Tool == "" || !validShotFile(c.Shot) {
			skipped++
			continue
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, errs.Input(CallsFile, "unreadable: %v", err)
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].Seq < calls[j].Seq })
	return calls, skipped, nil
}

// shotName is the only form a screenshot's file takes: a reader never
// opens a path a record names unless it is one this package makes.
var shotName = regexp.MustCompile(`^shots/[0-9]{6,9}\.jpg$`)

func validShotFile(s *Shot) bool { return s == nil || shotName.MatchString(s.File) }

// shotFile is the file of call seq's screenshot, relative to the folder.
func shotFile(seq int) string { return fmt.Sprintf("%s/%06d.jpg", ShotsDir, seq) }
