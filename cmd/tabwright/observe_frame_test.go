package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// browser_observe reads a child frame named by path or title.
func TestObserveFrame(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/top", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Top</title><p>outside the frame</p><iframe id="f" src="/inner"></iframe>`)
	})
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Inner</title><p>inside the frame</p><button>Frame button</button><section aria-label="Box"><p>in the box</p></section>`)
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	s := startServer(t)
	h := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/top"})["tab_handle"]
	mustCall(t, s.sess, "browser_wait", map[string]any{"tab_handle": h, "condition": "network_idle"})
	for _, frame := range []map[string]any{{"path": []string{"#f"}}, {"title": "Inner"}} {
		obs := mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h, "frame": frame})
		text, _ := obs["textpreview"].(string)
		if !strings.Contains(text, "inside the frame") || strings.Contains(text, "outside the frame") {
			t.Fatalf("frame %v: text %q", frame, text)
		}
		if err := observationSchema(t).Validate(obs); err != nil {
			t.Fatal(err)
		}
	}
	// A locator scope inside the frame: found there, read there.
	boxed := mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h, "frame": map[string]any{"title": "Inner"}, "selector": "region", "selector_type": "role", "name": "Box"})
	if boxed["textpreview"] != "in the box" {
		t.Fatalf("locator scope in a frame: %v", boxed["textpreview"])
	}
	if code, path, _ := callErr(t, s.sess, "browser_observe", map[string]any{"tab_handle": h, "frame": map[string]any{"title": "Inner"}, "frame_id": "X"}); code != "invalid_input" || path != "frame" {
		t.Fatalf("frame and frame_id: %s %s", code, path)
	}
	if code, _, msg := callErr(t, s.sess, "browser_observe", map[string]any{"tab_handle": h, "frame": map[string]any{"title": "Nope"}}); code != "not_found" || !strings.Contains(msg, "no frame") {
		t.Fatalf("unknown frame: %s %s", code, msg)
	}
}
