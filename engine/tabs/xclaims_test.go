package tabs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
)

// A claims folder another user made first (or can write to) is refused with
// its own code and a hint naming it, never taken as ours.
func TestClaimsFolderOfAnotherUserIsRefused(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "claims-parent")
	dir := filepath.Join(parent, "claims")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(parent, 0o777) // as a folder another user made in a shared place
	os.Chmod(dir, 0o777)
	m, err := New(Options{CDPURL: "http://127.0.0.1:9", ClaimDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, err = m.lockDir()
	if err == nil {
		t.Fatal("a folder others can write was taken as the claims folder")
	}
	if e := errs.As(err); e.Code != errs.PermissionDenied || e.Fact != FactClaimsFolder || !strings.Contains(e.Hint, dir) {
		t.Fatalf("error %v (code %s, fact %s, hint %q)", err, e.Code, e.Fact, e.Hint)
	}
}
