package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Control characters from a task, a page or a model never reach the
// terminal raw (issue 44, item 5): each is shown as visible text, also when
// a write splits a C1 control's two bytes.
func TestTerminalSafeWriter(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ok\tline\n", "ok\tline\n"},
		{"\x1b]0;pwned\x07title", "^[]0;pwned^Gtitle"},
		{"\x1b]52;c;ZXZpbA==\x1b\\", "^[]52;c;ZXZpbA==^[\\"},
		{"\x1b[2J\rover\x7f", "^[[2J^Mover^?"},
		{"csi \u009b31m and é", "csi <9b>31m and é"},
	} {
		var b bytes.Buffer
		w := newTerminalSafe(&b)
		for i := range len(c.in) { // one byte a write: splits every sequence
			w.Write([]byte{c.in[i]})
		}
		if b.String() != c.want {
			t.Errorf("%q written byte by byte: %q, want %q", c.in, b.String(), c.want)
		}
		b.Reset()
		newTerminalSafe(&b).Write([]byte(c.in))
		if b.String() != c.want {
			t.Errorf("%q: %q, want %q", c.in, b.String(), c.want)
		}
	}
}

// A page whose title and text carry escape sequences: tabwright observe
// prints them as visible text.
func TestObservePrintsNoEscapes(t *testing.T) {
	page := filepath.Join(t.TempDir(), "esc.html")
	body := "<meta charset=\"utf-8\"><title>Docs\x1b]0;owned\x07</title><p>Run \x1b[2Jthis\u009b31m now</p>"
	if err := os.WriteFile(page, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"observe", page}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.ContainsAny(out.String(), "\x1b\x07\u009b") {
		t.Fatalf("raw control characters printed: %q", out.String())
	}
	if !strings.Contains(out.String(), "Run ^[[2Jthis<9b>31m now") {
		t.Fatalf("the text is not shown with its controls made visible: %q", out.String())
	}
}
