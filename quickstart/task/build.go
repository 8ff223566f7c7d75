package task

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tabwright/tabwright/quickstart/egress"
)

// build turns a document that passed every check into a Task, reading the
// checked values directly: their types are the schema's.
func build(path string, top map[string]any) (*Task, error) {
	var d reader
	docs, network, succ := object(top["docs"]), object(top["network"]), object(top["success"])
	t := &Task{
		Source:  path,
		Name:    d.text(top["name"]),
		Goal:    strings.TrimSpace(d.text(top["goal"])),
		Image:   strings.TrimSpace(d.text(top["image"])),
		Setup:   cleanList(d.texts(top["setup"])),
		Replay:  cleanList(d.texts(top["replay"])),
		Success: d.success(succ),
		Budgets: d.budgets(object(top["budgets"])),
	}
	if entry := d.text(docs["entrypoint"]); entry != "" {
		t.Route = []string{strings.TrimSpace(entry)}
	} else {
		t.Route = cleanList(d.texts(docs["path"]))
	}
	p := egress.NewPolicy(t.Route, d.texts(docs["allow"]), d.texts(network["allow"]), d.texts(network["only"]))
	t.DocsAllow, t.NetworkAllow, t.NetworkExplicit = p.Docs, p.Allow, p.Explicit
	if d.bad != nil {
		return nil, &Error{File: path, Problems: []Problem{*d.bad}}
	}
	if ref := strings.TrimSpace(t.Success.File); ref != "" {
		text, p := readInside(filepath.Dir(path), ref)
		if p != nil {
			p.Field = "success.file"
			return nil, &Error{File: path, Problems: []Problem{*p}}
		}
		t.CheckFileText = string(text)
	}
	t.SuccessScript = compile(t)
	return t, nil
}

// reader reads checked values into Go ones and keeps the first value that
// Go cannot hold (an integer past int64, or written as 1.0).
type reader struct{ bad *Problem }

func object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// text is a string value; invalid UTF-8 becomes U+FFFD, as in JSON.
func (d *reader) text(v any) string {
	s, _ := v.(string)
	return validText(s)
}

// texts is a string or a list of strings; nil when absent.
func (d *reader) texts(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{d.text(x)}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, d.text(e))
		}
		return out
	}
	return nil
}

// whole is an integer value; nil when absent.
func (d *reader) whole(v any, field string) *int {
	if v == nil {
		return nil
	}
	n, ok := asInt(v)
	if !ok || int64(int(n)) != n {
		if d.bad == nil {
			d.bad = &Problem{Field: field, Rule: "file.values", Message: fmt.Sprintf("%v is not a whole number in range; write it as digits only, such as 30", v)}
		}
		return nil
	}
	i := int(n)
	return &i
}

func (d *reader) budgets(b map[string]any) Budgets {
	out := DefaultBudgets // what the file leaves out keeps its default
	for _, f := range []struct {
		key string
		dst *int
	}{{"max_turns", &out.MaxTurns}, {"max_seconds", &out.MaxSeconds}, {"max_command_seconds", &out.MaxCommandSeconds},
		{"max_output_chars", &out.MaxOutputChars}, {"max_tokens", &out.MaxTokens}} {
		if n := d.whole(b[f.key], "budgets."+f.key); n != nil {
			*f.dst = *n
		}
	}
	return out
}

func (d *reader) success(s map[string]any) Success {
	out := Success{Script: d.text(s["script"]), File: d.text(s["file"]), Serve: d.text(s["serve"])}
	if w, ok := s["wait_http"].(map[string]any); ok {
		out.WaitHTTP = &WaitHTTP{
			Path: d.text(w["path"]), URL: d.text(w["url"]),
			Status:   d.whole(w["status"], "success.wait_http.status"),
			Contains: d.texts(w["contains"]), Matches: d.texts(w["matches"]),
			JSON:    d.scalars(object(w["json"]), "success.wait_http.json"),
			Timeout: d.whole(w["timeout"], "success.wait_http.timeout"),
		}
	}
	if e, ok := s["expect_output"].(map[string]any); ok {
		out.ExpectOutput = &ExpectOutput{Contains: d.texts(e["contains"]), Matches: d.texts(e["matches"])}
	}
	return out
}

// scalars is wait_http.json with numbers as float64, as a JSON body's
// values decode.
func (d *reader) scalars(m map[string]any, field string) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case string:
			v = d.text(x)
		case json.Number:
			f, err := strconv.ParseFloat(x.String(), 64)
			if err != nil && d.bad == nil {
				d.bad = &Problem{Field: field + "." + k, Rule: "file.values", Message: fmt.Sprintf("%s is out of range for a number", x)}
			}
			v = f
		case int:
			v = float64(x)
		case int64:
			v = float64(x)
		}
		out[d.text(k)] = v
	}
	return out
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

// shellWord returns s as one single-quoted shell word.
func shellWord(s string) string {
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
		lines = append(lines, "qs_serve "+shellWord(serve))
	}
	if w := s.WaitHTTP; w != nil {
		target := strings.TrimSpace(w.URL)
		if target == "" {
			target = strings.TrimSpace(w.Path)
		}
		parts := []string{"qs_wait_http", shellWord(target)}
		if w.Status != nil {
			parts = append(parts, "--status", shellWord(strconv.Itoa(*w.Status)))
		}
		if w.Timeout != nil {
			parts = append(parts, "--timeout", shellWord(strconv.Itoa(*w.Timeout)))
		}
		for _, c := range w.Contains {
			parts = append(parts, "--contains", shellWord(c))
		}
		for _, m := range w.Matches {
			parts = append(parts, "--matches", shellWord(m))
		}
		keys := make([]string, 0, len(w.JSON))
		for k := range w.JSON {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			parts = append(parts, "--json", shellWord(k+"="+jsonScalar(w.JSON[k])))
		}
		lines = append(lines, strings.Join(parts, " "))
	}
	if e := s.ExpectOutput; e != nil {
		parts := []string{"qs_expect_output"}
		for _, c := range e.Contains {
			parts = append(parts, "--contains", shellWord(strings.Trim(c, "\n")))
		}
		for _, m := range e.Matches {
			parts = append(parts, "--matches", shellWord(strings.Trim(m, "\n")))
		}
		lines = append(lines, strings.Join(parts, " "))
	}
	if author != "" {
		lines = append(lines, author)
	}
	return strings.Join(lines, "\n") + "\n"
}

// jsonScalar spells a wait_http.json value as it appears in a JSON body:
// true, 42, null, or a string's text. (The reference spelled YAML true as
// Python's True, which no JSON body ever contains.)
func jsonScalar(v any) string {
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
