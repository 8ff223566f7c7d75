package launch

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"runtime"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
)

// The browsers --browser names.
const (
	Chrome       = "chrome"
	ChromeBeta   = "chrome-beta"
	ChromeDev    = "chrome-dev"
	ChromeCanary = "chrome-canary"
	Edge         = "msedge"
	Chromium     = "chromium"
)

// Channels lists every --browser value, in the order a browser is chosen
// when none is named.
var Channels = []string{Chromium, Chrome, Edge, ChromeBeta, ChromeDev, ChromeCanary}

// Host is what discovery reads of the machine. Tests pass a fake one per
// OS; LocalHost is this machine.
type Host struct {
	GOOS     string
	Getenv   func(string) string
	Stat     func(string) (fs.FileInfo, error)
	LookPath func(string) (string, error) // names on PATH; nil: none
}

// LocalHost is this machine.
func LocalHost() Host {
	return Host{GOOS: runtime.GOOS, Getenv: os.Getenv, Stat: os.Stat, LookPath: exec.LookPath}
}

// Found is one installed browser.
type Found struct {
	Channel string
	Path    string
}

// install is where a channel lives on one OS: names looked up on PATH,
// then absolute paths, then paths under the roots named by environment
// variables (Windows's Program Files and LocalAppData; macOS's HOME).
type install struct {
	names []string
	paths []string
	under map[string][]string // env var -> paths below it
}

var macApps = func(app, exe string) install {
	bundle := app + ".app/Contents/MacOS/" + exe
	return install{paths: []string{"/Applications/" + bundle}, under: map[string][]string{"HOME": {"Applications/" + bundle}}}
}

// winApp is an install under Program Files, Program Files (x86) and the
// user's LocalAppData (where a per-user install goes).
func winApp(rel string) install {
	return install{under: map[string][]string{"ProgramFiles": {rel}, "ProgramFiles(x86)": {rel}, "LocalAppData": {rel}}}
}

// installs is the discovery table: OS -> channel -> where it is.
var installs = map[string]map[string]install{
	"linux": {
		Chromium:     {names: []string{"chromium", "chromium-browser"}, paths: []string{"/snap/bin/chromium"}},
		Chrome:       {names: []string{"google-chrome", "google-chrome-stable"}, paths: []string{"/opt/google/chrome/chrome"}},
		ChromeBeta:   {names: []string{"google-chrome-beta"}, paths: []string{"/opt/google/chrome-beta/chrome"}},
		ChromeDev:    {names: []string{"google-chrome-unstable"}, paths: []string{"/opt/google/chrome-unstable/chrome"}},
		ChromeCanary: {names: []string{"google-chrome-canary"}, paths: []string{"/opt/google/chrome-canary/chrome"}},
		Edge:         {names: []string{"microsoft-edge", "microsoft-edge-stable"}, paths: []string{"/opt/microsoft/msedge/msedge"}},
	},
	"darwin": {
		Chromium:     macApps("Chromium", "Chromium"),
		Chrome:       macApps("Google Chrome", "Google Chrome"),
		ChromeBeta:   macApps("Google Chrome Beta", "Google Chrome Beta"),
		ChromeDev:    macApps("Google Chrome Dev", "Google Chrome Dev"),
		ChromeCanary: macApps("Google Chrome Canary", "Google Chrome Canary"),
		Edge:         macApps("Microsoft Edge", "Microsoft Edge"),
	},
	"windows": {
		Chromium:     winApp(`Chromium\Application\chrome.exe`),
		Chrome:       winApp(`Google\Chrome\Application\chrome.exe`),
		ChromeBeta:   winApp(`Google\Chrome Beta\Application\chrome.exe`),
		ChromeDev:    winApp(`Google\Chrome Dev\Application\chrome.exe`),
		ChromeCanary: winApp(`Google\Chrome SxS\Application\chrome.exe`),
		Edge:         winApp(`Microsoft\Edge\Application\msedge.exe`),
	},
}

// rootVars is the order the environment roots are tried in.
var rootVars = []string{"HOME", "LocalAppData", "ProgramFiles", "ProgramFiles(x86)"}

// locate returns where channel is installed on h, or "".
func (h Host) locate(channel string) string {
	in, ok := installs[h.GOOS][channel]
	if !ok {
		return ""
	}
	for _, name := range in.names {
		if h.LookPath == nil {
			break
		}
		if p, err := h.LookPath(name); err == nil {
			return p
		}
	}
	for _, p := range in.paths {
		if h.isFile(p) {
			return p
		}
	}
	for _, v := range rootVars {
		root := h.Getenv(v)
		if root == "" {
			continue
		}
		for _, rel := range in.under[v] {
			if p := h.join(root, rel); h.isFile(p) {
				return p
			}
		}
	}
	return ""
}

func (h Host) isFile(p string) bool {
	st, err := h.Stat(p)
	return err == nil && !st.IsDir()
}

// join joins with the separator of h's OS, whatever this one's is.
func (h Host) join(root, rel string) string {
	if h.GOOS == "windows" {
		return strings.TrimRight(root, `\/`) + `\` + rel
	}
	return path.Join(root, rel)
}

// Discover lists the browsers installed on h, in the order of Channels.
func Discover(h Host) []Found {
	var found []Found
	for _, c := range Channels {
		if p := h.locate(c); p != "" {
			found = append(found, Found{Channel: c, Path: p})
		}
	}
	return found
}

// FindChannel returns the executable of channel on h ("" is the first
// installed in the order of Channels).
func FindChannel(h Host, channel string) (string, error) {
	if channel == "" {
		if found := Discover(h); len(found) > 0 {
			return found[0].Path, nil
		}
		return "", errs.New(errs.BrowserNotFound, "no Chromium, Chrome or Edge found (looked for $%s, then %s)", EnvChrome, strings.Join(Channels, ", ")).
			WithHint("%s", installHint(h.GOOS))
	}
	if _, ok := installs[h.GOOS][channel]; !ok {
		return "", errs.Input("browser", "--browser %q is not one of %s", channel, strings.Join(Channels, ", "))
	}
	if p := h.locate(channel); p != "" {
		return p, nil
	}
	return "", errs.New(errs.BrowserNotFound, "--browser %s is not installed where it is looked for on %s", channel, h.GOOS).
		WithHint("install it, or give its executable with --executable-path (or $%s)", EnvChrome)
}

// installHint is how to get a browser on goos.
func installHint(goos string) string {
	switch goos {
	case "linux":
		return InstallHint
	case "darwin":
		return "install Google Chrome (https://www.google.com/chrome/) or `brew install --cask chromium`, or set " + EnvChrome + " to a browser's executable"
	default:
		return "install Google Chrome (https://www.google.com/chrome/); Edge, which Windows ships, is found too; or set " + EnvChrome + " to a browser's executable"
	}
}
