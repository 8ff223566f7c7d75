package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImageReference(t *testing.T) {
	t.Parallel()
	for ref, want := range map[string][2]string{
		"node:22-slim": {"node", "22-slim"}, "docker.io/library/python:3.12": {"python", "3.12"},
		"localhost:5000/golang:1.22@sha256:ab": {"golang", "1.22"}, "ruby": {"ruby", ""},
	} {
		if n, tag := parseImage(ref); n != want[0] || tag != want[1] {
			t.Errorf("parseImage(%q) = %q %q", ref, n, tag)
		}
	}
	for _, c := range []struct {
		want, have string
		ok         bool
	}{{"22", "22.3.0", true}, {"22", "20.11.1", false}, {"3.12", "3.12.1", true}, {"3.1", "3.12.1", false}, {"", "1.0", true}, {"", "", false}, {"3.12.1.4", "3.12.1", false}} {
		if got := versionMatches(c.want, c.have); got != c.ok {
			t.Errorf("versionMatches(%q, %q) = %v", c.want, c.have, got)
		}
	}
}

// fakeNode puts a node on PATH that prints version, in a folder the
// sandbox sees (it binds /opt read-only, not the test's temporary
// folders), first on the test's PATH, which the sandbox's commands get.
func fakeNode(t *testing.T, version string) {
	dir, err := os.MkdirTemp("/opt", "tabwright-qs-fake-node-")
	if err != nil {
		t.Fatalf("a fake toolchain needs a folder the sandbox sees under /opt: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "node"), []byte("#!/bin/sh\necho "+version+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
}

// On the sandbox backend a task whose image's toolchain differs from the
// one inside the sandbox (a real node on its PATH printing another
// version) gets the mismatch warning, and its failed check is infra_error
// naming the mismatch; when it matches there is no warning and the verdict
// is the check's; an image whose toolchain cannot be told gets a warning
// only.
func TestIsolatedImageNotBlamedOnTheDocs(t *testing.T) {
	o := isolatedOpts(t)
	failing := "replay: ['true']\nsuccess:\n  script: qs_fail \"the app is not there\"\n"
	for _, c := range []struct {
		node, image, check string
		class              Classification
		warn, detail       string
	}{
		{"v20.11.1", "node:22-slim", failing, InfraError, ImageToolchainMismatch + ": image node:22-slim has Node.js 22, but the sandbox backend runs the host's toolchain, where Node.js is 20.11.1",
			"image node:22-slim has Node.js 22, but the sandbox backend runs the host's toolchain, where Node.js is 20.11.1 (" + ImageToolchainMismatch + ")"},
		{"v20.11.1", "node:22-slim", "replay: ['true']\nsuccess:\n  script: 'true'\n", Passed, ImageToolchainMismatch, ""},
		{"v22.3.0", "node:22-slim", failing, DocsGap, "", ""},
		{"v22.3.0", "example.org/team/custom:1", failing, DocsGap, ImageUnchecked + ": the task asks for image example.org/team/custom:1", ""},
	} {
		t.Run(c.node+" "+c.image, func(t *testing.T) {
			fakeNode(t, c.node)
			tk := newTask(t, strings.Replace(head, "NAME", "image", 1)+"image: "+c.image+"\n"+c.check)
			r := Attempt(context.Background(), tk, 1, o)
			if r.Classification != c.class || r.Detail != c.detail {
				t.Errorf("%s (%q), want %s (%q)", r.Classification, r.Detail, c.class, c.detail)
			}
			warned := strings.Join(r.Warnings, "\n")
			if c.warn == "" && warned != "" || !strings.Contains(warned, c.warn) {
				t.Errorf("warnings %q, want %q", r.Warnings, c.warn)
			}
			if c.warn != "" && !strings.Contains(warned, "--backend container") {
				t.Errorf("the warning does not say how to run the image: %q", warned)
			}
			if end := r.Trace.Events()[len(r.Trace.Events())-1]; end["detail"] != c.detail {
				t.Errorf("run_end detail %q", end["detail"])
			}
		})
	}
}
