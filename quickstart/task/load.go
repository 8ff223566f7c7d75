// Package task loads quickstart task files (the quickstarted format: YAML
// or JSON), checks them strictly against the task schema plus the rules a
// schema cannot say, and compiles the success check.
package task

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v2"

	"github.com/tabwright/tabwright/quickstart/egress"
)

// Budgets bound one attempt. Zero values never reach a run: Load fills the
// defaults.
type Budgets struct {
	MaxTurns          int `json:"max_turns"`
	MaxSeconds        int `json:"max_seconds"`
	MaxCommandSeconds int `json:"max_command_seconds"`
	MaxOutputChars    int `json:"max_output_chars"`
	MaxTokens         int `json:"max_tokens"`
}

// DefaultBudgets are the schema's defaults.
var DefaultBudgets = Budgets{MaxTurns: 20, MaxSeconds: 480, MaxCommandSeconds: 300, MaxOutputChars: 20000}

// WaitHTTP is success.wait_http.
type WaitHTTP struct {
	Path     string         `json:"path,omitempty"`
	URL      string         `json:"url,omitempty"`
	Status   *int           `json:"status,omitempty"`
	Contains Strings        `json:"contains,omitempty"`
	Matches  Strings        `json:"matches,omitempty"`
	JSON     map[string]any `json:"json,omitempty"`
	Timeout  *int           `json:"timeout,omitempty"`
}

// ExpectOutput is success.expect_output.
type ExpectOutput struct {
	Contains Strings `json:"contains,omitempty"`
	Matches  Strings `json:"matches,omitempty"`
}

// Success is the success block as written.
type Success struct {
	Script       string        `json:"script,omitempty"`
	File         string        `json:"file,omitempty"`
	Serve        string        `json:"serve,omitempty"`
	WaitHTTP     *WaitHTTP     `json:"wait_http,omitempty"`
	ExpectOutput *ExpectOutput `json:"expect_output,omitempty"`
}

// Strings is a string or a list of strings, as written; always a list here.
type Strings []string

// Task is a loaded, checked task.
type Task struct {
	Source string `json:"source"` // the file, as given
	Name   string `json:"name"`
	Goal   string `json:"goal"`
	Image  string `json:"image,omitempty"`

	Route     []string `json:"route"`      // docs.path, or the entrypoint as a one-page route
	DocsAllow []string `json:"docs_allow"` // route hosts first, in route order, then docs.allow

	NetworkAllow    []string `json:"network_allow"`    // what the shell may reach
	NetworkExplicit []string `json:"network_explicit"` // hosts named by hand

	Setup  []string `json:"setup"`
	Replay []string `json:"replay"`

	Success Success `json:"success"`
	// CheckFileText is success.file's text, read at load time; it is never
	// written into a workspace.
	CheckFileText string `json:"-"`
	// SuccessScript is the compiled check: declarative parts as helper
	// calls, then the author's script or file.
	SuccessScript string `json:"success_script"`

	Budgets Budgets `json:"budgets"`
}

// Entrypoint is the first page of the route.
func (t *Task) Entrypoint() string { return t.Route[0] }

// Mode is "replay+agent" when the task has replay commands, else "agent-only".
func (t *Task) Mode() string {
	if len(t.Replay) > 0 {
		return "replay+agent"
	}
	return "agent-only"
}

// HostAllowed reports whether rawURL's host is a docs host of this task or a
// subdomain of one.
func (t *Task) HostAllowed(rawURL string) bool { return egress.URLHostMatches(rawURL, t.DocsAllow) }

// Policy is what the task's shell may reach.
func (t *Task) Policy() egress.Policy {
	return egress.Policy{Explicit: t.NetworkExplicit, Docs: t.DocsAllow, Allow: t.NetworkAllow}
}

