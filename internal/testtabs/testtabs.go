// Package testtabs gives an engine package's tests a managed browser and its
// fixture pages: one Manager and one file server for the whole test binary,
// and a fresh claimed tab per test. It is used only by tests.
package testtabs

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/tabs"
)

// Env is a managed browser and a server of one fixture folder.
type Env struct {
	Manager *tabs.Manager
	Site    *httptest.Server
}

// Start serves dir and makes a manager whose browser starts on first use.
func Start(dir string) (*Env, error) {
	m, err := tabs.New(tabs.Options{})
	if err != nil {
		return nil, err
	}
	return &Env{Manager: m, Site: httptest.NewServer(http.FileServer(http.Dir(dir)))}, nil
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
