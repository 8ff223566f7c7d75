package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/netgate"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/internal/options"
)

// pageFlags are tabwright mcp's flags for how the managed browser and its
// pages start: profile, network, device, permissions, scripts.
type pageFlags struct {
	userDataDir  string
	storageState string
	proxyServer  string
	proxyBypass  string
	ignoreHTTPS  bool
	userAgent    string
	viewport     string
	device       string
	mobile       bool
	permissions  string
	initScripts  options.List
	browserArgs  options.List
	allowed      string
	blocked      string
}

func (f *pageFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.userDataDir, "user-data-dir", "", "keep the managed browser's profile (logins, cookies, storage) in this folder across runs (default: a fresh temporary profile each start); one browser at a time per folder")
	fs.StringVar(&f.storageState, "storage-state", "", "a storage state file (Playwright's JSON: cookies, and localStorage per origin) loaded into the managed browser as it starts")
	fs.StringVar(&f.proxyServer, "proxy-server", "", "send the managed browser's traffic through this proxy: http://, https://, socks4:// or socks5://host:port")
	fs.StringVar(&f.proxyBypass, "proxy-bypass", "", "hosts that skip --proxy-server, joined by commas (e.g. .internal.example,localhost)")
	fs.BoolVar(&f.ignoreHTTPS, "ignore-https-errors", false, "accept any TLS certificate in the managed browser (a dev server's self-signed one): pages then cannot tell a forged site from a real one")
	fs.StringVar(&f.userAgent, "user-agent", "", "the managed browser's user agent (default: its own, or --device's)")
	fs.StringVar(&f.viewport, "viewport-size", "", "every tab's viewport in CSS pixels, WIDTHxHEIGHT (e.g. 1280x720); browser_emulate changes it per tab")
	fs.StringVar(&f.device, "device", "", "every tab pretends to be this device (viewport, pixel ratio, mobile, touch, user agent); add \" landscape\" to turn it: "+strings.Join(tabs.DeviceNames(), ", "))
	fs.BoolVar(&f.mobile, "mobile", false, "every tab lays pages out as a phone does (meta viewport, touch)")
	fs.StringVar(&f.permissions, "grant-permissions", "", "permissions granted to every origin, joined by commas: "+strings.Join(tabs.PermissionNames(), ", "))
	fs.Var(&f.initScripts, "init-script", "a JavaScript file run in every document of the managed browser before the page's own scripts (repeat for several)")
	fs.Var(&f.browserArgs, "browser-arg", "an extra command-line flag for the managed browser, passed as given (repeat for several)")
	fs.StringVar(&f.allowed, "allowed-origins", "", "the only origins the managed browser may reach, joined by ';' (https://example.com, example.com:8080, *.example.com): every request is checked, loopback, redirects, workers and WebSockets too; others fail as network errors, logged with the rule")
	fs.StringVar(&f.blocked, "blocked-origins", "", "origins the managed browser may never reach, joined by ';', checked before --allowed-origins, as strictly")
}

// launchOnly are the flags that configure a browser tabwright starts, and
// so mean nothing with --cdp-url.
var launchOnly = []string{"user-data-dir", "storage-state", "proxy-server", "proxy-bypass", "ignore-https-errors", "user-agent", "browser-arg", "allowed-origins", "blocked-origins"}

// apply puts the flags into the manager's options.
func (f *pageFlags) apply(fs *flag.FlagSet, opt *tabs.Options) error {
	if opt.CDPURL != "" {
		if err := refuseWithCDP(fs); err != nil {
			return err
		}
	}
	opt.Launch.UserDataDir = f.userDataDir
	if err := f.applyScreen(opt); err != nil {
		return err
	}
	if err := f.applyNetwork(opt); err != nil {
		return err
	}
	if f.ignoreHTTPS {
		opt.Launch.Args = append(opt.Launch.Args, "--ignore-certificate-errors")
	}
	opt.Launch.Args = append(opt.Launch.Args, f.browserArgs...)
	if f.permissions != "" {
		opt.Page.Permissions = strings.Split(f.permissions, ",")
		if _, err := tabs.PermissionDescriptors(opt.Page.Permissions); err != nil {
			return err
		}
	}
	for _, path := range f.initScripts {
		src, err := os.ReadFile(path)
		if err != nil {
			return errs.Input("--init-script", "cannot read %s: %v", path, err).WithHint("give the path of a JavaScript file you can read")
		}
		opt.Page.InitScripts = append(opt.Page.InitScripts, string(src))
	}
	if f.storageState != "" {
		st, err := readStorageState(f.storageState)
		if err != nil {
			return err
		}
		opt.Page.Storage = st
	}
	return nil
}

// refuseWithCDP refuses the launch flags given with --cdp-url.
func refuseWithCDP(fs *flag.FlagSet) error {
	var given string
	fs.Visit(func(fl *flag.Flag) {
		for _, name := range launchOnly {
			if fl.Name == name && given == "" {
				given = name
			}
		}
	})
	if given == "" {
		return nil
	}
	return errs.Input("--"+given, "configures a browser tabwright starts; with --cdp-url the browser is already running").
		WithHint("start that browser with the setting, or leave --cdp-url out")
}

