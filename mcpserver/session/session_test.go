package session

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
)

// fakeSession makes a session folder named for its start time holding
// size bytes.
func fakeSession(t *testing.T, root, name string, size int) {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, CallsFile), make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Over the cap, whole sessions go, oldest first; the session being
// written and anything not a session folder stay; a session that alone
// outgrows the cap stops and says why.
func TestStoreCapRemovesOldestSessionsFirst(t *testing.T) {
	root := t.TempDir()
	fakeSession(t, root, "20240101T000000.000-00000001", 400<<10)
	fakeSession(t, root, "20240102T000000.000-00000002", 400<<10)
	other := filepath.Join(root, "notes")
	os.MkdirAll(other, 0o700)
	os.WriteFile(filepath.Join(other, "keep.txt"), make([]byte, 10<<10), 0o600)

	store, err := NewStore(root, MinMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	rec := store.Start("test", "", false)
	shot := append([]byte{0xff, 0xd8, 0xff}, make([]byte, 300<<10)...)
	c := &Call{Seq: rec.Next(), Tool: "browser_click", Shot: &Shot{File: ShotFile(1), Bytes: len(shot)}}
	if err := rec.Write(c, shot); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "20240101T000000.000-00000001")); !os.IsNotExist(err) {
		t.Fatalf("the oldest session is still there (%v)", err)
	}
	for _, keep := range []string{"20240102T000000.000-00000002", "notes/keep.txt", filepath.Base(rec.Folder())} {
		if _, err := os.Stat(filepath.Join(root, keep)); err != nil {
			t.Fatalf("%s was removed: %v", keep, err)
		}
	}
	if sizeOf(root) > MinMaxBytes {
		t.Fatalf("the folder holds %d bytes, over its cap %d", sizeOf(root), MinMaxBytes)
	}

	for i := 0; i < 4; i++ { // this session alone outgrows the cap
		c := &Call{Seq: rec.Next(), Tool: "browser_click"}
		c.Shot = &Shot{File: ShotFile(c.Seq), Bytes: len(shot)}
		rec.Write(c, shot)
	}
	rec.Write(&Call{Seq: rec.Next(), Tool: "browser_observe", Text: string(make([]byte, 200<<10))}, nil)
	rec.Close()
	s, err := Load(rec.Folder())
	if err != nil {
		t.Fatal(err)
	}
	if s.Meta.Stopped == "" || sizeOf(root) > MinMaxBytes {
		t.Fatalf("a session over the cap: stopped %q, folder %d bytes", s.Meta.Stopped, sizeOf(root))
	}
	cut := false
	for _, c := range s.Calls {
		cut = cut || len(c.Cut) > 0 && c.Shot == nil
	}
	if !cut {
		t.Fatalf("no call says its screenshot was left out: %+v", s.Calls)
	}
}

