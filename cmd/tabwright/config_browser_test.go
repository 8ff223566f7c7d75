package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/tabs"
)

// managerFromFlags builds the manager tabwright mcp would from args.
func managerFromFlags(t *testing.T, args ...string) *tabs.Manager {
	t.Helper()
	f := newMCPFlags()
	if _, err := f.parse(args, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	opt := tabs.Options{Launch: f.browser.launchOptions()}
	if err := f.page.apply(f.fs, &opt); err != nil {
		t.Fatal(err)
	}
	m, err := tabs.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// pageText opens url in a new tab of m and returns its text, or the
// navigation's error.
func pageText(t *testing.T, m *tabs.Manager, url string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opened, err := m.Open(ctx, tabs.OpenOptions{Owner: "s", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := opened.Tab.Navigate(ctx, tabs.Navigation{URL: url}); err != nil {
		return "", err
	}
	var text string
	err = opened.Tab.Eval(ctx, "document.body.innerText", &text)
	return text, err
}

// The flags handed to Chromium as they are have their effect on a page,
// and the page is different without them.
func TestBrowserFlagsReachThePage(t *testing.T) {
	t.Parallel()
	echo := func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<p>host %s, language %s", r.Host, r.Header.Get("Accept-Language"))
	}
	tlsSite := httptest.NewTLSServer(http.HandlerFunc(echo))
	t.Cleanup(tlsSite.Close)
	proxy := httptest.NewServer(http.HandlerFunc(echo)) // answers any host, as a proxy in front of a site
	t.Cleanup(proxy.Close)

	plain := managerFromFlags(t)
	if _, err := pageText(t, plain, tlsSite.URL); err == nil {
		t.Error("a self-signed site loaded without --ignore-https-errors")
	}
	if _, err := pageText(t, plain, "http://intranet.example/"); err == nil {
		t.Error("an intranet name loaded without --proxy-server")
	}

	configured := managerFromFlags(t, "--ignore-https-errors", "--proxy-server", proxy.URL, "--proxy-bypass", "127.0.0.1", "--browser-arg=--accept-lang=fr-FR")
	text, err := pageText(t, configured, tlsSite.URL)
	if err != nil || !strings.Contains(text, "language fr-FR") {
		t.Errorf("self-signed site with the flags: %q, %v", text, err)
	}
	text, err = pageText(t, configured, "http://intranet.example/")
	if err != nil || !strings.HasPrefix(text, "host intranet.example") {
		t.Errorf("intranet name through the proxy: %q, %v", text, err)
	}
}

// --device, --user-agent, --viewport-size, --mobile, --grant-permissions
// and --init-script, given as a config file and a variable, shape what a
// page sees from its first script on.
func TestPageFlagsShapeThePage(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><meta name="viewport" content="width=device-width"><script>document.documentElement.dataset.init = String(window.initRan === true)</script><p>page`)
	}))
	t.Cleanup(site.Close)
	dir := t.TempDir()
	script := filepath.Join(dir, "init.js")
	os.WriteFile(script, []byte("window.initRan = true;"), 0o600)
	config := filepath.Join(dir, "tabwright.json")
	os.WriteFile(config, []byte(`{"device": "iPhone 13", "viewport-size": "360x700", "grant-permissions": "geolocation", "init-script": [`+strconv.Quote(script)+`]}`), 0o600)
	t.Setenv("TABWRIGHT_USER_AGENT", "tabwright-test-agent/1.0")

	m := managerFromFlags(t, "--config", config)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opened, err := m.Open(ctx, tabs.OpenOptions{Owner: "s", URL: "about:blank", Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := opened.Tab.Navigate(ctx, tabs.Navigation{URL: site.URL}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Init  string  `json:"init"`
		Width int     `json:"width"`
		Ratio float64 `json:"ratio"`
		Touch int     `json:"touch"`
		UA    string  `json:"ua"`
		Geo   string  `json:"geo"`
	}
	err = opened.Tab.Eval(ctx, `(async () => ({init: document.documentElement.dataset.init, width: innerWidth, ratio: devicePixelRatio,
		touch: navigator.maxTouchPoints, ua: navigator.userAgent, geo: (await navigator.permissions.query({name: "geolocation"})).state}))()`, &got)
	if err != nil {
		t.Fatal(err)
	}
	if got.Init != "true" || got.Width != 360 || got.Ratio != 3 || got.Touch != 5 || got.UA != "tabwright-test-agent/1.0" || got.Geo != "granted" {
		t.Fatalf("the page saw %+v", got)
	}
}
