package launch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
)

func TestDefaultTransportPerOS(t *testing.T) {
	for goos, want := range map[string]string{
		"linux": TransportPipe, "darwin": TransportPipe, "freebsd": TransportPipe, "windows": TransportPort,
	} {
		if got := DefaultTransport(goos); got != want {
			t.Errorf("DefaultTransport(%q) = %q, want %q", goos, got, want)
		}
	}
}

func TestReadActivePort(t *testing.T) {
	for _, c := range []struct {
		name, body string
		port       int
		path, err  string
	}{
		{"ok", "41235\n/devtools/browser/8e1b-4c\n", 41235, "/devtools/browser/8e1b-4c", ""},
		{"crlf", "41235\r\n/devtools/browser/ab\r\n", 41235, "/devtools/browser/ab", ""},
		{"port only yet", "41235\n", 0, "", "incomplete"},
		{"empty", "", 0, "", "incomplete"},
		{"not a port", "http\n/devtools/browser/ab\n", 0, "", "is not a port"},
		{"port out of range", "70000\n/devtools/browser/ab\n", 0, "", "is not a port"},
		{"other path", "41235\n/json/version\n", 0, "", "not a browser target"},
		{"another host", "41235\n/devtools/browser/x@evil.example\n", 0, "", "not a browser target"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), activePortFile)
			if err := os.WriteFile(file, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			port, path, err := readActivePort(file)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %d %q %v, want an error with %q", port, path, err, c.err)
				}
				return
			}
			if err != nil || port != c.port || path != c.path {
				t.Fatalf("got %d %q %v, want %d %q", port, path, err, c.port, c.path)
			}
		})
	}
}

// The port transport (Windows's) works against the real browser here: it
// finds the port the browser chose, connects on loopback and drives a tab.
func TestStartOverPort(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := Start(ctx, Options{Transport: TransportPort})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := cdproto.Call(ctx, b.Conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	select {
	case <-b.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("the browser still runs 5 s after Close")
	}
}

func TestStartRefusesUnknownTransport(t *testing.T) {
	_, err := Start(context.Background(), Options{Transport: "carrier-pigeon"})
	if err == nil || !strings.Contains(err.Error(), "carrier-pigeon") {
		t.Fatalf("got %v, want a refusal naming the transport", err)
	}
}
