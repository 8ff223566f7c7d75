package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
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
