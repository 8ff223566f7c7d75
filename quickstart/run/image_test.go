package run

import (
	"context"
	"os/exec"
	"regexp"
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

// On the sandbox backend a task whose image's toolchain differs from the
// host's (or cannot be checked) gets a warning, and its failed check is
// infra_error; when the host's toolchain matches, the verdict is the
// check's as usual.
func TestIsolatedImageNotBlamedOnTheDocs(t *testing.T) {
	out, err := exec.Command("python3", "--version").Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	host := regexp.MustCompile(`\d+\.\d+`).FindString(string(out)) // 3.11
	o := isolatedOpts(t)
	for _, c := range []struct {
		image, class, warn string
	}{
		{"python:3.99-slim", InfraError, "(Python 3.99), which the sandbox backend does not run, and Python here is " + host},
		{"example.org/team/custom:1", InfraError, "its toolchain cannot be checked here"},
		{"python:" + host + "-slim", DocsGap, ""},
	} {
		tk := newTask(t, strings.Replace(head, "NAME", "image", 1)+"image: "+c.image+"\nreplay: ['true']\nsuccess:\n  script: qs_fail \"the app is not there\"\n")
		r := Attempt(context.Background(), tk, 1, o)
		if r.Classification != c.class {
			t.Errorf("%s: %s (%s), want %s", c.image, r.Classification, r.Detail, c.class)
		}
		warned := strings.Join(r.Warnings, "\n")
		if c.warn == "" && strings.Contains(warned, "image") || c.warn != "" && !strings.Contains(warned, c.warn) {
			t.Errorf("%s: warnings %q, want %q", c.image, r.Warnings, c.warn)
		}
	}
}
