package session

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
)

// DefaultMaxBytes is the size a --save-session folder may reach before its
// oldest sessions are removed: about 10,000 calls with their screenshots.
const DefaultMaxBytes = 500 << 20

// MinMaxBytes is the smallest cap accepted: one session's calls and a few
// screenshots.
const MinMaxBytes = 1 << 20

// Bounds of one record, so that one large observation cannot crowd out
// the rest of the session.
const (
	maxTextBytes       = 256 << 10
	maxStructuredBytes = 256 << 10
	maxArgsBytes       = 64 << 10
)

// recountEvery: the store counts the folder's bytes again (other
// processes write there too) once this share of the cap was written.
const recountEvery = 10

// Store is the folder every session of this process writes under, with
// its size cap.
type Store struct {
	dir string
	max int64

	mu    sync.Mutex
	used  int64           // bytes in dir at the last count, plus this process's writes since
	since int64           // bytes written since the last count
	live  map[string]bool // folders of this process's sessions, never pruned
}

// NewStore makes dir (private to the user) and counts what it holds.
func NewStore(dir string, maxBytes int64) (*Store, error) {
	if dir == "" {
		return nil, errs.Input("--save-session", "needs a folder")
	}
	if maxBytes < MinMaxBytes {
		return nil, errs.Input("--save-session-max-mb", "must be at least %d MB", MinMaxBytes>>20)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidInput, err, "--save-session")
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, errs.Wrap(errs.InvalidInput, err, "--save-session: making the folder").WithPath("--save-session")
	}
	s := &Store{dir: abs, max: maxBytes, live: map[string]bool{}}
	s.used = s.count()
	return s, nil
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// folderName is the form of every session folder's name: the start time
// (so names sort in time order) and a random suffix.
var folderName = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}\.[0-9]{3}-[0-9a-f]{8}$`)

func newFolderName(now time.Time) string {
	b := make([]byte, 4)
	rand.Read(b)
	return now.UTC().Format("20060102T150405.000") + "-" + hex.EncodeToString(b)
}

// count sums the sizes of the regular files under the store's folder.
func (s *Store) count() int64 { return sizeOf(s.dir) }

// sizeOf sums the sizes of the regular files under dir.
func sizeOf(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// reserve accounts for n bytes about to be written; over the cap, the
// oldest sessions not of this process go first. False: even so there is
// no room, and nothing was accounted.
func (s *Store) reserve(n int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.since+n > s.max/recountEvery {
		s.used, s.since = s.count(), 0
	}
	if s.used+n > s.max {
		s.prune(s.used + n - s.max)
	}
	if s.used+n > s.max {
		return false
	}
	s.used += n
	s.since += n
	return true
}

// prune removes whole session folders, oldest first, until need bytes are
// free or only live ones are left; then it counts again.
func (s *Store) prune(need int64) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	var old []string
	for _, e := range entries {
		if e.IsDir() && folderName.MatchString(e.Name()) && !s.live[e.Name()] {
			old = append(old, e.Name())
		}
	}
	sort.Strings(old)
	freed := int64(0)
	for _, name := range old {
		if freed >= need {
			break
		}
		path := filepath.Join(s.dir, name)
		size := sizeOf(path)
		if os.RemoveAll(path) == nil {
			freed += size
		}
	}
	s.used, s.since = s.count(), 0
}

func (s *Store) setLive(name string, live bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if live {
		s.live[name] = true
	} else {
		delete(s.live, name)
	}
}

// Recorder writes one session's folder. Its methods are safe for
// concurrent calls; the folder is made at the first write, so a session
// that calls no tool leaves nothing.
type Recorder struct {
	store *Store
	meta  Meta
	name  string

	mu      sync.Mutex
	seq     int
	calls   *os.File
	stopped bool
}

// Start begins a session.
func (s *Store) Start(server, client string, redacted bool) *Recorder {
	now := time.Now()
	name := newFolderName(now)
	return &Recorder{store: s, name: name, meta: Meta{Format: Format, ID: name, StartedMS: now.UnixMilli(), Server: server, Client: client, Redacted: redacted}}
}

// Folder is the session's folder (which exists once a call was written).
func (r *Recorder) Folder() string { return filepath.Join(r.store.dir, r.name) }

// Next numbers a call as it arrives.
func (r *Recorder) Next() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	return r.seq
}

// Write adds the call and its screenshot (nil: none). Past the store's
// cap the screenshot is left out first; when even the call does not fit,
// the session stops recording and its meta says so. Errors writing are
// not the tool call's: the session stops recording and the error is
// returned once.
func (r *Recorder) Write(c *Call, shot []byte) error {
	bound(c)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return nil
	}
	if err := r.open(); err != nil {
		r.stopped = true
		return err
	}
	if shot != nil {
		line, _ := json.Marshal(c)
		if r.store.reserve(int64(len(shot) + len(line))) {
			return r.writeCall(c, shot, true)
		}
		c.Shot = nil
		c.Cut = append(c.Cut, "screenshot: the folder is at its --save-session-max-mb cap")
	}
	line, _ := json.Marshal(c)
	if !r.store.reserve(int64(len(line) + 1)) {
		r.stop(fmt.Sprintf("call %d and later: the folder reached its --save-session-max-mb cap", c.Seq))
		return nil
	}
	return r.writeCall(c, nil, false)
}

// writeCall writes the screenshot first, so no line names a file that is
// not there.
func (r *Recorder) writeCall(c *Call, shot []byte, reserved bool) error {
	if shot != nil {
		if err := os.WriteFile(filepath.Join(r.Folder(), filepath.FromSlash(c.Shot.File)), shot, 0o600); err != nil {
			c.Shot, c.ShotError = nil, "writing the screenshot: "+err.Error()
		}
	}
	line, _ := json.Marshal(c)
	if _, err := r.calls.Write(append(line, '\n')); err != nil {
		r.stopped = true
		return errs.Wrap(errs.Internal, err, "writing the session's calls")
	}
	return nil
}

func (r *Recorder) open() error {
	if r.calls != nil {
		return nil
	}
	dir := r.Folder()
	if err := os.MkdirAll(filepath.Join(dir, ShotsDir), 0o700); err != nil {
		return errs.Wrap(errs.Internal, err, "making the session folder")
	}
	r.store.setLive(r.name, true)
	if err := r.writeMeta(); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, CallsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return errs.Wrap(errs.Internal, err, "opening the session's calls")
	}
	r.calls = f
	return nil
}

func (r *Recorder) writeMeta() error {
	raw, _ := json.MarshalIndent(r.meta, "", "  ")
	if err := os.WriteFile(filepath.Join(r.Folder(), MetaFile), raw, 0o600); err != nil {
		return errs.Wrap(errs.Internal, err, "writing the session's "+MetaFile)
	}
	return nil
}

// stop ends the recording and says why in the meta.
func (r *Recorder) stop(why string) {
	r.stopped = true
	r.meta.Stopped = why
	r.writeMeta()
}

// Close ends the session: its folder may be pruned from now on.
func (r *Recorder) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls != nil {
		r.calls.Close()
	}
	r.stopped = true
	r.store.setLive(r.name, false)
}

// ShotFile is where call seq's screenshot goes, relative to the folder.
func ShotFile(seq int) string { return shotFile(seq) }

// bound cuts a record's large parts, saying what was cut.
func bound(c *Call) {
	if len(c.Text) > maxTextBytes {
		c.Cut = append(c.Cut, fmt.Sprintf("text: %d of %d bytes kept", maxTextBytes, len(c.Text)))
		c.Text = cutUTF8(c.Text, maxTextBytes)
	}
	if len(c.Structured) > maxStructuredBytes {
		c.Cut = append(c.Cut, fmt.Sprintf("structured: %d bytes left out (the text is the same result)", len(c.Structured)))
		c.Structured = nil
	}
	if len(c.Args) > maxArgsBytes {
		c.Cut = append(c.Cut, fmt.Sprintf("args: %d bytes left out", len(c.Args)))
		c.Args = nil
	}
}

// cutUTF8 is s cut at n bytes, not inside a character.
func cutUTF8(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}
