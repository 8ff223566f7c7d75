package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/internal/options"
)

var updateDocs = flag.Bool("update", false, "rewrite the README's option table and docs/mcp-config.schema.json from tabwright mcp's flags")

const (
	optionsBegin = "<!-- mcp-options: written from tabwright mcp's flags by go test ./cmd/tabwright -run TestReadmeOptions -update -->"
	optionsEnd   = "<!-- /mcp-options -->"
)

// The README's option table is the flags as mcp.go defines them.
func TestReadmeOptions(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	before, rest, ok1 := strings.Cut(readme, optionsBegin+"\n")
	_, after, ok2 := strings.Cut(rest, optionsEnd)
	if !ok1 || !ok2 {
		t.Fatalf("README lacks the option table's markers %q … %q", optionsBegin, optionsEnd)
	}
	want := options.Table(newMCPFlags().fs, envPrefix, notFromConfig)
	if got := rest[:len(rest)-len(after)-len(optionsEnd)]; got != want {
		if *updateDocs {
			os.WriteFile("../../README.md", []byte(before+optionsBegin+"\n"+want+optionsEnd+after), 0o644)
			return
		}
		t.Errorf("README's option table differs from the flags; go test ./cmd/tabwright -run TestReadmeOptions -update rewrites it")
	}
}

// docs/mcp-config.schema.json is the config file's schema as the flags make it.
func TestConfigSchemaFile(t *testing.T) {
	want, err := options.Schema(newMCPFlags().fs, "tabwright mcp --config", append([]string{options.ConfigFlag}, notFromConfig...))
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	path := "../../docs/mcp-config.schema.json"
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) {
		if *updateDocs {
			os.WriteFile(path, want, 0o644)
			return
		}
		t.Errorf("%s differs from the flags; go test ./cmd/tabwright -run TestConfigSchemaFile -update rewrites it", path)
	}
}

// The example configs in docs/config-examples are read as a user's would be.
func TestConfigExamplesParse(t *testing.T) {
	files, _ := filepath.Glob("../../docs/config-examples/*.json")
	if len(files) < 3 {
		t.Fatalf("found %d examples", len(files))
	}
	for _, file := range files {
		f := newMCPFlags()
		if _, err := f.parse([]string{"--config", file}, &bytes.Buffer{}); err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		var opt tabs.Options
		f.page.initScripts = nil // the example names a script the user writes
		if err := f.page.apply(f.fs, &opt); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// A bad key, a bad value and a launch flag with --cdp-url are refused
// before anything starts, naming what was wrong.
func TestMCPConfigRefusals(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"viewport": "800x600"}`), 0o600)
	for _, c := range []struct {
		args []string
		path string
	}{
		{[]string{"--config", bad}, "viewport"},
		{[]string{"--viewport-size", "800"}, "--viewport-size"},
		{[]string{"--device", "Nokia 3310"}, "--device"},
		{[]string{"--grant-permissions", "geolocation,telepathy"}, "--grant-permissions"},
		{[]string{"--proxy-server", "ftp://x:1"}, "--proxy-server"},
		{[]string{"--proxy-bypass", "localhost"}, "--proxy-bypass"},
		{[]string{"--cdp-url", "http://127.0.0.1:9", "--user-data-dir", dir}, "--user-data-dir"},
		{[]string{"--init-script", filepath.Join(dir, "none.js")}, "--init-script"},
		{[]string{"--storage-state", bad}, "--storage-state"},
	} {
		err := runMCP(t.Context(), c.args, &bytes.Buffer{})
		if err == nil {
			t.Errorf("%v: served, want invalid_input at %s", c.args, c.path)
			continue
		}
		if e := errs.As(err); e.Code != errs.InvalidInput || !strings.Contains(e.Path, c.path) {
			t.Errorf("%v: %v (path %q), want invalid_input at %s", c.args, err, e.Path, c.path)
		}
	}
}
