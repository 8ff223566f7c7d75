package docs

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ExpectHandler answers qs_browser_expect: GET ?url=U&text=S renders U in a
// fresh tab of the browser that browser returns and answers "ok: …" when
// the page's visible text shows S (whitespace runs compared as one space),
// otherwise what the page shows. U must be http or https: the check renders
// web pages, never the harness's files. The answer is 200 once the request
// is well formed; the helper reads the first word.
//
// The handler serves no port of its own: the harness mounts it where only
// the running check reaches it (the egress proxy's harness host, behind the
// check's key), and browser is a Chromium whose network obeys the task's
// egress policy.
func ExpectHandler(browser func(ctx context.Context) (*tabs.Manager, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, text := r.URL.Query().Get("url"), r.URL.Query().Get("text")
		if err := CheckExpectURL(u); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if strings.TrimSpace(text) == "" {
			http.Error(w, "qs_browser_expect: give a non-empty text to look for", http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 45*time.Second)
		defer cancel()
		m, err := browser(ctx)
		if err != nil {
			fmt.Fprintf(w, "error: the check's browser did not start: %v", err)
			return
		}
		fmt.Fprint(w, expect(ctx, m, u, text))
	})
}

// CheckExpectURL accepts an absolute http(s) URL with a host, and says
// what else was given.
func CheckExpectURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs():
		return fmt.Errorf("qs_browser_expect renders an absolute http(s) URL (http://127.0.0.1:$QS_PORT/...); got %q", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("qs_browser_expect renders http(s) pages only, not %s: URLs (%q)", u.Scheme, raw)
	case u.Hostname() == "":
		return fmt.Errorf("qs_browser_expect: %q names no host", raw)
	}
	return nil
}

func expect(ctx context.Context, m *tabs.Manager, u, text string) string {
	opened, _, err := m.OpenAndLoad(ctx, tabs.OpenOptions{Owner: "qs-check", URL: u})
	if opened != nil {
		defer m.CloseTab(context.Background(), "qs-check", opened.Tab.Handle())
	}
	if err != nil {
		return fmt.Sprintf("error: %v", err)
	}
	obs, err := observe.Capture(ctx, opened.Tab, observe.Options{MaxChars: observe.LimitMaxChars, AllText: true})
	if err != nil {
		return fmt.Sprintf("error: %v", err)
	}
	if strings.Contains(strings.Join(strings.Fields(obs.TextPreview), " "), strings.Join(strings.Fields(text), " ")) {
		return fmt.Sprintf("ok: %s shows %q", u, text)
	}
	return fmt.Sprintf("the page (title %q) shows: %.300s", obs.Title, obs.TextPreview)
}