// applyScreen sets the tabs' screen and the user agent from --device,
// --viewport-size, --mobile and --user-agent (each later one wins).
func (f *pageFlags) applyScreen(opt *tabs.Options) error {
	var screen *tabs.Screen
	ua := f.userAgent
	if f.device != "" {
		d, ok := tabs.LookupDevice(f.device)
		if !ok {
			return errs.Input("--device", "%q is not a device tabwright knows", f.device).
				WithHint("use one of: %s (add \" landscape\" to turn it), or --viewport-size with --mobile", strings.Join(tabs.DeviceNames(), ", "))
		}
		screen = &d.Screen
		if ua == "" {
			ua = d.UserAgent
		}
	}
	if f.viewport != "" {
		w, h, err := parseSize(f.viewport)
		if err != nil {
			return err
		}
		if screen == nil {
			screen = &tabs.Screen{}
		}
		screen.Width, screen.Height = w, h
	}
	if f.mobile {
		if screen == nil {
			screen = &tabs.Screen{}
		}
		screen.Mobile, screen.Touch = true, true
	}
	opt.Page.Screen = screen
	if ua != "" {
		opt.Launch.Args = append(opt.Launch.Args, "--user-agent="+ua)
	}
	return nil
}

// maxViewport bounds each side of --viewport-size, as Chromium does.
const maxViewport = 10_000_000

// parseSize reads WIDTHxHEIGHT.
func parseSize(s string) (int, int, error) {
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	w, errW := strconv.Atoi(strings.TrimSpace(ws))
	h, errH := strconv.Atoi(strings.TrimSpace(hs))
	if !ok || errW != nil || errH != nil || w <= 0 || h <= 0 || w > maxViewport || h > maxViewport {
		return 0, 0, errs.Input("--viewport-size", "%q is not WIDTHxHEIGHT in pixels", s).WithHint("e.g. 1280x720")
	}
	return w, h, nil
}

// proxySchemes are the proxy kinds Chromium speaks.
var proxySchemes = []string{"http", "https", "socks4", "socks5"}

// applyNetwork sets how the managed browser reaches the network: its own
// proxy setting for a plain proxy, else the network gate, which enforces
// origin rules and speaks to a proxy that wants a password (Chromium takes
// none on its command line).
func (f *pageFlags) applyNetwork(opt *tabs.Options) error {
	if f.proxyBypass != "" && f.proxyServer == "" {
		return errs.Input("--proxy-bypass", "needs --proxy-server").WithHint("give the proxy with --proxy-server, or leave --proxy-bypass out")
	}
	var upstream *url.URL
	if f.proxyServer != "" {
		u, err := url.Parse(f.proxyServer)
		if err != nil || u.Host == "" || !slices.Contains(proxySchemes, u.Scheme) {
			return errs.Input("--proxy-server", "%q is not a proxy URL", redactURL(f.proxyServer)).
				WithHint("give scheme://host:port with a scheme of %s", strings.Join(proxySchemes, ", "))
		}
		upstream = u
	}
	allowed, err := netgate.ParseRules("--allowed-origins", f.allowed)
	if err != nil {
		return err
	}
	blocked, err := netgate.ParseRules("--blocked-origins", f.blocked)
	if err != nil {
		return err
	}
	bypass := strings.Split(f.proxyBypass, ",")
	if len(allowed)+len(blocked) > 0 || upstream != nil && upstream.User != nil {
		if upstream != nil && upstream.Scheme == "socks4" {
			return errs.Input("--proxy-server", "a socks4 proxy cannot carry a password or origin rules").WithHint("use an http, https or socks5 proxy")
		}
		opt.Gate = &netgate.Options{Policy: netgate.Policy{Allowed: allowed, Blocked: blocked}, Upstream: upstream, Bypass: bypass}
		return nil
	}
	if upstream != nil {
		opt.Launch.Args = append(opt.Launch.Args, "--proxy-server="+upstream.Scheme+"://"+upstream.Host)
		if f.proxyBypass != "" {
			opt.Launch.Args = append(opt.Launch.Args, "--proxy-bypass-list="+strings.Join(bypass, ";"))
		}
	}
	return nil
}

// redactURL hides a URL's password.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// redactedProxy hides the password in a --print-config line of the proxy.
func redactedProxy(line string) string {
	name, rest, _ := strings.Cut(line, " = ")
	if name != "proxy-server" {
		return line
	}
	value, where, _ := strings.Cut(rest, " (")
	raw, err := strconv.Unquote(value)
	if err != nil {
		return line
	}
	return fmt.Sprintf("%s = %q (%s", name, redactURL(raw), where)
}

// maxStorageState bounds a storage state file: cookies and small items.
const maxStorageState = 16 << 20

// readStorageState reads Playwright's storage state JSON.
func readStorageState(path string) (*tabs.StorageState, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, errs.Input("--storage-state", "cannot read %s: %v", path, err).WithHint("give the path of a storage state file you can read (browser_storage_state export writes one)")
	}
	if len(raw) > maxStorageState {
		return nil, errs.Input("--storage-state", "%s is over %d MiB", path, maxStorageState>>20).WithHint("check that --storage-state names a storage state file, not another one")
	}
	var st tabs.StorageState
	if err := checkStorageKeys(raw); err != nil {
		return nil, errs.Input("--storage-state", "%s: %v", path, err).
			WithHint(`give {"cookies": [...], "origins": [{"origin": "https://…", "localStorage": [{"name": "…", "value": "…"}]}]}, as browser_storage_state or Playwright writes it`)
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, errs.Input("--storage-state", "%s: %v", path, err).
			WithHint(`give {"cookies": [...], "origins": [{"origin": "https://…", "localStorage": [{"name": "…", "value": "…"}]}]}, as browser_storage_state or Playwright writes it`)
	}
	return &st, nil
}

// checkStorageKeys refuses a file that is not a storage state: another
// JSON file given by mistake would otherwise load nothing, silently.
func checkStorageKeys(raw []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return err
	}
	for key := range top {
		if key != "cookies" && key != "origins" {
			return fmt.Errorf("%q is not a key of a storage state (cookies, origins)", key)
		}
	}
	return nil
}
