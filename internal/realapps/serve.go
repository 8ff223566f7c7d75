//go:build realapps

package main

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"text/template"
)

// pages are our host pages: each loads one app from node_modules, untouched.
//
//go:embed pages
var pages embed.FS

// site serves the host pages, the installed packages under /m/ and the
// small API the Swagger UI page calls. Each task run gets its own listener
// (a new port, so a new origin): no localStorage or cookie leaks between runs.
type site struct {
	modules   string
	importmap string
	handler   http.Handler

	mu   sync.Mutex
	pets []map[string]any
}

func newSite(modules string) (*site, error) {
	im, err := importMap(modules)
	if err != nil {
		return nil, err
	}
	s := &site{modules: modules, importmap: im}
	mux := http.NewServeMux()
	mux.Handle("/m/", http.StripPrefix("/m/", http.FileServer(http.Dir(modules))))
	mux.HandleFunc("/api/pets", s.petsAPI)
	mux.HandleFunc("/api/pets/", s.petsAPI)
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/", s.page)
	s.handler = mux
	return s, nil
}

// listen starts one loopback server for one task run and returns its base
// URL and a stop function.
func (s *site) listen() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: s.handler}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// page renders a host page; {{.ImportMap}} in it becomes the import map of
// every ES module package installed, so bare imports (lit, @codemirror/view)
// resolve the way a bundler would resolve them.
func (s *site) page(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	if path.Ext(name) == ".json" || path.Ext(name) == ".css" {
		http.ServeFileFS(w, r, pages, "pages/"+name)
		return
	}
	t, err := template.ParseFS(pages, "pages/"+name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	t.Execute(w, map[string]any{"ImportMap": s.importmap})
}

// petsAPI is the backend of the OpenAPI spec pages/openapi.json describes.
func (s *site) petsAPI(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pets == nil {
		s.pets = []map[string]any{{"id": 1, "name": "Rex", "tag": "dog"}, {"id": 2, "name": "Tom", "tag": "cat"}}
	}
	w.Header().Set("Content-Type", "application/json")
	id := strings.TrimPrefix(r.URL.Path, "/api/pets/")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/pets":
		var p map[string]any
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil || p["name"] == nil {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"message": "a pet needs a name"})
			return
		}
		p["id"] = len(s.pets) + 1
		s.pets = append(s.pets, p)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(p)
	case r.URL.Path == "/api/pets":
		json.NewEncoder(w).Encode(s.pets)
	default:
		for _, p := range s.pets {
			if jsonNumber(p["id"]) == id {
				json.NewEncoder(w).Encode(p)
				return
			}
		}
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]string{"message": "no pet " + id})
	}
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// importMap maps each installed package that ships ES modules to its entry
// point ("name") and its folder ("name/", for deep imports such as
// lit/decorators.js), as read from the package's own package.json.
func importMap(modules string) (string, error) {
	imports := map[string]string{}
	dirs, err := packageDirs(modules)
	if err != nil {
		return "", err
	}
	for _, name := range dirs {
		raw, err := os.ReadFile(filepath.Join(modules, name, "package.json"))
		if err != nil {
			continue
		}
		var pj struct {
			Type    string          `json:"type"`
			Module  string          `json:"module"`
			Main    string          `json:"main"`
			Exports json.RawMessage `json:"exports"`
		}
		if json.Unmarshal(raw, &pj) != nil {
			continue
		}
		entry := pj.Module
		if entry == "" {
			entry = esmExport(pj.Exports)
		}
		if entry == "" && pj.Type == "module" {
			entry = pj.Main
		}
		if entry == "" {
			continue
		}
		imports[name] = "/m/" + name + "/" + strings.TrimPrefix(entry, "./")
		imports[name+"/"] = "/m/" + name + "/"
	}
	b, err := json.MarshalIndent(map[string]any{"imports": imports}, "", " ")
	return string(b), err
}

// esmExport finds the ES module file of exports["."]: its "import" or
// "module" or "default" condition, nested conditions followed.
func esmExport(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	if dot, ok := m["."]; ok {
		return esmCondition(dot)
	}
	for k := range m {
		if strings.HasPrefix(k, ".") {
			return "" // subpaths only; the folder mapping serves them
		}
	}
	return esmCondition(raw) // conditions for "." written without it

}

func esmCondition(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	for _, c := range []string{"browser", "import", "module", "default"} {
		if v, ok := m[c]; ok {
			if s := esmCondition(v); s != "" && !strings.HasSuffix(s, ".d.ts") {
				return s
			}
		}
	}
	return ""
}

// packageDirs lists node_modules' packages, scoped ones as @scope/name.
func packageDirs(modules string) ([]string, error) {
	var out []string
	err := fs.WalkDir(os.DirFS(modules), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		depth := strings.Count(p, "/")
		if !d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if depth == 0 && strings.HasPrefix(p, "@") {
			return nil
		}
		out = append(out, p)
		return fs.SkipDir
	})
	return out, err
}
