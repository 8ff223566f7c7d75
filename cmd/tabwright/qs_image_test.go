package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/sandbox"
)

// A task's image: where an engine is installed but cannot pull the image
// says what is true (installed, image absent, the pull's error) and what to
// do (load it, a mirror, or --backend sandbox with its caveat); a backend
// that does not run images names the installed engine instead of asking
// for one to be installed.
func TestQSImageAnEngineCannotPull(t *testing.T) {
	t.Parallel()
	rt, why := sandbox.FindRuntime(context.Background())
	if rt == nil {
		t.Fatalf("the container backend cannot run here: %s", why)
	}
	docs := docsServer(t)
	dir := t.TempDir()
	image := "127.0.0.1:9/absent/node:22" // a registry that refuses the connection
	tf := filepath.Join(dir, "img.yaml")
	os.WriteFile(tf, []byte(fmt.Sprintf("name: img\ngoal: g\nimage: %s\ndocs:\n  entrypoint: %s/docs/\nreplay: ['true']\nsuccess:\n  script: 'true'\n", image, docs.URL)), 0o644)
	_, out, stderr := qsCmd(t, "run", tf)
	for _, want := range []string{rt.Name + " is installed and answers, but image " + image + " is not on this machine and " + rt.Name + " pull failed: ",
		rt.Name + " load -i image.tar", "registry mirror", "--backend sandbox runs the task without its image"} {
		if !strings.Contains(out, want) {
			t.Errorf("auto, the pull failing: the run lacks %q:\n%s%s", want, out, stderr)
		}
	}
	_, out, stderr = qsCmd(t, "run", tf, "--backend", "local", "--allow-unenforced")
	if strings.Contains(out, "install Podman or Docker") || !strings.Contains(out, " is installed: --backend container (or auto, when it answers) runs the task in its image") {
		t.Errorf("local with an engine installed:\n%s%s", out, stderr)
	}
}
