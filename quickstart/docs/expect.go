package docs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ExpectHandler answers qs_browser_expect: GET ?url=U&text=S renders U in a
// fresh tab of m and answers "ok: …" when the page's visible text shows S
// (whitespace runs compared as one space), otherwise what the page shows.
// The answer is always 200 once the request is well formed; the helper
// reads the first word.
func ExpectHandler(m *tabs.Manager) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, text := r.URL.Query().Get("url"), r.URL.Query().Get("text")
		if tabs.CheckURL("url", u) != nil || strings.TrimSpace(text) == "" {
			http.Error(w, "give url (absolute http(s)) and a non-empty text", http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 45*time.Second)
		defer cancel()
		opened, _, err := m.OpenAndLoad(ctx, tabs.OpenOptions{Owner: "qs-check", URL: u})
		if opened != nil {
			defer m.CloseTab(context.Background(), "qs-check", opened.Tab.Handle())
		}
		if err != nil {
			fmt.Fprintf(w, "error: %v", err)
			return
		}
		obs, err := observe.Capture(ctx, opened.Tab, observe.Options{MaxChars: observe.LimitMaxChars})
		if err != nil {
			fmt.Fprintf(w, "error: %v", err)
			return
		}
		if strings.Contains(strings.Join(strings.Fields(obs.TextPreview), " "), strings.Join(strings.Fields(text), " ")) {
			fmt.Fprintf(w, "ok: %s shows %q", u, text)
			return
		}
		fmt.Fprintf(w, "the page (title %q) shows: %.300s", obs.Title, obs.TextPreview)
	})
}

// ExpectServer serves ExpectHandler on loopback at /expect; the URL to give
// checks is Server.URL + "/expect".
func ExpectServer(m *tabs.Manager) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/expect", ExpectHandler(m))
	return httptest.NewServer(mux)
}
