package launch

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
)

// fakeHost is an OS with the given files installed, environment and PATH.
func fakeHost(goos string, files []string, env map[string]string, onPath map[string]string) Host {
	return Host{
		GOOS:   goos,
		Getenv: func(k string) string { return env[k] },
		Stat: func(p string) (fs.FileInfo, error) {
			if slices.Contains(files, p) {
				return fakeFile{}, nil
			}
			if strings.HasSuffix(p, ".app") || strings.HasSuffix(p, "Application") {
				return fakeFile{dir: true}, nil
			}
			return nil, fs.ErrNotExist
		},
		LookPath: func(name string) (string, error) {
			if p, ok := onPath[name]; ok {
				return p, nil
			}
			return "", errors.New("not on PATH")
		},
	}
}

type fakeFile struct{ dir bool }

func (f fakeFile) Name() string       { return "f" }
func (f fakeFile) Size() int64        { return 1 }
func (f fakeFile) Mode() fs.FileMode  { return 0o755 }
func (f fakeFile) ModTime() time.Time { return time.Time{} }
func (f fakeFile) IsDir() bool        { return f.dir }
func (f fakeFile) Sys() any           { return nil }

var winEnv = map[string]string{
	"ProgramFiles":      `C:\Program Files`,
	"ProgramFiles(x86)": `C:\Program Files (x86)`,
	"LocalAppData":      `C:\Users\ada\AppData\Local`,
}

func TestDiscoverPerOS(t *testing.T) {
	for _, c := range []struct {
		name   string
		host   Host
		want   []Found
		wanted map[string]string // --browser -> path, or "" for not installed
	}{{
		name: "linux, distribution chromium and Google's Chrome",
		host: fakeHost("linux", []string{"/opt/google/chrome/chrome", "/opt/google/chrome-beta/chrome"}, nil,
			map[string]string{"chromium": "/usr/bin/chromium"}),
		want:   []Found{{Chromium, "/usr/bin/chromium"}, {Chrome, "/opt/google/chrome/chrome"}, {ChromeBeta, "/opt/google/chrome-beta/chrome"}},
		wanted: map[string]string{Chrome: "/opt/google/chrome/chrome", Edge: "", ChromeCanary: ""},
	}, {
		name: "linux, Edge on PATH, snap chromium",
		host: fakeHost("linux", []string{"/snap/bin/chromium"}, nil, map[string]string{"microsoft-edge-stable": "/usr/bin/microsoft-edge-stable"}),
		want: []Found{{Chromium, "/snap/bin/chromium"}, {Edge, "/usr/bin/microsoft-edge-stable"}},
	}, {
		name: "darwin, Chrome system-wide, Canary in the user's Applications",
		host: fakeHost("darwin", []string{
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			"/Users/ada/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary",
		}, map[string]string{"HOME": "/Users/ada"}, nil),
		want: []Found{
			{Chrome, "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"},
			{ChromeCanary, "/Users/ada/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary"},
		},
		wanted: map[string]string{Chromium: "", Edge: ""},
	}, {
		name: "darwin, nothing installed, an empty app bundle",
		host: fakeHost("darwin", nil, map[string]string{"HOME": "/Users/ada"}, nil),
	}, {
		name: "windows, Edge in Program Files (x86), Chrome per user, Canary (SxS)",
		host: fakeHost("windows", []string{
			`C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`,
			`C:\Users\ada\AppData\Local\Google\Chrome\Application\chrome.exe`,
			`C:\Users\ada\AppData\Local\Google\Chrome SxS\Application\chrome.exe`,
		}, winEnv, map[string]string{"chromium": `C:\tools\chromium.exe`}),
		want: []Found{
			{Chrome, `C:\Users\ada\AppData\Local\Google\Chrome\Application\chrome.exe`},
			{Edge, `C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`},
			{ChromeCanary, `C:\Users\ada\AppData\Local\Google\Chrome SxS\Application\chrome.exe`},
		},
		wanted: map[string]string{Edge: `C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`, ChromeBeta: ""},
	}, {
		name: "windows, a per-user Chrome comes before a system-wide one (the user installed it for themselves)",
		host: fakeHost("windows", []string{
			`C:\Program Files\Google\Chrome\Application\chrome.exe`,
			`C:\Users\ada\AppData\Local\Google\Chrome\Application\chrome.exe`,
		}, winEnv, nil),
		want: []Found{{Chrome, `C:\Users\ada\AppData\Local\Google\Chrome\Application\chrome.exe`}},
	}} {
		t.Run(c.name, func(t *testing.T) {
			got := Discover(c.host)
			if !slices.Equal(got, c.want) {
				t.Fatalf("Discover:\n got %v\nwant %v", got, c.want)
			}
			for channel, want := range c.wanted {
				p, err := FindChannel(c.host, channel)
				if want == "" {
					if errs.Code(err) != errs.BrowserNotFound || !strings.Contains(err.Error(), channel) {
						t.Errorf("--browser %s: %q %v, want browser_not_found naming it", channel, p, err)
					}
					continue
				}
				if err != nil || p != want {
					t.Errorf("--browser %s: %q %v, want %q", channel, p, err, want)
				}
			}
			first, err := FindChannel(c.host, "")
			if len(c.want) == 0 {
				if errs.Code(err) != errs.BrowserNotFound || !strings.Contains(err.Error(), EnvChrome) {
					t.Errorf("nothing installed: %q %v, want browser_not_found with a hint naming %s", first, err, EnvChrome)
				}
			} else if first != c.want[0].Path {
				t.Errorf("no --browser: %q, want the first found, %q", first, c.want[0].Path)
			}
		})
	}
}

func TestFindChannelRefusesUnknownName(t *testing.T) {
	_, err := FindChannel(fakeHost("linux", nil, nil, nil), "firefox")
	if errs.Code(err) != errs.InvalidInput || !strings.Contains(err.Error(), "chrome-canary") {
		t.Fatalf("got %v, want invalid_input listing the channels", err)
	}
}

// Every OS's table names every channel.
func TestInstallTablesAreComplete(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, c := range Channels {
			in, ok := installs[goos][c]
			if !ok || len(in.names)+len(in.paths)+len(in.under) == 0 {
				t.Errorf("%s: no place to look for %s", goos, c)
			}
		}
	}
}

func TestResolvePrecedence(t *testing.T) {
	t.Setenv(EnvChrome, "/nonexistent/from-env")
	if _, err := Resolve(Options{Exec: "/nonexistent/flag"}); err == nil || !strings.Contains(err.Error(), "--executable-path") {
		t.Fatalf("--executable-path: %v, want it named and refused", err)
	}
	if _, err := Resolve(Options{}); err == nil || !strings.Contains(err.Error(), EnvChrome) {
		t.Fatalf("no flag: %v, want $%s refused", err, EnvChrome)
	}
	if _, err := Resolve(Options{Browser: "netscape"}); errs.Code(err) != errs.InvalidInput {
		t.Fatalf("--browser netscape: %v, want invalid_input", err)
	}
}