// Everything of the session is text in the view: markup a page wrote
// stays text, no script or outside request can come from it, and a
// screenshot file that is a link is not embedded.
func TestViewEscapesTheSession(t *testing.T) {
	dir := t.TempDir()
	store, err := NewStore(filepath.Dir(dir), MinMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	rec := store.Start(`v"><script>alert(1)</script>`, "", true)
	evil := `<script>alert(1)</script><img src=https://evil.example/x>`
	rec.Write(&Call{Seq: 1, Tool: "browser_observe", Text: evil, URLAfter: "javascript:alert(1)",
		Args: json.RawMessage(`{"a":"</pre><script>x()</script>"}`), IsError: true,
		Error: &errs.Error{Code: "not_found", Message: evil, Hint: evil},
		Logs:  &Logs{Entries: []LogLine{{Kind: "console", Level: `error" onclick="x()`, Text: evil}}}}, nil)
	os.Symlink("/etc/hostname", filepath.Join(rec.Folder(), "shots", "000002.jpg"))
	rec.Write(&Call{Seq: 2, Tool: "browser_click", Shot: &Shot{File: ShotFile(2)}}, nil)
	rec.Close()
	s, err := Load(rec.Folder())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := View(s, &b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<img src=https", `="javascript:`, `onclick="x()"`} {
		if strings.Contains(page, bad) {
			t.Fatalf("the view holds %q", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(page, "screenshot is not a regular file") {
		t.Fatalf("the page's text or the link's note is missing:\n%s", page)
	}
	if !strings.Contains(page, `content="default-src 'none'; img-src data:; style-src 'unsafe-inline'"`) {
		t.Fatal("the view has no policy forbidding requests and scripts")
	}
}

func call(seq int, tool, args string) Call {
	return Call{Seq: seq, Tool: tool, Tab: "th_1", Args: json.RawMessage(args), Text: "ok"}
}

// Steps keeps a tab's successful actions, with selectors for refs, and
// says for each other call why it is not replayed.
func TestStepsFromASession(t *testing.T) {
	open := call(1, "browser_open_tab", `{"url":"http://a.test/"}`)
	open.URLAfter = "http://a.test/form"
	fill := call(3, "browser_fill", `{"tab_handle":"th_1","ref":"e5","text":"Ada"}`)
	fill.Stable = map[string]locate.Locator{"": {Selector: "#name"}}
	failed := call(6, "browser_click", `{"tab_handle":"th_1","selector":"#nope"}`)
	failed.IsError, failed.Error = true, &errs.Error{Code: "not_found"}
	stale := call(10, "browser_click", `{"tab_handle":"th_1","ref":"e9"}`)
	stale.StableError = "stale_ref: gone"
	batch := call(11, "browser_batch", `{"tab_handle":"th_1","dialog_policy":"accept","steps":[{"action":"click","selector":"#a"},{"action":"click","selector":"#b"}]}`)
	batch.IsError, batch.Error, batch.Structured = true, &errs.Error{Code: "timeout"}, json.RawMessage(`{"failed_step":1}`)
	nav := call(13, "browser_navigate", `{"tab_handle":"th_1","url":"http://a.test/next"}`)
	nav.URLAfter = "http://a.test/next"
	other := call(15, "browser_click", `{"tab_handle":"th_2","selector":"#other"}`)
	other.Tab = "th_2"
	s := &Loaded{Calls: []Call{
		open,
		call(2, "browser_observe", `{"tab_handle":"th_1"}`),
		fill,
		call(4, "browser_select_option", `{"tab_handle":"th_1","selector":"#c","values":["red"]}`),
		call(5, "browser_select_option", `{"tab_handle":"th_1","selector":"#c","values":["red","blue"]}`),
		failed,
		call(7, "browser_drag", `{"tab_handle":"th_1","selector":"#d","dx":5,"dy":0}`),
		call(8, "browser_click", `{"tab_handle":"th_1","selector":"#confirm"}`),
		call(9, "browser_dialog", `{"tab_handle":"th_1","action":"accept"}`),
		stale,
		batch,
		call(12, "browser_fill", `{"tab_handle":"th_1","selector":"#pw","text":"[redacted]"}`),
		nav,
		call(14, "browser_click", `{"tab_handle":"th_1","selector":"#after"}`),
		other,
	}}
	r, err := Steps(s, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"action":"fill","selector":"#name","text":"Ada"}`,
		`{"action":"select_option","selector":"#c","value":"red"}`,
		`{"action":"click","dialog_policy":"accept","selector":"#confirm"}`,
		`{"action":"click","dialog_policy":"accept","selector":"#a"}`,
		`{"action":"fill","selector":"#pw","text":"[redacted]"}`,
	}
	if got := stepsText(r.Steps); got != strings.Join(want, "\n") {
		t.Fatalf("steps:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if r.StartURL != "http://a.test/form" || r.Next != 13 || r.Tab != "th_1" {
		t.Fatalf("start %q, next %d, tab %q", r.StartURL, r.Next, r.Tab)
	}
	notes := notesText(r.Notes)
	for _, want := range []string{
		"acted on 2 tabs", "5: chose 2 options", "6: failed (not_found)", "7: browser_drag is not a browser_batch step",
		"9: became dialog_policy accept", "10: used ref e9", "stale_ref: gone", "11: failed at step 1 (timeout)",
		"12: holds [redacted]", "13: navigates", "--from 13", "calls 2 (browser_observe) only read the page",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("the notes do not say %q:\n%s", want, notes)
		}
	}

	rest, err := Steps(s, "th_1", 13)
	if err != nil || stepsText(rest.Steps) != `{"action":"click","selector":"#after"}` || rest.StartURL != "http://a.test/next" {
		t.Fatalf("from 13: %+v %v", rest, err)
	}
	if _, err := Steps(s, "th_9", 0); errs.Code(err) != errs.InvalidInput {
		t.Fatalf("an unknown tab: %v", err)
	}
}

func stepsText(steps []json.RawMessage) string {
	var out []string
	for _, s := range steps {
		out = append(out, string(s))
	}
	return strings.Join(out, "\n")
}

func notesText(notes []Note) string {
	var b strings.Builder
	for _, n := range notes {
		b.WriteString(strings.Join([]string{itoa(n.Seq), n.Why}, ": ") + "\n")
	}
	return b.String()
}

func itoa(n int) string { raw, _ := json.Marshal(n); return string(raw) }

// The calls file is read back whatever it holds: a cut line is counted,
// a screenshot path this package would not write is refused, and nothing
// panics.
func FuzzParseCalls(f *testing.F) {
	f.Add([]byte(`{"seq":2,"tool":"browser_click","shot":{"file":"shots/000002.jpg"}}` + "\n" + `{"seq":1,"tool":"browser_fill"}`))
	f.Add([]byte(`{"seq":1,"tool":"x","shot":{"file":"../../etc/passwd"}}`))
	f.Add([]byte(`{"seq":1,"tool":"x","args":{"a":[1,2,{"b":null}]},"stable":{"":{"selector":"#a","frame":{"path":["iframe"]}}}}` + "\n{\"seq\":"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		calls, _, err := ParseCalls(bytes.NewReader(raw))
		if err != nil {
			return
		}
		for i, c := range calls {
			if c.Seq <= 0 || c.Tool == "" || !validShotFile(c.Shot) || i > 0 && calls[i-1].Seq > c.Seq {
				t.Fatalf("call %d: %+v", i, c)
			}
		}
		s := &Loaded{Dir: t.TempDir(), Calls: calls}
		View(s, &bytes.Buffer{})
		Steps(s, "", 0)
	})
}
