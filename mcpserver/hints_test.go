package mcpserver

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
)

// TestEngineTextNamesNoTool keeps each word in its layer: no string the
// engine writes (hints, messages) names a tool; the tools' wording of an
// engine fact lives in toolHints.
func TestEngineTextNamesNoTool(t *testing.T) {
	var names []string
	for _, tl := range allTools() {
		names = append(names, tl.name)
	}
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir("../engine", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0) // no comments: they may name tools
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				for _, name := range names {
					if strings.Contains(lit.Value, name) {
						t.Errorf("%s: %s names the tool %s", fset.Position(lit.Pos()), lit.Value, name)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil || checked < 20 {
		t.Fatalf("walked %d engine files: %v", checked, err)
	}
}

func TestToolHintLeavesTheEngineErrorAlone(t *testing.T) {
	e := errs.New(errs.TabInUse, "tab 1 is claimed by another session").
		WithHint("open a new tab, or wait until the other session releases it").WithFact(tabs.FactHeldBySession)
	got := toolHint(e)
	if got.Hint != toolHints[hintKey{errs.TabInUse, tabs.FactHeldBySession}] || !strings.Contains(got.Hint, "browser_open_tab") {
		t.Fatalf("tool hint %q", got.Hint)
	}
	if e.Hint != "open a new tab, or wait until the other session releases it" || got.Message != e.Message || got.Code != e.Code {
		t.Fatalf("engine error changed or message lost: %+v -> %+v", e, got)
	}
	other := errs.New(errs.TabInUse, "you already hold tab 1").WithHint("use that tab_handle")
	if toolHint(other) != other {
		t.Fatal("an error without a fact was rewritten")
	}
}

// A real engine error reaches the client in the tools' words: an unknown
// browser_id (no browser is started for kind=browsers).
func TestErrorResultWordsTheHintForTools(t *testing.T) {
	m, err := tabs.New(tabs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s := &server{m: m}
	_, _, err = s.discoverTool().run(context.Background(), "owner", json.RawMessage(`{"kind":"browsers","browser_id":"no-such-browser"}`))
	if e := errs.As(err); e.Fact != tabs.FactNoBrowser || strings.Contains(e.Hint, "browser_discover") {
		t.Fatalf("engine error: %+v", e)
	}
	res := errorResult(err)
	want := "call browser_discover with kind=browsers for the ids"
	got := res.StructuredContent.(map[string]any)["error"].(*errs.Error)
	if got.Hint != want || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "next: "+want) {
		t.Fatalf("tool error: %+v / %v", got, res.Content[0])
	}
}

func TestErrorWithoutHintGetsItsCodesNextStep(t *testing.T) {
	bare := errs.New(errs.NotActionable, "#x left the page")
	if got := toolHint(bare); got.Hint == "" || bare.Hint != "" {
		t.Fatalf("bare error: hint %q (engine's left %q)", got.Hint, bare.Hint)
	}
	own := errs.New(errs.NotActionable, "covered").WithHint("close the banner")
	if got := toolHint(own); got.Hint != "close the banner" {
		t.Fatalf("an error's own hint was replaced: %q", got.Hint)
	}
}
