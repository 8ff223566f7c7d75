package options

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
)

// ConfigFlag is the flag that names the config file; it is never itself
// read from the file.
const ConfigFlag = "config"

// maxConfigBytes bounds the config file read: a few options, not data.
const maxConfigBytes = 1 << 20

// Settings say where Apply looks beyond the command line.
type Settings struct {
	Prefix string              // of environment variables, e.g. "TABWRIGHT_"
	Getenv func(string) string // os.Getenv, or a test's map
	// Skip are flags neither the environment nor the file may set.
	Skip []string
}

// Apply fills every flag of fs the command line did not set from its
// environment variable, else from the config file named by --config (or
// its variable), and says where each value came from. Call it after
// fs.Parse. An unknown key, a value of the wrong type or one the flag
// refuses is an error naming the key or variable.
func Apply(fs *flag.FlagSet, s Settings) (Sources, error) {
	src := Sources{}
	fs.Visit(func(f *flag.Flag) { src[f.Name] = FromFlag })
	skip := append([]string{ConfigFlag}, s.Skip...)
	var firstErr error
	fs.VisitAll(func(f *flag.Flag) {
		if firstErr != nil || src[f.Name] != "" || slices.Contains(skip, f.Name) {
			return
		}
		name := EnvName(s.Prefix, f.Name)
		if v := s.Getenv(name); v != "" {
			firstErr = setFromEnv(fs, f, name, v)
			src[f.Name] = FromEnv
		}
	})
	if firstErr != nil {
		return nil, firstErr
	}
	path := configPath(fs, s, src)
	if path == "" {
		markDefaults(fs, src)
		return src, nil
	}
	values, err := readConfig(fs, path, skip)
	if err != nil {
		return nil, err
	}
	for _, key := range sortedKeys(values) {
		if src[key] != "" {
			continue // the flag or the environment said it first
		}
		if err := setFromJSON(fs, fs.Lookup(key), values[key]); err != nil {
			return nil, errs.Input(path+": "+key, "%v", err).
				WithHint("see tabwright mcp --help for what %s takes", key)
		}
		src[key] = FromFile
	}
	markDefaults(fs, src)
	return src, nil
}

func markDefaults(fs *flag.FlagSet, src Sources) {
	fs.VisitAll(func(f *flag.Flag) {
		if src[f.Name] == "" {
			src[f.Name] = FromDefault
		}
	})
}

// configPath is --config, else its environment variable.
func configPath(fs *flag.FlagSet, s Settings, src Sources) string {
	f := fs.Lookup(ConfigFlag)
	if f == nil {
		return ""
	}
	if src[ConfigFlag] == FromFlag {
		return f.Value.String()
	}
	if v := s.Getenv(EnvName(s.Prefix, ConfigFlag)); v != "" {
		f.Value.Set(v)
		src[ConfigFlag] = FromEnv
		return v
	}
	return ""
}

// setFromEnv sets f from a variable's text: a list takes a JSON array of
// strings, or one value.
func setFromEnv(fs *flag.FlagSet, f *flag.Flag, name, v string) error {
	var err error
	if KindOf(f) == KindList && strings.HasPrefix(strings.TrimSpace(v), "[") {
		err = setFromJSON(fs, f, json.RawMessage(v))
	} else {
		err = fs.Set(f.Name, v)
	}
	if err != nil {
		return errs.Input(name, "%v", err).WithHint("unset %s or give it a value --%s takes", name, f.Name)
	}
	return nil
}

// readConfig reads the file as one JSON object whose keys are flags.
func readConfig(fs *flag.FlagSet, path string, skip []string) (map[string]json.RawMessage, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, errs.Input("--config", "cannot read %s: %v", path, err).WithHint("give the path of a JSON file you can read, or leave --config (and TABWRIGHT_CONFIG) out")
	}
	defer file.Close()
	raw, err := io.ReadAll(io.LimitReader(file, maxConfigBytes+1))
	if err != nil {
		return nil, errs.Input("--config", "reading %s: %v", path, err).WithHint("give the path of a JSON file you can read")
	}
	if len(raw) > maxConfigBytes {
		return nil, errs.Input("--config", "%s is over %d bytes", path, maxConfigBytes).WithHint("a config file holds options only: check that --config names the right file")
	}
	var values map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&values); err != nil || values == nil {
		why := "it is not a JSON object"
		if err != nil {
			why = err.Error()
		}
		return nil, errs.Input("--config", "%s: %s", path, why).
			WithHint(`write one JSON object whose keys are flag names, e.g. {"headful": true}`)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errs.Input("--config", "%s: text after the JSON object", path).WithHint("write one JSON object: all the options inside one pair of braces")
	}
	for key := range values {
		if fs.Lookup(key) == nil || slices.Contains(skip, key) {
			return nil, errs.Input(path+": "+key, "%q is not an option of this command", key).
				WithHint("keys are flag names without the dashes; tabwright mcp --help lists them")
		}
	}
	return values, nil
}

// setFromJSON sets f from a JSON value of its kind.
func setFromJSON(fs *flag.FlagSet, f *flag.Flag, raw json.RawMessage) error {
	kind := KindOf(f)
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return err
	}
	switch x := v.(type) {
	case bool:
		if kind == KindBool {
			return fs.Set(f.Name, fmt.Sprint(x))
		}
	case json.Number:
		if kind == KindInt || kind == KindNumber {
			return fs.Set(f.Name, x.String())
		}
	case string:
		if kind == KindString || kind == KindDuration {
			return fs.Set(f.Name, x)
		}
	case []any:
		if kind == KindList {
			return setList(fs, f, x)
		}
	}
	return fmt.Errorf("want %s, got %s", describeKind(kind), raw)
}

func setList(fs *flag.FlagSet, f *flag.Flag, items []any) error {
	for _, item := range items {
		s, ok := item.(string)
		if !ok {
			return fmt.Errorf("want an array of strings, got an item %v", item)
		}
		if err := fs.Set(f.Name, s); err != nil {
			return err
		}
	}
	return nil
}

func describeKind(k Kind) string {
	switch k {
	case KindBool:
		return "true or false"
	case KindInt:
		return "a whole number"
	case KindDuration:
		return `a duration string such as "90s" or "1h"`
	case KindList:
		return "an array of strings"
	}
	return "a " + string(k)
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
