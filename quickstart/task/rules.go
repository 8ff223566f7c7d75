package task

import (
	"net/url"
	"path/filepath"
	"strings"
)

// checkRules applies the rules the schema cannot state. It reads the raw
// document defensively: a value of the wrong type is the schema's to report.
func checkRules(path string, top map[string]any, ps *problems) {
	for _, k := range []string{"name", "goal"} {
		if s, ok := top[k].(string); ok && strings.TrimSpace(s) == "" {
			ps.add(k, "field.blank", "is empty; the %s is required", k)
		}
	}
	if docs, ok := top["docs"].(map[string]any); ok {
		checkDocs(docs, ps)
	}
	if succ, ok := top["success"].(map[string]any); ok {
		checkSuccess(path, succ, ps)
	}
	if b, ok := top["budgets"].(map[string]any); ok {
		for k, v := range b {
			n, ok := asInt(v)
			if !ok {
				continue
			}
			min := int64(1)
			if k == "max_tokens" {
				min = 0
			}
			if n < min {
				ps.add("budgets."+k, "budgets.range", "must be at least %d, got %d", min, n)
			}
		}
	}
}

func checkDocs(docs map[string]any, ps *problems) {
	_, hasPath := docs["path"]
	_, hasEntry := docs["entrypoint"]
	switch {
	case hasPath && hasEntry:
		ps.add("docs", "docs.route", "has both 'path' and 'entrypoint'; put the entrypoint first in 'path' and drop 'entrypoint'")
		return
	case !hasPath && !hasEntry:
		ps.add("docs", "docs.route", "needs 'path' (the documented route, in order) or 'entrypoint' (a single page)")
		return
	}
	var pages []any
	field := "docs.path"
	if hasEntry {
		pages = []any{docs["entrypoint"]}
		field = "docs.entrypoint"
	} else if list, ok := docs["path"].([]any); ok {
		pages = list
		if len(list) == 0 {
			ps.add("docs.path", "docs.route", "is empty; list the pages of the route in order")
		}
	}
	seen := map[string]int{}
	for i, p := range pages {
		s, ok := p.(string)
		if !ok {
			continue
		}
		f := field
		if !hasEntry {
			f = field + "[" + itoa(i) + "]"
		}
		s = strings.TrimSpace(s)
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			ps.add(f, "docs.http", "must be an absolute http(s) URL with a host, got %q", s)
			continue
		}
		if j, dup := seen[s]; dup {
			ps.add(f, "docs.duplicate", "lists %q twice (also at docs.path[%d]); a route visits each page once", s, j)
			continue
		}
		seen[s] = i
	}
}

func checkSuccess(path string, succ map[string]any, ps *problems) {
	script, hasScript := succ["script"]
	file, hasFile := succ["file"]
	if hasScript && hasFile {
		ps.add("success", "success.script-xor-file", "has both 'script' and 'file'; use one or the other")
	}
	if s, ok := script.(string); hasScript && ok && strings.TrimSpace(s) == "" {
		ps.add("success.script", "success.blank", "is empty; a check that does nothing always passes")
	}
	if hasFile {
		checkFile(path, file, ps)
	}
	checkAssertions(succ, hasScript || hasFile, ps)
	wait, expect := succ["wait_http"], succ["expect_output"]
	if w, ok := wait.(map[string]any); ok && len(w) > 0 {
		checkWaitHTTP(w, ps)
	}
	if e, ok := expect.(map[string]any); ok && len(e) > 0 {
		_, c := e["contains"]
		_, m := e["matches"]
		if patterns(e, "success.expect_output", ps) == 0 && (c || m) {
			ps.add("success.expect_output", "expect_output.items", "needs 'contains' or 'matches' with at least one pattern")
		}
	}
}

// checkAssertions: serve needs a command, the declarative blocks need
// content, and something must assert.
func checkAssertions(succ map[string]any, scripted bool, ps *problems) {
	_, hasServe := succ["serve"]
	if s, ok := succ["serve"].(string); ok && strings.TrimSpace(s) == "" {
		ps.add("success.serve", "success.blank", "is empty; give the command that starts the server, or drop serve")
	}
	wait, hasWait := succ["wait_http"]
	expect, hasExpect := succ["expect_output"]
	if hasWait && isEmpty(wait) {
		ps.add("success.wait_http", "success.empty-block", "is empty; give it something to assert (path or url, and what to expect)")
	}
	if hasExpect && isEmpty(expect) {
		ps.add("success.expect_output", "success.empty-block", "is empty; give it something to assert (contains or matches)")
	}
	if !scripted && !hasWait && !hasExpect {
		if hasServe {
			ps.add("success.serve", "success.serve-unchecked", "starts a server but nothing checks it; add 'wait_http' or a 'script'")
		} else {
			ps.add("success", "success.assertion", "has nothing to assert; add 'script' (or 'file'), 'wait_http' or 'expect_output'")
		}
	}
}

func checkWaitHTTP(w map[string]any, ps *problems) {
	p, _ := w["path"].(string)
	u, _ := w["url"].(string)
	if strings.TrimSpace(p) == "" && strings.TrimSpace(u) == "" {
		ps.add("success.wait_http", "wait_http.target", "needs 'path' (on $QS_PORT) or 'url'")
	}
	if strings.TrimSpace(u) != "" {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			ps.add("success.wait_http.url", "wait_http.target", "must be an absolute http(s) URL, got %q", u)
		}
	}
	patterns(w, "success.wait_http", ps)
	j, _ := w["json"].(map[string]any)
	for k, v := range j {
		switch v.(type) {
		case map[string]any, []any:
			ps.add("success.wait_http.json."+k, "wait_http.json-scalar", "must be a string, number, boolean or null; nested values cannot be matched")
		}
		if strings.TrimSpace(k) == "" {
			ps.add("success.wait_http.json", "wait_http.json-scalar", "has an empty key")
		}
	}
}

// patterns checks the contains/matches lists of a block: no empty pattern
// (it would match anything), no multi-line one (grep would read it as
// alternatives). It returns how many patterns there are.
func patterns(block map[string]any, at string, ps *problems) int {
	n := 0
	for _, key := range []string{"contains", "matches"} {
		var items []any
		switch v := block[key].(type) {
		case string:
			items = []any{v}
		case []any:
			items = v
		}
		for i, it := range items {
			s, ok := it.(string)
			if !ok {
				continue
			}
			n++
			f := at + "." + key
			if _, isList := block[key].([]any); isList {
				f += "[" + itoa(i) + "]"
			}
			s = strings.Trim(s, "\n")
			switch {
			case s == "":
				ps.add(f, "pattern.empty", "is an empty pattern, which matches anything")
			case strings.Contains(s, "\n"):
				ps.add(f, "pattern.multiline", "spans several lines, which grep would read as alternatives; list each line separately")
			}
		}
	}
	return n
}

func checkFile(path string, file any, ps *problems) {
	ref, ok := file.(string)
	if !ok {
		return // the schema's type rule reports it
	}
	ref = strings.TrimSpace(ref)
	switch {
	case ref == "":
		ps.add("success.file", "success.file", "is empty; give a path relative to the task file")
		return
	case filepath.IsAbs(ref):
		ps.add("success.file", "success.file", "must be relative to the task file, got %q", ref)
		return
	}
	data, p := readInside(filepath.Dir(path), ref)
	switch {
	case p != nil:
		ps.add("success.file", p.Rule, "%s", p.Message)
	case strings.TrimSpace(string(data)) == "":
		ps.add("success.file", "success.file", "%q is empty; a check that does nothing always passes", ref)
	}
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	}
	return false
}
