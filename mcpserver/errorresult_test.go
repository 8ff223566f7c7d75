package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/errs"
)

func TestErrorResult(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		want      map[string]string // the structured "error" object
		text      []string          // substrings of the text content
		notInText []string
	}{
		{
			name: "input error with hint",
			err:  errs.Input("url", "must be an absolute http(s), file or about URL; got %q", "example.com").WithHint("include the scheme, e.g. https://example.com/"),
			want: map[string]string{"code": "invalid_input", "message": `must be an absolute http(s), file or about URL; got "example.com"`, "path": "url", "hint": "include the scheme, e.g. https://example.com/"},
			text: []string{"error invalid_input at url: must be an absolute", "\nnext: include the scheme, e.g. https://example.com/"},
		},
		{
			name:      "input error without hint",
			err:       errs.Input("tab_id", "is required"),
			want:      map[string]string{"code": "invalid_input", "message": "is required", "path": "tab_id"},
			text:      []string{"invalid_input", "at tab_id", "is required"},
			notInText: []string{"next:"},
		},
		{
			name:      "coded error without path",
			err:       errs.New(errs.Timeout, "waited %d ms for load", 500).WithHint("raise timeout_ms"),
			want:      map[string]string{"code": "timeout", "message": "waited 500 ms for load", "hint": "raise timeout_ms"},
			text:      []string{"error timeout: waited 500 ms for load", "next: raise timeout_ms"},
			notInText: []string{" at "},
		},
		{
			name: "wrapped coded error keeps its code",
			err:  fmt.Errorf("claim: %w", errs.New(errs.TabInUse, "tab T1 is claimed by another session")),
			want: map[string]string{"code": "tab_in_use", "message": "tab T1 is claimed by another session"},
			text: []string{"error tab_in_use: tab T1 is claimed by another session"},
		},
		{
			name: "errs.Wrap",
			err:  errs.Wrap(errs.BrowserUnavailable, errors.New("pipe closed"), "browser exited"),
			want: map[string]string{"code": "browser_unavailable", "message": "browser exited: pipe closed"},
			text: []string{"error browser_unavailable: browser exited: pipe closed"},
		},
		{
			name:      "uncoded error is internal",
			err:       errors.New("boom"),
			want:      map[string]string{"code": "internal", "message": "boom"},
			text:      []string{"error internal: boom"},
			notInText: []string{"next:", " at "},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := errorResult(tc.err)
			if !res.IsError {
				t.Error("IsError = false")
			}

			// Structured content as the client receives it.
			b, err := json.Marshal(res.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("structured content %s: %v", b, err)
			}
			if len(got) != 1 || got["error"] == nil {
				t.Fatalf("structured content = %s, want {\"error\": {...}}", b)
			}
			e := got["error"]
			for k, v := range e {
				if _, ok := v.(string); !ok {
					t.Errorf("error.%s = %v (%T), want a string", k, v, v)
				}
			}
			for _, k := range []string{"code", "message", "path", "hint"} {
				want, has := tc.want[k]
				gotV, gotHas := e[k]
				if has != gotHas || (has && gotV != want) {
					t.Errorf("error.%s = %v (present %v), want %q (present %v)", k, gotV, gotHas, want, has)
				}
			}
			if len(e) != len(tc.want) {
				t.Errorf("error = %s, want exactly the fields %v", b, tc.want)
			}

			// Text content.
			if len(res.Content) != 1 {
				t.Fatalf("content has %d items, want 1", len(res.Content))
			}
			tc0, ok := res.Content[0].(*mcp.TextContent)
			if !ok {
				t.Fatalf("content[0] is %T, want *mcp.TextContent", res.Content[0])
			}
			for _, s := range append([]string{tc.want["code"], tc.want["path"]}, tc.text...) {
				if !strings.Contains(tc0.Text, s) {
					t.Errorf("text %q does not contain %q", tc0.Text, s)
				}
			}
			if tc.want["hint"] != "" && !strings.Contains(tc0.Text, "next: "+tc.want["hint"]) {
				t.Errorf("text %q has no next: line for the hint", tc0.Text)
			}
			for _, s := range tc.notInText {
				if strings.Contains(tc0.Text, s) {
					t.Errorf("text %q contains %q", tc0.Text, s)
				}
			}

			// The whole result marshals as an MCP tool result.
			if _, err := json.Marshal(res); err != nil {
				t.Errorf("result does not marshal: %v", err)
			}
		})
	}
}
