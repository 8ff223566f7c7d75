package appbrowser

import (
	"strings"
	"testing"
)

// The browser's rule and its messages agree: any loopback port is the
// app's (127.0.0.1, localhost and *.localhost alike) but the docs route's ports; a
// refusal names which of the two rules refused.
func TestReach(t *testing.T) {
	t.Parallel()
	r := NewReach([]string{"http://127.0.0.1:4100/start", "https://docs.example.com/a"})
	for raw, want := range map[string]string{
		"http://127.0.0.1:5173/":          "",
		"http://localhost:8000/x":         "",
		"http://[::1]:3000/":              "",
		"http://app.localhost:3000/":      "", // *.localhost is the loopback too (netgate.IsLoopback)
		"http://app.localhost:4100/":      "agent_browser.docs_port",
		"http://127.0.0.1:4100/start":     "agent_browser.docs_port",
		"http://localhost:4100/other":     "agent_browser.docs_port",
		"https://docs.example.com/a":      "agent_browser.not_loopback",
		"http://10.0.0.1:5173/":           "agent_browser.not_loopback",
		"file:///etc/passwd":              "agent_browser.bad_url",
		"http://example.com:80@127.0.0.1": "", // the host is 127.0.0.1
	} {
		got := r.URLRefusal(raw)
		if want == "" && got != "" || want != "" && !strings.HasPrefix(got, want+":") {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
}
