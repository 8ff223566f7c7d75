package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/internal/testimage"
	"github.com/tabwright/tabwright/quickstart/sandbox"
)

// qs run (auto) runs a task with image: in it and says so at start; qs
// check --sandbox runs its check in the same image on the kept workspace.
func TestQSRunAndCheckInTheImage(t *testing.T) {
	rt, why := sandbox.FindRuntime(context.Background())
	if rt == nil {
		t.Fatalf("the container backend cannot run here: %s", why)
	}
	image := testimage.Build(t, rt.Path)
	docs := docsServer(t)
	dir := t.TempDir()
	tf := filepath.Join(dir, "img.yaml")
	os.WriteFile(tf, []byte(fmt.Sprintf("name: img\ngoal: Copy the image's marker.\nimage: %s\ndocs:\n  entrypoint: %s/docs/\nreplay: ['cat %s > seen.txt']\nsuccess:\n  script: grep -q %s seen.txt && test -e %s || qs_fail \"not in the image\"\n",
		image, docs.URL, testimage.MarkerFile, testimage.Marker, testimage.MarkerFile)), 0o644)
	var out, errb bytes.Buffer
	code := runQS(context.Background(), []string{"run", tf, "--keep-sandbox"}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "backend: container for tasks with image: (enforced: "+rt.Name) || !strings.Contains(out.String(), "started on container (enforced)") {
		t.Fatalf("qs run: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	kept := regexp.MustCompile(`sandbox kept at: (\S+)`).FindStringSubmatch(out.String())
	if kept == nil {
		t.Fatalf("no kept sandbox in:\n%s", out.String())
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(kept[1])) })
	out.Reset()
	if code := runQS(context.Background(), []string{"check", tf, "--sandbox", kept[1]}, &out, &errb); code != 0 || !strings.Contains(out.String(), "[PASS] img check exited 0 (container)") {
		t.Fatalf("qs check: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
}
