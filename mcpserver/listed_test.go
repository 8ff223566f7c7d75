package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite tools.json from the tools' definitions (what go generate ./mcpserver runs)")

// toolsFile is the content of tools.json: every tool's definition as the
// code builds it, in the order of server.tools, encoded as the server
// encoded them before they were generated (json.Marshal of the schema maps,
// so sorted keys and <, >, & escaped): a JSON array, one tool per line,
// compact (the SDK would compact them on every tools/list; jq . tools.json
// reads it).
func toolsFile(t testing.TB) []byte {
	t.Helper()
	b := []byte("[\n")
	for i, tl := range allTools() {
		line, err := json.Marshal(tl.definition())
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = append(b, line...)
	}
	return append(b, "\n]\n"...)
}

// TestToolsJSON: the definitions the server lists (tools.json) are those
// the code builds. With -update it rewrites tools.json instead.
func TestToolsJSON(t *testing.T) {
	want := toolsFile(t)
	if *update {
		if err := os.WriteFile("tools.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(toolsJSON, want) {
		t.Fatal("tools.json is not what the tools' definitions build; regenerate it: go generate ./mcpserver")
	}
}

// TestListedTools: tools/list, through the SDK, returns every tool with the
// definition the code builds (compared as JSON values), in the SDK's order,
// and every tool is callable by its name.
func TestListedTools(t *testing.T) {
	ctx := context.Background()
	cs := connectClient(t, Options{Tools: "full", AllowEvaluate: true})
	if cs.InitializeResult().Capabilities.Tools == nil {
		t.Fatal("initialize: no tools capability")
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.NextCursor != "" {
		t.Errorf("tools/list is paginated (next cursor %q); want one page", res.NextCursor)
	}
	built := map[string]*mcp.Tool{}
	for _, tl := range allTools() {
		built[tl.name] = tl.definition()
	}
	if len(res.Tools) != len(built) {
		t.Fatalf("tools/list has %d tools, the code builds %d", len(res.Tools), len(built))
	}
	for _, got := range res.Tools {
		want, ok := built[got.Name]
		if !ok {
			t.Errorf("tools/list has %s, which the code does not build", got.Name)
			continue
		}
		if g, w := jsonValue(t, got), jsonValue(t, want); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: listed definition differs from the built one\nlisted: %v\nbuilt:  %v", got.Name, g, w)
		}
		// Dispatch reaches our handler: an empty input is refused by its
		// checks (browser_discover, which needs nothing, reaches the
		// missing manager instead and is left out).
		if got.Name == "browser_discover" {
			continue
		}
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: got.Name, Arguments: map[string]any{}})
		if err != nil {
			t.Errorf("%s: call: %v", got.Name, err)
			continue
		}
		if !r.IsError || !bytes.Contains(jsonBytes(t, r.StructuredContent), []byte(`"invalid_input"`)) {
			t.Errorf("%s({}): got %s, want an invalid_input tool error", got.Name, jsonBytes(t, r))
		}
	}
}

func jsonBytes(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonValue(t testing.TB, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal(jsonBytes(t, v), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestObserveDescriptionFollowsActionTimeout: the actions' default
// timeout_ms that browser_observe's description states is the server's,
// --action-timeout's when it is set, not a figure written beside it.
func TestObserveDescriptionFollowsActionTimeout(t *testing.T) {
	for _, c := range []struct {
		timeout time.Duration
		want    int64
	}{{0, DefaultActionTimeout.Milliseconds()}, {12 * time.Second, 12000}, {250 * time.Millisecond, 250}} {
		res, err := connectClient(t, Options{ActionTimeout: c.timeout}).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range res.Tools {
			if tl.Name != "browser_observe" {
				continue
			}
			if want := fmt.Sprintf("default %d", c.want); !strings.Contains(tl.Description, want) {
				t.Errorf("--action-timeout %v: browser_observe's description does not say %q:\n%s", c.timeout, want, tl.Description)
			}
			if stale := fmt.Sprintf("default %d", DefaultActionTimeout.Milliseconds()); c.want != DefaultActionTimeout.Milliseconds() && strings.Contains(tl.Description, stale) {
				t.Errorf("--action-timeout %v: browser_observe's description still says %q", c.timeout, stale)
			}
		}
	}
}
