package run

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// A task's `image:` names the toolchain its docs were written for. A
// backend that runs commands on the host's toolchain (sandbox, local)
// cannot honour it: before the attempt it asks the host's toolchain for its
// version, and the attempt records whether it matches the image's. When it
// does not (or cannot be told), the run says so in a warning, and a failed
// check is infra_error, not docs_gap: the docs are not to blame for a
// toolchain the image would have had.

// ImageCheckEvent is the trace event of that comparison.
const ImageCheckEvent = "image_check"

// imageToolchain is how an official image's toolchain tells its version.
type imageToolchain struct {
	name    string // what the warning calls it
	command string // prints a version
}

// imageToolchains are the official images whose tag leads with their
// toolchain's version (node:22-slim, python:3.12, golang:1.22).
var imageToolchains = map[string]imageToolchain{
	"node":            {"Node.js", "node --version"},
	"python":          {"Python", "python3 --version"},
	"golang":          {"Go", "go version"},
	"ruby":            {"Ruby", "ruby --version"},
	"rust":            {"Rust", "rustc --version"},
	"php":             {"PHP", "php --version"},
	"openjdk":         {"Java", "java -version 2>&1"},
	"eclipse-temurin": {"Java", "java -version 2>&1"},
	"amazoncorretto":  {"Java", "java -version 2>&1"},
}

var (
	leadingVersion = regexp.MustCompile(`^\d+(\.\d+)*`)
	anyVersion     = regexp.MustCompile(`\d+(\.\d+)+|\d+`)
)

// imageCheck is what an attempt learned of its task's image on a host
// backend.
type imageCheck struct {
	Image     string
	Toolchain string // "" when the image is not one we can check
	Want      string // the tag's version, "" when the tag names none
	Have      string // the host's version, "" when the toolchain is missing
	Matches   bool
}

// parseImage splits an image reference into its repository's last name
// and its tag: "docker.io/library/node:22-slim" -> node, 22-slim.
func parseImage(ref string) (name, tag string) {
	ref, _, _ = strings.Cut(ref, "@")
	slash := strings.LastIndexByte(ref, '/')
	if i := strings.LastIndexByte(ref, ':'); i > slash {
		ref, tag = ref[:i], ref[i+1:]
	}
	return ref[slash+1:], tag
}

// versionMatches: want's parts are a prefix of have's (22 matches 22.3.0,
// 3.12 matches 3.12.1, not 3.1.2); an empty want matches any version.
func versionMatches(want, have string) bool {
	if have == "" {
		return false
	}
	if want == "" {
		return true
	}
	w, h := strings.Split(want, "."), strings.Split(have, ".")
	if len(w) > len(h) {
		return false
	}
	for i := range w {
		if w[i] != h[i] {
			return false
		}
	}
	return true
}

// checkImage compares t's image with the toolchain sb's commands get.
func checkImage(ctx context.Context, image string, sb *sandbox.Sandbox) imageCheck {
	c := imageCheck{Image: image}
	name, tag := parseImage(image)
	tc, ok := imageToolchains[name]
	if !ok {
		return c
	}
	c.Toolchain, c.Want = tc.name, leadingVersion.FindString(tag)
	r := sb.Run(ctx, tc.command, sandbox.Options{Timeout: 30 * time.Second, MaxChars: 2000})
	if r.ExitCode == 0 {
		c.Have = anyVersion.FindString(strings.TrimPrefix(strings.TrimSpace(r.Output), "go version go"))
	}
	c.Matches = versionMatches(c.Want, c.Have)
	return c
}

// event is the trace's record of c.
func (c imageCheck) event(backend string) trace.Event {
	f := map[string]any{"image": c.Image, "backend": backend, "matches": c.Matches}
	if c.Toolchain != "" {
		f["toolchain"], f["want"], f["have"] = c.Toolchain, c.Want, c.Have
	}
	return trace.Raw(ImageCheckEvent, f)
}

// imageWarning is the warning an image_check event gives, or "".
func imageWarning(ev map[string]any) string {
	if ev["matches"] == true {
		return ""
	}
	image, backend := fmt.Sprint(ev["image"]), fmt.Sprint(ev["backend"])
	tc, _ := ev["toolchain"].(string)
	switch have, _ := ev["have"].(string); {
	case tc == "":
		return fmt.Sprintf("the task asks for image %s, which the %s backend does not run; its toolchain cannot be checked here, so a failed check is infra_error, not docs_gap", image, backend)
	case have == "":
		return fmt.Sprintf("the task asks for image %s (%s %s), which the %s backend does not run, and %s is not installed here; a failed check is infra_error, not docs_gap", image, tc, ev["want"], backend, tc)
	default:
		return fmt.Sprintf("the task asks for image %s (%s %s), which the %s backend does not run, and %s here is %s; a failed check is infra_error, not docs_gap", image, tc, ev["want"], backend, tc, have)
	}
}

// imageMismatch reports whether the trace holds an image_check that did
// not match, and its warning.
func imageMismatch(events []map[string]any) (bool, string) {
	for _, ev := range events {
		if ev["type"] == ImageCheckEvent {
			if w := imageWarning(ev); w != "" {
				return true, w
			}
		}
	}
	return false, ""
}
