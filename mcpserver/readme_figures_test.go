package mcpserver

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// toolListFigures is the measured cell of README's tools/list row, written
// from the tool definitions as tools/list serves them.
func toolListFigures(t *testing.T) string {
	core, corePer := listSizes(t, listTools(t, Options{Tools: DefaultProfile}))
	inline, inlinePer := listSizes(t, listTools(t, Options{Tools: DefaultProfile, InlineSchemas: true}))
	auto, autoPer := listSizes(t, listTools(t, Options{Tools: "automation", AllowEvaluate: true}))
	full, fullPer := listSizes(t, listTools(t, Options{Tools: "full", AllowEvaluate: true}))
	return fmt.Sprintf("core %s (%s tools, `browser_screenshot` among them; `browser_evaluate` adds %s when allowed; %s with `--inline-schemas`); "+
		"automation %s and full %s with `browser_evaluate` (%s and %s tools; the list was 104,446 for 18); "+
		"`browser_batch` %s (%s inlined), `browser_observe` %s, `browser_click` %s. Playwright MCP lists 20,286, Chrome DevTools MCP 29,361",
		n(core), n(len(corePer)), n(fullPer["browser_evaluate"]), n(inline), n(auto), n(full), n(len(autoPer)), n(len(fullPer)),
		n(corePer["browser_batch"]), n(inlinePer["browser_batch"]), n(fullPer["browser_observe"]), n(fullPer["browser_click"]))
}

// n writes a count as README does: 19,999.
func n(v int) string {
	s := strconv.Itoa(v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// README's tools/list figures are what the definitions list: a change to a
// description or schema that moves them fails here until README says the
// new figures (go generate ./mcpserver rewrites them).
func TestReadmeToolListFigures(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const row = "| `tools/list`, compact JSON as served, characters:"
	lines := strings.Split(string(raw), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, row) {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "| "), " |"), " | ")
		if len(cells) != 4 {
			t.Fatalf("README's tools/list row has %d cells, not 4: %s", len(cells), l)
		}
		want := toolListFigures(t)
		if cells[3] == want {
			return
		}
		if !*update {
			t.Fatalf("README's tools/list figures:\n%s\nthe definitions list:\n%s\n(go generate ./mcpserver rewrites them)", cells[3], want)
		}
		cells[3] = want
		lines[i] = "| " + strings.Join(cells, " | ") + " |"
		if err := os.WriteFile("../README.md", []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("README has no row starting %q", row)
}
