package task

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

type rawTask struct {
	Name  string `json:"name"`
	Goal  string `json:"goal"`
	Image string `json:"image"`
	Docs  struct {
		Path       []string `json:"path"`
		Entrypoint string   `json:"entrypoint"`
		Allow      []string `json:"allow"`
	} `json:"docs"`
	Network struct {
		Allow []string `json:"allow"`
		Only  []string `json:"only"`
	} `json:"network"`
	Setup   []string `json:"setup"`
	Replay  []string `json:"replay"`
	Success Success  `json:"success"`
	Budgets *Budgets `json:"budgets"`
}

// build turns a document that passed every check into a Task.
func build(path string, top map[string]any) (*Task, error) {
	var raw rawTask
	// Budgets absent from the file keep their defaults.
	b := DefaultBudgets
	raw.Budgets = &b
	data, err := json.Marshal(top)
	if err == nil {
		err = json.Unmarshal(data, &raw)
	}
	if err != nil {
		return nil, &Error{File: path, Problems: []Problem{{Rule: "file.values", Message: err.Error()}}}
	}
	t := &Task{
		Source:  path,
		Name:    raw.Name,
		Goal:    strings.TrimSpace(raw.Goal),
		Image:   strings.TrimSpace(raw.Image),
		Setup:   cleanList(raw.Setup),
		Replay:  cleanList(raw.Replay),
		Success: raw.Success,
		Budgets: *raw.Budgets,
	}
	if raw.Docs.Entrypoint != "" {
		t.Route = []string{strings.TrimSpace(raw.Docs.Entrypoint)}
	} else {
		t.Route = cleanList(raw.Docs.Path)
	}
	t.DocsAllow = docsAllow(t.Route, hostList(raw.Docs.Allow))
	only := hostList(raw.Network.Only)
	allow := hostList(raw.Network.Allow)
	if len(only) > 0 {
		t.NetworkAllow = only
		t.NetworkExplicit = only
	} else {
		t.NetworkAllow = append(append([]string{}, DefaultNetworkAllow...), allow...)
		t.NetworkExplicit = allow
	}
	if ref := strings.TrimSpace(raw.Success.File); ref != "" {
		text, err := os.ReadFile(filepath.Join(filepath.Dir(path), ref))
		if err != nil {
			return nil, &Error{File: path, Problems: []Problem{{Field: "success.file", Rule: "success.file", Message: err.Error()}}}
		}
		t.CheckFileText = string(text)
	}
	t.SuccessScript = compile(t)
	return t, nil
}

func cleanList(in []string) []string {
	out := []string{}
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func hostList(in []string) []string {
	out := []string{}
	for _, s := range in {
		if s = strings.Trim(strings.ToLower(strings.TrimSpace(s)), "."); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// docsAllow is the effective docs allowlist: the route's hosts first, in
// route order and without repeats, then the listed hosts; a route host that
// is also listed stays where it was listed.
func docsAllow(route, listed []string) []string {
	out := append([]string{}, listed...)
	for i := len(route) - 1; i >= 0; i-- {
		h := hostOf(route[i])
		if h == "" {
			continue
		}
		found := false
		for _, e := range out {
			if e == h {
				found = true
				break
			}
		}
		if !found {
			out = append([]string{h}, out...)
		}
	}
	return out
}

func hostOf(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return ""
	}
	rest := raw[i+3:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.LastIndex(rest, "@"); j >= 0 {
		rest = rest[j+1:]
	}
	if strings.HasPrefix(rest, "[") {
		if j := strings.Index(rest, "]"); j >= 0 {
			return strings.ToLower(rest[1:j])
		}
	}
	if j := strings.LastIndex(rest, ":"); j >= 0 {
		rest = rest[:j]
	}
	return strings.ToLower(rest)
}

// Quote returns s as one single-quoted shell word.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// compile writes the success script: the declarative parts as helper calls
// (serve, then wait_http, then expect_output), then the author's assertion.
// Every generated value is one quoted shell word; serve is passed whole, so
// `cd app && npm start` is served as one command line.
func compile(t *Task) string {
	s := t.Success
	author := s.Script
	if author == "" {
		author = t.CheckFileText
	}
	if strings.TrimSpace(s.Serve) == "" && s.WaitHTTP == nil && s.ExpectOutput == nil {
		return author
	}
	var lines []string
	if serve := strings.TrimSpace(s.Serve); serve != "" {
		lines = append(lines, "qs_serve "+Quote(serve))
	}
	if w := s.WaitHTTP; w != nil {
		target := strings.TrimSpace(w.URL)
		if target == "" {
			target = strings.TrimSpace(w.Path)
		}
		parts := []string{"qs_wait_http", Quote(target)}
		if w.Status != nil {
			parts = append(parts, "--status", Quote(strconv.Itoa(*w.Status)))
		}
		if w.Timeout != nil {
			parts = append(parts, "--timeout", Quote(strconv.Itoa(*w.Timeout)))
		}
		for _, c := range w.Contains {
			parts = append(parts, "--contains", Quote(c))
		}
		for _, m := range w.Matches {
			parts = append(parts, "--matches", Quote(m))
		}
		keys := make([]string, 0, len(w.JSON))
		for k := range w.JSON {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			parts = append(parts, "--json", Quote(k+"="+JSONScalar(w.JSON[k])))
		}
		lines = append(lines, strings.Join(parts, " "))
	}
	if e := s.ExpectOutput; e != nil {
		parts := []string{"qs_expect_output"}
		for _, c := range e.Contains {
			parts = append(parts, "--contains", Quote(strings.Trim(c, "\n")))
		}
		for _, m := range e.Matches {
			parts = append(parts, "--matches", Quote(strings.Trim(m, "\n")))
		}
		lines = append(lines, strings.Join(parts, " "))
	}
	if author != "" {
		lines = append(lines, author)
	}
	return strings.Join(lines, "\n") + "\n"
}

// JSONScalar spells a wait_http.json value as it appears in a JSON body:
// true, 42, null, or a string's text. (The reference spelled YAML true as
// Python's True, which no JSON body ever contains.)
func JSONScalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

func itoa(i int) string { return strconv.Itoa(i) }

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	case int:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}