// Load reads, checks and compiles the task file at path. defaults (the
// repository config's tasks: mapping, may be nil) are merged under the
// file's own values. A bad file returns an *Error listing every problem.
func Load(path string, defaults map[string]any) (*Task, error) {
	data, p := readBounded(path)
	if p != nil {
		return nil, &Error{File: path, Problems: []Problem{*p}}
	}
	return Parse(path, data, defaults)
}

// Parse is Load on bytes already read; path names the file in errors and
// anchors success.file.
func Parse(path string, data []byte, defaults map[string]any) (*Task, error) {
	fail := func(rule, format string, args ...any) error {
		return &Error{File: path, Problems: []Problem{{Rule: rule, Message: fmt.Sprintf(format, args...)}}}
	}
	if len(data) > MaxFileBytes {
		return nil, &Error{File: path, Problems: []Problem{*tooLarge(int64(len(data)))}}
	}
	doc, err := decode(path, data)
	if err != nil {
		return nil, fail("file.syntax", "%s", err.Error())
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fail("file.mapping", "the top level must be a mapping of fields, got %s", kindOf(doc))
	}
	if defaults != nil {
		top = mergeDefaults(defaults, top)
	}
	var ps problems
	checkRules(path, top, &ps)
	schemaProblems(top, &ps)
	ps = unknownKeys(top, ps)
	if len(ps) > 0 {
		return nil, &Error{File: path, Problems: dedupe(ps)}
	}
	t, err := build(path, top)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// decode parses JSON (a .json file, or text starting with '{') or YAML with
// YAML 1.1 scalars, into JSON-like values.
func decode(path string, data []byte) (any, error) {
	trimmed := bytes.TrimSpace(data)
	if strings.EqualFold(filepath.Ext(path), ".json") || bytes.HasPrefix(trimmed, []byte("{")) {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			if strings.EqualFold(filepath.Ext(path), ".json") {
				return nil, fmt.Errorf("invalid JSON: %v", err)
			}
		} else if dec.More() {
			return nil, fmt.Errorf("invalid JSON: more than one value")
		} else {
			return v, nil
		}
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("invalid YAML: %v", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return normalise(v, "")
}

// normalise turns the YAML decoder's values into JSON-like ones: string
// keys, json.Number for numbers.
func normalise(v any, at string) (any, error) {
	switch x := v.(type) {
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("invalid YAML: key %v at %s is a %s; keys must be strings (quote it)", k, orTop(at), kindOf(k))
			}
			n, err := normalise(val, join(at, ks))
			if err != nil {
				return nil, err
			}
			out[ks] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			n, err := normalise(val, fmt.Sprintf("%s[%d]", at, i))
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case int:
		return json.Number(strconv.Itoa(x)), nil
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(x, 10)), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Sprint(x), nil
		}
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), nil
	default:
		return v, nil
	}
}

func orTop(at string) string {
	if at == "" {
		return "the top level"
	}
	return at
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

// kindOf names v's type in YAML's words (list, mapping), for messages about
// the file as written.
func kindOf(v any) string {
	switch t := jsonTypeOf(v); t {
	case "array":
		return "list"
	case "object":
		return "mapping"
	default:
		return t
	}
}

// mergeDefaults returns defaults with over laid on top: mappings merge key by key,
// recursively; lists and scalars in over replace the default wholesale.
func mergeDefaults(defaults, over map[string]any) map[string]any {
	out := make(map[string]any, len(defaults)+len(over))
	for k, v := range defaults {
		out[k] = v
	}
	for k, v := range over {
		if dm, ok := out[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				out[k] = mergeDefaults(dm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

func dedupe(ps problems) []Problem {
	// A loader rule explains a field better than the schema's keyword; keep
	// the schema's problem only where no rule spoke.
	ruled := map[string]bool{}
	for _, p := range ps {
		if !strings.HasPrefix(p.Rule, "schema.") {
			ruled[p.Field] = true
		}
	}
	var out []Problem
	seen := map[Problem]bool{}
	for _, p := range ps {
		if strings.HasPrefix(p.Rule, "schema.") && ruled[p.Field] {
			continue
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}
