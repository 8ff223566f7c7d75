// Package examples holds the example tasks bundled in the binary, with the
// documentation they follow. The docs are served by the harness itself on
// loopback, so the examples need no network: their task files name the
// placeholder origin DocsOrigin, replaced by the local server's URL when an
// example is loaded.
package examples

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"

	"github.com/tabwright/tabwright/quickstart/task"
)

// DocsOrigin is the origin example task files use for their docs.
const DocsOrigin = "http://docs.example.test"

//go:embed tasks/*.yaml site
var files embed.FS

// Names lists the examples, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(files, "tasks")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// Source is an example's task file as bundled.
func Source(name string) ([]byte, error) {
	b, err := files.ReadFile("tasks/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no example named %q; available: %s", name, strings.Join(Names(), ", "))
	}
	return b, nil
}

// Path is the name an example's task carries as its source file.
func Path(name string) string { return "example:" + name }

// Load parses an example with its docs at docsURL (a Server's URL; empty
// keeps DocsOrigin).
func Load(name, docsURL string) (*task.Task, error) {
	b, err := Source(name)
	if err != nil {
		return nil, err
	}
	if docsURL != "" {
		b = []byte(strings.ReplaceAll(string(b), DocsOrigin, strings.TrimRight(docsURL, "/")))
	}
	return task.Parse(Path(name), b, nil)
}

// Server serves the bundled docs on loopback.
func Server() *httptest.Server {
	site, _ := fs.Sub(files, "site")
	return httptest.NewServer(http.FileServer(http.FS(site)))
}
