// Package testimage builds the container image the container backend's
// tests run in, from Debian packages installed on this machine (bash, its
// libraries and busybox-static), imported with the engine's `import`: no
// registry, no network. The image is tagged by a hash of its recipe and of
// the packages' versions, so a second run finds it built.
//
// It imports nothing of tabwright's.
package testimage

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Marker is the content of MarkerFile in the image, a file no host has.
const (
	MarkerFile = "/etc/tabwright-test-image"
	Marker     = "built-by-tabwright-tests"
	// EnvVar is set by the image's own configuration (its ENV).
	EnvVar   = "QS_TEST_IMAGE_ENV"
	EnvValue = "from-the-image"
)

// packages are unpacked into the image's root.
var packages = []string{"bash", "libc6", "libtinfo6", "busybox-static"}

// recipe makes the root in $ROOT from the packages' installed files
// (documentation, locales and charset modules left out), then links
// busybox's applets that bash does not provide.
const recipe = `set -eu
mkdir -p "$ROOT/usr/bin" "$ROOT/usr/sbin" "$ROOT/usr/lib" "$ROOT/usr/lib64" "$ROOT/etc"
for top in bin sbin lib lib64; do
  if [ -L "/$top" ]; then ln -s "$(readlink "/$top")" "$ROOT/$top"; fi
done
dpkg -L $PACKAGES | grep -v -e '^/usr/share' -e '/gconv' -e '/usr/lib/locale' -e '^/\.$' | while read -r f; do
  if [ -L "$f" ] || [ -f "$f" ]; then echo "${f#/}"; fi
done | tar -C / -cf - --no-recursion -T - | tar -C "$ROOT" -xf -
for a in $(busybox --list); do
  if [ ! -e "$ROOT/usr/bin/$a" ] && [ ! -e "$ROOT/usr/sbin/$a" ] && [ ! -e "$ROOT/bin/$a" ]; then ln -s /bin/busybox "$ROOT/usr/bin/$a"; fi
done
echo "$MARKER" > "$ROOT$MARKER_FILE"
echo "root:x:0:0:root:/root:/bin/bash" > "$ROOT/etc/passwd"
echo "root:x:0:" > "$ROOT/etc/group"
`

// Build returns the tag of the test image on the engine at enginePath
// (docker or podman), building it when it is not there. It fails the test
// when a package is missing: CI installs them (.ci/run).
func Build(t testing.TB, enginePath string) string {
	t.Helper()
	versions, err := exec.Command("dpkg-query", append([]string{"-W", "-f", "${Package} ${Version}\n"}, packages...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("the test image is made of Debian packages %v, not all installed here: %v: %s; apt-get install -y %s", packages, err, versions, strings.Join(packages, " "))
	}
	sum := sha256.Sum256([]byte(recipe + EnvVar + EnvValue + string(versions)))
	tag := "localhost/tabwright-qs-test:" + hex.EncodeToString(sum[:6])
	if exec.Command(enginePath, "image", "inspect", tag).Run() == nil {
		return tag
	}
	root := t.TempDir()
	tarball := filepath.Join(t.TempDir(), "root.tar")
	sh := exec.Command("bash", "-c", recipe)
	sh.Env = append(os.Environ(), "ROOT="+root, "PACKAGES="+strings.Join(packages, " "), "MARKER="+Marker, "MARKER_FILE="+MarkerFile)
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("making the test image's root: %v: %s", err, out)
	}
	if out, err := exec.Command("tar", "-C", root, "-cf", tarball, ".").CombinedOutput(); err != nil {
		t.Fatalf("packing the test image's root: %v: %s", err, out)
	}
	if out, err := exec.Command(enginePath, "import", "--change", "ENV "+EnvVar+"="+EnvValue, tarball, tag).CombinedOutput(); err != nil {
		t.Fatalf("importing the test image: %v: %s", err, out)
	}
	return tag
}
