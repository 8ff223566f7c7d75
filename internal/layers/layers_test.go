// Package layers holds one test: the import rules of DESIGN.md's picture,
// checked against what `go list` says the packages import.
package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/tabwright/tabwright/"

// engineRank orders the engine's packages: one may import only those of a
// lower rank. A new engine package fails the test until it is placed here.
var engineRank = map[string]int{
	"engine/errs":       0,
	"engine/injected":   0,
	"engine/claimlock":  0,
	"engine/timing":     0,
	"engine/deadline":   1,
	"engine/netgate":    1,
	"engine/cdp":        2,
	"engine/launch":     3,
	"engine/tabs":       4,
	"engine/locate":     5,
	"engine/observe":    5,
	"engine/act":        6,
	"engine/observetab": 6,
	"engine/batch":      7,
}

// layerAllows says which top-level layers a layer may import, beside its
// own. Data flows down: cmd wires everything; mcpserver, quickstart and hub
// stand side by side on the engine and never import each other.
var layerAllows = map[string][]string{
	"cmd":        {"mcpserver", "quickstart", "hub", "extension", "engine", "schemas", "testdata", "internal"},
	"mcpserver":  {"engine", "schemas"},
	"quickstart": {"engine", "schemas"},
	"hub":        {"engine", "extension"},
	"engine":     {"schemas"},
	"schemas":    {},
	"testdata":   {},
	"internal":   {"engine"},
	"extension":  {},
	"scripts":    {},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func TestImportsFollowTheLayers(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; expected the whole module", len(pkgs))
	}
	for _, p := range pkgs {
		from := strings.TrimPrefix(p.ImportPath, module)
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			if why := forbidden(from, strings.TrimPrefix(imp, module)); why != "" {
				t.Errorf("%s imports %s: %s", from, imp, why)
			}
		}
	}
}

// TestRulesRefuseAnUpwardImport keeps the rules themselves honest.
func TestRulesRefuseAnUpwardImport(t *testing.T) {
	for _, c := range [][2]string{
		{"engine/tabs", "engine/act"},
		{"engine/observe", "mcpserver"},
		{"quickstart/run", "mcpserver"},
		{"mcpserver", "quickstart/run"},
		{"hub", "cmd/tabwright"},
		{"engine/newthing", "engine/errs"},
	} {
		if forbidden(c[0], c[1]) == "" {
			t.Errorf("%s -> %s was allowed", c[0], c[1])
		}
	}
	if why := forbidden("engine/batch", "engine/act"); why != "" {
		t.Errorf("engine/batch -> engine/act refused: %s", why)
	}
}

// forbidden returns why from may not import to, or "" when it may.
func forbidden(from, to string) string {
	fromLayer, toLayer := layerOf(from), layerOf(to)
	if _, ok := layerAllows[fromLayer]; !ok {
		return "layer " + fromLayer + " is not in DESIGN's picture; add it to layerAllows"
	}
	if toLayer == "cmd" {
		return "nothing imports the CLI"
	}
	if fromLayer == toLayer {
		if fromLayer == "engine" {
			return engineOrder(from, to)
		}
		return ""
	}
	for _, ok := range layerAllows[fromLayer] {
		if ok == toLayer {
			return ""
		}
	}
	return fromLayer + " may import only " + strings.Join(layerAllows[fromLayer], ", ")
}

func engineOrder(from, to string) string {
	rf, okf := engineRank[from]
	rt, okt := engineRank[to]
	switch {
	case !okf:
		return from + " has no place in engineRank; add it"
	case !okt:
		return to + " has no place in engineRank; add it"
	case rt >= rf:
		return "an engine package imports only packages below it"
	}
	return ""
}

func layerOf(path string) string {
	first, _, _ := strings.Cut(path, "/")
	return first
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"...")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(&out)
	for {
		var p pkg
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs
		}
		if err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
}
