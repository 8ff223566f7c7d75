package mcpserver

import (
	"fmt"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
)

// FuzzParseCursor: any text is a cursor or an invalid_input at cursor, and
// a cursor reads back as what wrote it.
func FuzzParseCursor(f *testing.F) {
	for _, s := range []string{"ev1:100", "ev0:0", "ev:1", "ev1:-1", "x", "", "ev99999999999999999999:1", "ev1:1:2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, off, err := parseCursor(s)
		if err != nil {
			if e := errs.As(err); e.Code != errs.InvalidInput || e.Path != "cursor" {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if id < 0 || off < 0 {
			t.Fatalf("%q: id %d offset %d", s, id, off)
		}
		if again, o2, err := parseCursor(fmt.Sprintf("ev%d:%d", id, off)); err != nil || again != id || o2 != off {
			t.Fatalf("%q: round trip %d %d %v", s, again, o2, err)
		}
	})
}
