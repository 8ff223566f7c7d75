package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// refPages serves pages whose buttons count their clicks in the page's
// text ("Delete account clicked 0"), so a test reads what was clicked.
func refPages(t *testing.T) *httptest.Server {
	button := func(label string) string {
		id := strings.ReplaceAll(strings.ToLower(label), " ", "-")
		return fmt.Sprintf(`<p><button onclick="this.nextElementSibling.textContent = +this.nextElementSibling.textContent + 1">%s</button> clicked <span id="%s">0</span></p>`, label, id)
	}
	pages := map[string]string{
		"/a":     `<title>A</title>` + button("Delete account"),
		"/b":     `<title>B</title>` + button("Save draft"),
		"/top":   `<title>Top</title>` + button("Main button") + `<iframe src="/inner"></iframe>`,
		"/inner": `<title>Inner</title>` + button("Frame button") + `<a href="/inner?again">Again</a>`,
		"/first": `<title>First</title>` + button("Next"),
		"/then":  `<title>Then</title>` + button("Delete everything"),
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, pages[r.URL.Path])
		if r.URL.RawQuery == "again" {
			fmt.Fprint(w, `<p id="again">loaded again</p>`)
		}
	}))
	t.Cleanup(site.Close)
	return site
}

// refOf is the ref of the observation's element labelled label.
func refOf(t *testing.T, obs map[string]any, label string) string {
	t.Helper()
	list, _ := obs["interactive"].([]any)
	for _, e := range list {
		if m, _ := e.(map[string]any); m["label"] == label {
			return m["ref"].(string)
		}
	}
	t.Fatalf("no element %q in %v", label, obs["interactive"])
	return ""
}

// clicks is what the page's counter for label says.
func clicks(t *testing.T, s *server, h any, frame map[string]any, label string) string {
	t.Helper()
	args := map[string]any{"tab_handle": h, "include": []string{"text"}}
	if frame != nil {
		args["frame"] = frame
	}
	text, _ := mustCall(t, s.sess, "browser_observe", args)["textpreview"].(string)
	_, after, ok := strings.Cut(text, label+" clicked ")
	if !ok {
		t.Fatalf("no counter for %q in %q", label, text)
	}
	return strings.Fields(after)[0]
}

// Refs belong to one tab's latest document and frame: a ref used with
// another tab, or after its document changed, fails with stale_ref and acts
// nowhere; a child frame's ref acts in that frame.
func TestRefsStayInTheirDocument(t *testing.T) {
	t.Parallel()
	site := refPages(t)
	s := startServer(t)
	open := func(path string) any {
		h := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + path})["tab_handle"]
		mustCall(t, s.sess, "browser_wait", map[string]any{"tab_handle": h, "condition": "network_idle"})
		return h
	}

	t.Run("another tab's ref", func(t *testing.T) {
		a, b := open("/a"), open("/b")
		deleteRef := refOf(t, mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": a}), "Delete account")
		saveRef := refOf(t, mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": b}), "Save draft")
		if deleteRef == saveRef {
			t.Errorf("two tabs' first elements share the ref %s", saveRef)
		}
		code, path, msg := callErr(t, s.sess, "browser_click", map[string]any{"tab_handle": a, "ref": saveRef})
		if code != "stale_ref" || path != "ref" || !strings.Contains(msg, saveRef) {
			t.Errorf("tab B's ref with tab A's handle: %s %s %q", code, path, msg)
		}
		if n := clicks(t, s, a, nil, "Delete account"); n != "0" {
			t.Fatalf("tab B's ref clicked tab A's Delete account %s times", n)
		}
		mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": b, "ref": saveRef})
		if n := clicks(t, s, b, nil, "Save draft"); n != "1" {
			t.Errorf("the ref in its own tab: Save draft clicked %s times", n)
		}
	})

	t.Run("a frame-scoped observation's ref", func(t *testing.T) {
		h := open("/top")
		mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h}) // the main document's refs exist too
		frame := map[string]any{"path": []string{"iframe"}}
		inFrame := mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h, "frame": frame})
		mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "ref": refOf(t, inFrame, "Frame button")})
		if n := clicks(t, s, h, frame, "Frame button"); n != "1" {
			t.Errorf("Frame button clicked %s times", n)
		}
		if n := clicks(t, s, h, nil, "Main button"); n != "0" {
			t.Errorf("the frame's ref clicked the main page's button %s times", n)
		}
		// The frame navigates: its old refs are stale, the main page's not.
		mainRef := refOf(t, mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h}), "Main button")
		old := refOf(t, inFrame, "Frame button")
		mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "ref": refOf(t, inFrame, "Again")})
		mustCall(t, s.sess, "browser_wait", map[string]any{"tab_handle": h, "frame": frame, "selector": "#again", "condition": "attached"})
		mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h, "frame": frame})
		if code, _, _ := callErr(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "ref": old}); code != "stale_ref" {
			t.Errorf("a ref of the frame's earlier document: %s", code)
		}
		mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "ref": mainRef})
		if n := clicks(t, s, h, nil, "Main button"); n != "1" {
			t.Errorf("the main page's ref after the frame reloaded: clicked %s times", n)
		}
	})

	t.Run("a ref after a navigation", func(t *testing.T) {
		h := open("/first")
		next := refOf(t, mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h}), "Next")
		mustCall(t, s.sess, "browser_navigate", map[string]any{"tab_handle": h, "url": site.URL + "/then"})
		if code, _, _ := callErr(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "ref": next}); code != "stale_ref" {
			t.Errorf("before observing the new document: %s", code)
		}
		mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h}) // the new document hands out its refs
		code, _, msg := callErr(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "ref": next})
		if code != "stale_ref" {
			t.Errorf("after observing the new document: %s %s", code, msg)
		}
		if n := clicks(t, s, h, nil, "Delete everything"); n != "0" {
			t.Fatalf("the old page's ref clicked the new page's button %s times", n)
		}
	})
}
