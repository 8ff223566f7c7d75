package run

import (
	"context"
	"fmt"
	"os/exec"
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
const ImageCheckEvent trace.Type = "image_check"

// versionOutputChars bounds what a toolchain's version command may print:
// a version is at its start.
const versionOutputChars = 2000

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

// compareImageToolchain compares t's image with the toolchain sb's commands get.
func compareImageToolchain(ctx context.Context, image string, sb *sandbox.Sandbox) imageCheck {
	c := imageCheck{Image: image}
	name, tag := parseImage(image)
	tc, ok := imageToolchains[name]
	if !ok {
		return c
	}
	c.Toolchain, c.Want = tc.name, leadingVersion.FindString(tag)
	r := sb.Run(ctx, tc.command, sandbox.Options{Timeout: 30 * time.Second, MaxChars: versionOutputChars})
	if r.ExitCode == 0 {
		c.Have = anyVersion.FindString(strings.TrimPrefix(strings.TrimSpace(r.Output), "go version go"))
	}
	c.Matches = versionMatches(c.Want, c.Have)
	return c
}

// event is the trace's record of c.
func (c imageCheck) event(backend string) trace.Event {
	f := map[string]any{"image": c.Image, "backend": backend, "matches": c.Matches, "engines": installedEngines()}
	if c.Toolchain != "" {
		f["toolchain"], f["want"], f["have"] = c.Toolchain, c.Want, c.Have
	}
	return trace.Raw(ImageCheckEvent, f)
}

// The warnings' stable codes: the image's toolchain differs from the
// backend's (or is missing there), or cannot be told from the image's name.
const (
	ImageToolchainMismatch = "qs.image_toolchain_mismatch"
	ImageUnchecked         = "qs.image_unchecked"
)

// imageFix is what a warning tells the user to do: install an engine when
// none is, else use the one that is (and, if it cannot pull, bring the
// image over or use a mirror). ev's engines are those installed when the
// attempt ran.
func imageFix(ev map[string]any) string {
	engines := trace.StringsOf(ev, "engines")
	if len(engines) == 0 {
		return "to run the task in its image, install Podman or Docker (--backend auto then uses it) or pass --backend container"
	}
	return fmt.Sprintf("%s is installed: --backend container (or auto, when it answers) runs the task in its image; where it cannot pull %v, load the image from a machine that can (%s save, then %s load) or use a registry mirror",
		strings.Join(engines, " and "), ev["image"], engines[0], engines[0])
}

// installedEngines are the container engines on PATH, answering or not.
func installedEngines() []string {
	var found []string
	for _, n := range []string{"podman", "docker"} {
		if _, err := exec.LookPath(n); err == nil {
			found = append(found, n)
		}
	}
	return found
}

// ImageWarning is the warning an image_check event gives (the console
// prints it as the event comes, the run's warnings keep it), or "" when the
// toolchain matched.
func ImageWarning(ev map[string]any) string {
	if ev["matches"] == true {
		return ""
	}
	image, backend := fmt.Sprint(ev["image"]), fmt.Sprint(ev["backend"])
	if mismatch := imageMismatchOf(ev); mismatch != "" {
		return fmt.Sprintf("%s: %s; a failed check is infra_error, not docs_gap; %s", ImageToolchainMismatch, mismatch, imageFix(ev))
	}
	return fmt.Sprintf("%s: the task asks for image %s, which the %s backend does not run, and its toolchain cannot be told from its name; the run is scored as usual; %s", ImageUnchecked, image, backend, imageFix(ev))
}

// imageMismatchOf says how an image_check event's toolchain differs from
// the image's ("" when it matched or the image's toolchain is unknown).
func imageMismatchOf(ev map[string]any) string {
	tc, _ := ev["toolchain"].(string)
	if ev["matches"] == true || tc == "" {
		return ""
	}
	want := tc
	if w, _ := ev["want"].(string); w != "" {
		want += " " + w
	}
	have := tc + " is not installed"
	if h, _ := ev["have"].(string); h != "" {
		have = tc + " is " + h
	}
	return fmt.Sprintf("image %s has %s, but the %v backend runs the host's toolchain, where %s", ev["image"], want, ev["backend"], have)
}

// imageMismatch is how the trace's image_check found the backend's
// toolchain to differ from the image's, or "".
func imageMismatch(events []map[string]any) string {
	for _, ev := range events {
		if trace.TypeOf(ev) == ImageCheckEvent {
			return imageMismatchOf(ev)
		}
	}
	return ""
}
