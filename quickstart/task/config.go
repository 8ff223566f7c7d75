package task

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ConfigNames are the repository config files, looked for in the working
// directory and then each parent; the nearest directory holding one wins.
var ConfigNames = []string{"tabwright.yaml", "quickstarted.yaml"}

// RunKeys are the run: settings a config may give. What changes the meaning
// of a result (agent, model, repeat) stays on the command line.
var RunKeys = []string{"backend", "image", "cache_dir", "prices", "out", "junit", "workers"}

// Config is a repository config: run: option defaults and tasks: defaults
// merged under every task.
type Config struct {
	Path  string
	Run   map[string]any
	Tasks map[string]any
}

// FindConfig walks from dir up to the root and loads the first config found.
// No config is (nil, nil). Two configs in one directory is an error: which
// one applies would be a guess.
func FindConfig(dir string) (*Config, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for {
		var found []string
		for _, n := range ConfigNames {
			p := filepath.Join(dir, n)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				found = append(found, p)
			}
		}
		if len(found) > 1 {
			return nil, fmt.Errorf("%s and %s are both here; keep one", found[0], found[1])
		}
		if len(found) == 1 {
			return LoadConfig(found[0])
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, nil
		}
		dir = parent
	}
}

// LoadConfig reads one config file. An empty file is no config.
func LoadConfig(path string) (*Config, error) {
	data, p := readBounded(path)
	if p != nil {
		return nil, fmt.Errorf("%s: %s [rule %s]", path, p.Message, p.Rule)
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil, nil
	}
	doc, err := decode(path, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: the top level must be a mapping with run: and tasks:", path)
	}
	c := &Config{Path: path}
	var unknown []string
	for k, v := range top {
		switch k {
		case "run", "tasks":
			if v == nil {
				continue
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %s: must be a mapping", path, k)
			}
			if k == "run" {
				c.Run = m
			} else {
				c.Tasks = m
			}
		default:
			unknown = append(unknown, k+suggest(k, []string{"run", "tasks"}))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s: unknown keys %s; only run: and tasks: are read", path, strings.Join(unknown, ", "))
	}
	var bad []string
	for k := range c.Run {
		ok := false
		for _, r := range RunKeys {
			ok = ok || k == r
		}
		if !ok {
			bad = append(bad, k+suggest(k, RunKeys))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, fmt.Errorf("%s: run: does not accept %s (it accepts %s). Settings that change what a result means stay on the command line", path, strings.Join(bad, ", "), strings.Join(RunKeys, ", "))
	}
	return c, nil
}

// Discover finds task files when none are named: tasks/*.yaml, else
// ./*.yaml (config files excluded), sorted.
func Discover(dir string) []string {
	for _, pattern := range []string{filepath.Join(dir, "tasks", "*.yaml"), filepath.Join(dir, "*.yaml")} {
		matches, _ := filepath.Glob(pattern)
		var out []string
		for _, m := range matches {
			base := filepath.Base(m)
			if base == "tabwright.yaml" || base == "quickstarted.yaml" {
				continue
			}
			if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
				out = append(out, m)
			}
		}
		if len(out) > 0 {
			sort.Strings(out)
			return out
		}
	}
	return nil
}

// Resolve expands the paths given on a command line: a directory gives its
// *.yaml and *.json files (sorted, not recursive), an unexpanded glob is
// expanded, anything else is passed on (a missing file then fails to load).
// Warnings say what was expanded to nothing.
func Resolve(args []string) (paths, warnings []string) {
	for _, a := range args {
		st, err := os.Stat(a)
		switch {
		case err == nil && st.IsDir():
			var found []string
			for _, ext := range []string{"*.yaml", "*.json"} {
				m, _ := filepath.Glob(filepath.Join(a, ext))
				found = append(found, m...)
			}
			sort.Strings(found)
			if len(found) == 0 {
				warnings = append(warnings, fmt.Sprintf("%s/ contains no .yaml or .json task files", strings.TrimRight(a, "/")))
			}
			paths = append(paths, found...)
		case err != nil && strings.ContainsAny(a, "*?["):
			m, _ := filepath.Glob(a)
			sort.Strings(m)
			if len(m) == 0 {
				warnings = append(warnings, fmt.Sprintf("%s matches no files", a))
			}
			paths = append(paths, m...)
		default:
			paths = append(paths, a)
		}
	}
	return paths, warnings
}
