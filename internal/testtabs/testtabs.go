// Package testtabs gives an engine package's tests a managed browser and its
// fixture pages: one Manager and one file server for the whole test binary,
// and a fresh claimed tab per test. It is used only by tests.
package testtabs

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/tabs"
)

// Env is a managed browser and a server of fixture folders.
type Env struct {
	Manager *tabs.Manager
	Site    *httptest.Server
}

// Start serves dirs as one site (a path is looked up in each, in order:
// fixtures several packages use live once, in a folder both list) and makes
// a manager whose browser starts on first use.
func Start(dirs ...string) (*Env, error) {
	m, err := tabs.New(tabs.Options{})
	if err != nil {
		return nil, err
	}
	return &Env{Manager: m, Site: httptest.NewServer(http.FileServer(folders(dirs)))}, nil
}

// folders is a file system made of several folders, the first holding a
// path answering for it.
type folders []string

func (fs folders) Open(name string) (http.File, error) {
	var first error
	for _, d := range fs {
		f, err := http.Dir(d).Open(name)
		if err == nil {
			return f, nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = os.ErrNotExist
	}
	return nil, first
}

// Close stops the browser and the server.
func (e *Env) Close() {
	e.Manager.Close()
	e.Site.Close()
}

// Page opens a fresh tab claimed by "test" on the fixture page name, closed
// when the test ends.
func (e *Env) Page(t testing.TB, name string) *tabs.Tab {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opened, _, err := e.Manager.OpenAndLoad(ctx, tabs.OpenOptions{Owner: "test", URL: e.Site.URL + "/" + name, Active: true})
	if opened != nil {
		t.Cleanup(func() { e.Manager.CloseTab(context.Background(), "test", opened.Tab.Handle()) })
	}
	if err != nil {
		t.Fatal(err)
	}
	return opened.Tab
}
