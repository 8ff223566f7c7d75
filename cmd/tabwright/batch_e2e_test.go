package main

// End-to-end tests of browser_batch: the built binary over MCP, real
// Chromium, the fixture pages of testdata/batch.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// batchSite serves testdata/batch.
func batchSite(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.FileServer(http.Dir("../../testdata/batch")))
	t.Cleanup(srv.Close)
	return srv
}

// jsonList decodes a JSON list of steps written as text.
func jsonList(t testing.TB, s string) []any {
	t.Helper()
	var out []any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return out
}

// readValue reads one control's value with a batch of a single wait and
// the batch-level observe.
func readValue(t testing.TB, sess *mcp.ClientSession, handle, selector string) string {
	t.Helper()
	out := mustCall(t, sess, "browser_batch", map[string]any{
		"tab_handle": handle,
		"steps":      []any{map[string]any{"action": "wait", "condition": "attached", "selector": selector}},
		"observe":    map[string]any{"selector": selector},
	})
	o, _ := out["observe"].(map[string]any)
	v, _ := o["value"].(string)
	return v
}

func TestBatchOverMCP(t *testing.T) {
	t.Parallel()
	site := batchSite(t)
	s := startServer(t)
	h := mustCall(t, s.sess, "browser_open_tab", map[string]any{"url": site.URL + "/form.html"})["tab_handle"].(string)

	// Success: the 12-field form filled and submitted in one call, the
	// answer read by the final wait and the batch's observe.
	out := mustCall(t, s.sess, "browser_batch", map[string]any{
		"tab_handle": h,
		"steps": jsonList(t, `[
			{"action":"fill","selector":"Full name","selector_type":"label","text":"Ada Lovelace"},
			{"action":"fill","selector":"you@example.com","selector_type":"placeholder","text":"ada@example.com"},
			{"action":"fill","selector":"#phone","text":"+44 20 7946 0000"},
			{"action":"fill","selector":"//input[@name='company']","selector_type":"xpath","text":"Analytical Engines Ltd"},
			{"action":"fill","selector":"Street address","selector_type":"label","text":"12 St James's Square"},
			{"action":"fill","selector":"City","selector_type":"placeholder","text":"London"},
			{"action":"fill","selector":"textbox","selector_type":"role","name":"Postcode","text":"SW1Y 4JH"},
			{"action":"select_option","selector":"Country","selector_type":"label","label":"Netherlands","observe":{}},
			{"action":"click","selector":"radio","selector_type":"role","name":"Pro"},
			{"action":"click","selector":"#news"},
			{"action":"click","selector":"I accept the terms","selector_type":"label"},
			{"action":"fill","selector":"//textarea[@id='notes']","selector_type":"xpath","text":"Call after 5pm"},
			{"action":"click","selector":"button","selector_type":"role","name":"Create account"},
			{"action":"wait","condition":"text","selector":"#result","expected":"Thanks, Ada Lovelace!"}
		]`),
		"observe": map[string]any{"selector": "#result"},
	})
	steps, _ := out["steps"].([]any)
	if out["ok"] != true || len(steps) != 14 || out["failed_step"] != nil || out["elapsed_ms"] == nil {
		t.Fatalf("batch: %v", out)
	}
	for i, st := range steps {
		m := st.(map[string]any)
		if m["index"] != float64(i) || m["ok"] != true || m["action"] == "" || m["elapsed_ms"] == nil {
			t.Fatalf("step %d: %v", i, m)
		}
	}
	if v := steps[0].(map[string]any)["value"]; v != "Ada Lovelace" {
		t.Fatalf("fill read back %v", v)
	}
	if c, _ := steps[7].(map[string]any)["observe"].(map[string]any); c == nil || c["value"] != "nl" {
		t.Fatalf("step observe of the select: %v", steps[7])
	}
	obs, _ := out["observe"].(map[string]any)
	if text, _ := obs["text"].(string); !strings.Contains(text+obs["name"].(string), "plan=pro; news=on; terms=on; notes=Call after 5pm") {
		t.Fatalf("observe: %v", obs)
	}

	// Failure: the middle step fails; isError with failed_step, the error
	// and the results before it; the step after it did not run.
	mustCall(t, s.sess, "browser_navigate", map[string]any{"tab_handle": h, "url": site.URL + "/form.html"})
	out, isErr := call(t, s.sess, "browser_batch", map[string]any{
		"tab_handle": h,
		"steps": jsonList(t, `[
			{"action":"fill","selector":"#city","text":"Paris"},
			{"action":"click","selector":"button","selector_type":"role","name":"Delete account","timeout_ms":300},
			{"action":"fill","selector":"#zip","text":"75001"}
		]`),
	})
	code, path, msg := errorOf(t, out, isErr)
	if code != "not_found" || path != "steps[1]" || !strings.Contains(msg, "Delete account") {
		t.Fatalf("error: %s %s %q", code, path, msg)
	}
	steps, _ = out["steps"].([]any)
	if out["ok"] != false || out["failed_step"] != float64(1) || len(steps) != 2 {
		t.Fatalf("failed batch: %v", out)
	}
	if first := steps[0].(map[string]any); first["ok"] != true || first["value"] != "Paris" {
		t.Fatalf("prior result: %v", first)
	}
	if second := steps[1].(map[string]any); second["ok"] != false || second["error"].(map[string]any)["code"] != "not_found" {
		t.Fatalf("failed step: %v", second)
	}
	if readValue(t, s.sess, h, "#city") != "Paris" || readValue(t, s.sess, h, "#zip") != "" {
		t.Fatal("page state after the failure: the prior step must stay done, the later one not run")
	}

	// A bad batch: isError, invalid_input, every violation with its path,
	// and nothing ran (its valid first step did not fill #phone).
	out, isErr = call(t, s.sess, "browser_batch", map[string]any{
		"tab_handle": h,
		"start_at":   5,
		"steps": jsonList(t, `[
			{"action":"fill","selector":"#phone","text":"000"},
			{"action":"click","selector":"#a","settle_ms":[600,200]},
			{"action":"click","ref":"e3"},
			{"action":"wait","condition":"url","selector":"#x"}
		]`),
		"observe": map[string]any{"ref": "e1"},
	})
	code, path, _ = errorOf(t, out, isErr)
	if code != "invalid_input" || path != "steps[1].settle_ms" {
		t.Fatalf("bad batch error: %s %s (%v)", code, path, out)
	}
	var paths []string
	for _, v := range out["violations"].([]any) {
		m := v.(map[string]any)
		if m["code"] != "invalid_input" || m["message"] == "" {
			t.Fatalf("violation %v", m)
		}
		paths = append(paths, m["path"].(string))
	}
	if strings.Join(paths, " ") != "steps[1].settle_ms steps[2].ref steps[3].selector steps[3].expected start_at observe.ref" {
		t.Fatalf("violations: %v", paths)
	}
	if readValue(t, s.sess, h, "#phone") != "" {
		t.Fatal("a refused batch ran a step")
	}

	// A batch on a handle this session does not hold.
	out, isErr = call(t, s.sess, "browser_batch", map[string]any{"tab_handle": "th-nope", "steps": jsonList(t, `[{"action":"press_key","key":"Tab"}]`)})
	if code, _, _ := errorOf(t, out, isErr); code != "invalid_handle" {
		t.Fatalf("unknown handle: %s", code)
	}
}
