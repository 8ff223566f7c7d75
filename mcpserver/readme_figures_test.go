package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// toolListFigures is the measured cell of docs/performance.md's tools/list row, written
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

// n writes a count as the docs do: 19,999.
func n(v int) string {
	s := strconv.Itoa(v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// perfDoc holds the measured figures README sums up.
const perfDoc = "../docs/performance.md"

// docs/performance.md's tools/list figures are what the definitions list: a
// change to a description or schema that moves them fails here until the
// page says the new figures (go generate ./mcpserver rewrites them).
func TestReadmeToolListFigures(t *testing.T) {
	raw, err := os.ReadFile(perfDoc)
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
			t.Fatalf("%s's tools/list row has %d cells, not 4: %s", perfDoc, len(cells), l)
		}
		want := toolListFigures(t)
		if cells[3] == want {
			return
		}
		if !*update {
			t.Fatalf("%s's tools/list figures:\n%s\nthe definitions list:\n%s\n(go generate ./mcpserver rewrites them)", perfDoc, cells[3], want)
		}
		cells[3] = want
		lines[i] = "| " + strings.Join(cells, " | ") + " |"
		if err := os.WriteFile(perfDoc, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("%s has no row starting %q", perfDoc, row)
}

// readmeParam is a parameter a README tools row names: `name?` (optional),
// with the default figure in parentheses after it, e.g. `limit?` (100).
var readmeParam = regexp.MustCompile("`([a-z_]+)(\\??)`(?: \\(([0-9][0-9,.]*|true|false)\\))?")

// README's tools table names each single tool's parameters as its schema
// lists them, with the defaults its schema states: a parameter renamed,
// added or given another default in the definitions fails here.
func TestReadmeToolParameters(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	props := map[string]map[string]any{}
	for _, tl := range listTools(t, Options{Tools: "full", AllowEvaluate: true}).Tools {
		var s struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		b, _ := json.Marshal(tl.InputSchema)
		json.Unmarshal(b, &s)
		for name, p := range s.Properties {
			if props[tl.Name] == nil {
				props[tl.Name] = map[string]any{}
			}
			props[tl.Name][name] = p["default"]
		}
	}
	rows := 0
	for _, l := range strings.Split(string(raw), "\n") {
		cells := strings.Split(l, " | ")
		if !strings.HasPrefix(l, "| `browser_") || len(cells) < 3 || strings.Count(cells[0], "`browser_") != 1 {
			continue // a group of tools ("as above") is said in prose
		}
		tool := strings.Trim(strings.Fields(strings.TrimPrefix(cells[0], "| "))[0], "`")
		if rest := strings.TrimPrefix(cells[0], "| `"+tool+"`"); rest != "" && !strings.HasPrefix(rest, " (only with") {
			continue // another table's row about the tool (a benchmark)
		}
		have, ok := props[tool]
		if !ok {
			continue // an error code's row, or a tool another build lists
		}
		rows++
		named := map[string]bool{}
		for _, m := range readmeParam.FindAllStringSubmatch(cells[1], -1) {
			name, fig := m[1], m[3]
			def, known := have[name]
			if !known {
				if m[2] == "?" {
					t.Errorf("README's %s row names %s, which its schema does not list", tool, name)
				}
				continue // a value, not a parameter (`ref` of an element)
			}
			named[name] = true
			if fig != "" && def != nil && strings.ReplaceAll(fig, ",", "") != fmt.Sprint(def) {
				t.Errorf("README's %s row gives %s the default %s; its schema says %v", tool, name, fig, def)
			}
		}
		for name := range have {
			if !named[name] {
				t.Errorf("README's %s row does not name its parameter %s", tool, name)
			}
		}
	}
	if rows < 10 {
		t.Fatalf("only %d single-tool rows of README's tools table checked", rows)
	}
}
