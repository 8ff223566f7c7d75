// Package launch finds and starts Chromium, or attaches to a browser that
// already exposes a DevTools endpoint.
package launch

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/tabwright/tabwright/engine/errs"
)

// EnvChrome names the environment variable that overrides browser discovery.
const EnvChrome = "TABWRIGHT_CHROME"

// headlessShells are Chromium's headless-only builds (Debian package
// chromium-headless-shell). Measured here they answer on the DevTools pipe
// in about 0.45 s against 0.7 s for the full browser, so a headless managed
// browser prefers them.
var headlessShells = []string{"chromium-headless-shell", "headless_shell", "/usr/lib/chromium/chromium-headless-shell"}

// InstallHint is the command that installs a browser on Debian and Ubuntu
// (installHint has the other OSes').
const InstallHint = "apt-get install -y chromium (as root), or set " + EnvChrome + " to a Chromium or Chrome binary"

// Find returns the browser executable to start: $TABWRIGHT_CHROME, else
// the first browser installed in the order of Channels (discover.go).
// Distribution wrapper scripts are resolved to the real binary so that
// signals and the parent-death signal reach the browser itself rather than
// a shell.
func Find() (string, error) {
	if p := os.Getenv(EnvChrome); p != "" {
		return executable(p, "$"+EnvChrome)
	}
	p, err := FindChannel(LocalHost(), "")
	if err != nil {
		return "", err
	}
	return realBinary(p, filepath.Base(p)), nil
}

// FindHeadless is Find for a headless browser: $TABWRIGHT_CHROME, then a
// headless shell, then the full browsers.
func FindHeadless() (string, error) {
	if os.Getenv(EnvChrome) != "" {
		return Find()
	}
	if p, ok := findOnPath(headlessShells); ok {
		return p, nil
	}
	return Find()
}

// Resolve returns the executable opt asks for: Exec (--executable-path),
// else the Browser channel (--browser), else Find or FindHeadless.
func Resolve(opt Options) (string, error) {
	switch {
	case opt.Exec != "":
		return executable(opt.Exec, "--executable-path")
	case opt.Browser != "":
		p, err := FindChannel(LocalHost(), opt.Browser)
		if err != nil {
			return "", err
		}
		return realBinary(p, filepath.Base(p)), nil
	case opt.Headful:
		return Find()
	default:
		return FindHeadless()
	}
}

// executable checks that p, given by what, is a file.
func executable(p, what string) (string, error) {
	if st, err := os.Stat(p); err != nil || st.IsDir() {
		return "", errs.New(errs.BrowserNotFound, "%s %q is not an executable file", what, p).
			WithHint("point %s at a Chromium, Chrome or Edge executable, or leave it out to search (tabwright doctor lists what it finds)", what)
	}
	return p, nil
}

func findOnPath(names []string) (string, bool) {
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return realBinary(p, filepath.Base(name)), true
		}
	}
	return "", false
}

// realBinary resolves a wrapper script (Debian's /usr/bin/chromium execs
// /usr/lib/chromium/chromium) to the binary it starts.
func realBinary(path, name string) string {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		resolved = path
	}
	if !isScript(resolved) {
		return resolved
	}
	// Google's and Microsoft's wrappers sit beside their binary (in /opt);
	// distributions put theirs in /usr/bin and the binary under /usr/lib.
	for _, dir := range []string{filepath.Dir(resolved), "/usr/lib/" + name, "/usr/lib64/" + name, "/usr/lib/chromium", "/usr/lib/chromium-browser"} {
		for _, bin := range []string{name, "chromium", "chrome", "msedge"} {
			p := filepath.Join(dir, bin)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 && !isScript(p) {
				return p
			}
		}
	}
	return resolved
}

func isScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return bytes.Equal(head[:n], []byte("#!"))
}
