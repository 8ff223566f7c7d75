package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// browser_observe reads a child frame named by path or title.
func TestObserveFrame(t *testing.T) {
	t.Parallel()
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
		// full: the second spelling reads the same frame, which the claim
		// would otherwise be told is unchanged.
		obs := mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h, "frame": frame, "full": true})
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

// A page's child frames, same-origin and cross-site, are read into its
// observation: their fields and elements carry the frame path a batch takes
// and a frame-prefixed ref the action tools accept, in both forms.
func TestObserveFramesInline(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Pay</title><form id="card"><label>Card number <input name="cc" autocomplete="off"></label><button type="button" onclick="document.title='paid'">Pay now</button></form>`)
	}))
	defer other.Close()
	cross := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) // another site: its own renderer
	mux := http.NewServeMux()
	mux.HandleFunc("/top", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Shop</title><p>Checkout</p><iframe id="login" src="/inner"></iframe><iframe id="pay" src="%s/pay"></iframe>`, cross)
	})
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Login</title><form><label>Email <input name="email"></label><button>Sign in</button></form>`)
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	s := startServer(t)
	h := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/top"})["tab_handle"]
	mustCall(t, s.sess, "browser_wait", map[string]any{"tab_handle": h, "condition": "network_idle"})
	res, err := s.sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser_observe", Arguments: map[string]any{"tab_handle": h}})
	if err != nil || res.IsError {
		t.Fatalf("observe: %v %v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := observationSchema(t).Validate(mustDecode(t, raw)); err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	t.Logf("%d chars of JSON; text:\n%s", len(raw), text)
	if len(raw) > 1500 {
		t.Errorf("the page with its two frames is %d characters of JSON; budget 1500", len(raw))
	}
	var obs struct {
		Interactive []struct {
			Ref, Selector, Role, Label string
			Frame                      *struct{ Path []string }
		}
	}
	json.Unmarshal(raw, &obs)
	found := map[string]string{}
	for _, e := range obs.Interactive {
		if e.Frame == nil || e.Ref == "" || e.Selector == "" || e.Role == "" {
			t.Errorf("element without its frame, ref, selector or role: %+v", e)
			continue
		}
		found[e.Label] = e.Ref
		if !strings.Contains(text, e.Ref+" ") || !strings.Contains(text, `in frame {"path":["`+e.Frame.Path[0]+`"]}`) {
			t.Errorf("text lacks %s in frame %v:\n%s", e.Ref, e.Frame.Path, text)
		}
		if e.Label == "Card number" {
			// The JSON's selector and frame path, in a batch.
			mustCall(t, s.sess, "browser_batch", map[string]any{"tab_handle": h, "steps": []any{
				map[string]any{"action": "fill", "selector": e.Selector, "frame": map[string]any{"path": e.Frame.Path}, "text": "4242"},
			}})
		}
	}
	for _, label := range []string{"Email", "Sign in", "Card number", "Pay now"} {
		if found[label] == "" {
			t.Errorf("no frame element %q: %s", label, raw)
		}
	}
	// The ref alone, in a single action.
	mustCall(t, s.sess, "browser_fill", map[string]any{"tab_handle": h, "ref": found["Email"], "text": "a@b.c"})
	mustCall(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "ref": found["Pay now"]})
	paid := mustCall(t, s.sess, "browser_observe", map[string]any{"tab_handle": h, "frame": map[string]any{"path": []string{"#pay"}}})
	if paid["title"] != "paid" {
		t.Errorf("the click in the cross-site frame did not land: %v", paid["title"])
	}
	if code, _, _ := callErr(t, s.sess, "browser_click", map[string]any{"tab_handle": h, "ref": "f9:e1"}); code != "stale_ref" {
		t.Errorf("unknown frame ref: %s", code)
	}
}

func mustDecode(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
