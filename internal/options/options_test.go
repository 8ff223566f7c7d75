package options

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
)

type testFlags struct {
	fs      *flag.FlagSet
	agent   *string
	headful *bool
	popups  *int
	idle    *time.Duration
	args    *List
}

func newTestFlags() testFlags {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	t := testFlags{fs: fs, args: &List{}}
	t.agent = fs.String("user-agent", "", "the user agent")
	t.headful = fs.Bool("headful", false, "show the window")
	t.popups = fs.Int("max-popups", 3, "popups")
	t.idle = fs.Duration("idle-timeout", time.Hour, "idle")
	fs.Var(t.args, "browser-arg", "an extra flag")
	fs.String(ConfigFlag, "", "the config file")
	return t
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// Flag beats environment beats file beats default, option by option.
func TestFlagThenEnvThenFileThenDefault(t *testing.T) {
	path := writeConfig(t, `{"user-agent": "from-file", "headful": true, "max-popups": 7, "browser-arg": ["--a", "--b"]}`)
	f := newTestFlags()
	if err := f.fs.Parse([]string{"--config", path, "--max-popups", "9"}); err != nil {
		t.Fatal(err)
	}
	src, err := Apply(f.fs, Settings{Prefix: "TW_", Getenv: envOf(map[string]string{"TW_USER_AGENT": "from-env"})})
	if err != nil {
		t.Fatal(err)
	}
	if *f.agent != "from-env" || !*f.headful || *f.popups != 9 || *f.idle != time.Hour || !slices.Equal(*f.args, []string{"--a", "--b"}) {
		t.Fatalf("values: agent %q headful %v popups %d idle %v args %v", *f.agent, *f.headful, *f.popups, *f.idle, *f.args)
	}
	want := Sources{"user-agent": FromEnv, "headful": FromFile, "max-popups": FromFlag, "idle-timeout": FromDefault, "browser-arg": FromFile, ConfigFlag: FromFlag}
	for k, v := range want {
		if src[k] != v {
			t.Errorf("source of %s: %q, want %q", k, src[k], v)
		}
	}
	line := Describe(f.fs.Lookup("user-agent"), src["user-agent"], "TW_")
	if line != `user-agent = "from-env" (env TW_USER_AGENT)` {
		t.Errorf("Describe: %s", line)
	}
}

func TestConfigFileNamedByEnvironment(t *testing.T) {
	path := writeConfig(t, `{"idle-timeout": "90s", "browser-arg": []}`)
	f := newTestFlags()
	f.fs.Parse(nil)
	src, err := Apply(f.fs, Settings{Prefix: "TW_", Getenv: envOf(map[string]string{"TW_CONFIG": path, "TW_BROWSER_ARG": `["--x=1,2", "--y"]`})})
	if err != nil {
		t.Fatal(err)
	}
	if *f.idle != 90*time.Second || src[ConfigFlag] != FromEnv || !slices.Equal(*f.args, []string{"--x=1,2", "--y"}) {
		t.Fatalf("idle %v, config from %q, args %v", *f.idle, src[ConfigFlag], *f.args)
	}
}

// Each wrong input is an invalid_input error naming where it is wrong.
func TestWrongInputNamesTheKey(t *testing.T) {
	for _, c := range []struct {
		name, file string
		env        map[string]string
		path       string // in the error's input path
	}{
		{name: "unknown key", file: `{"user-agnet": "x"}`, path: "user-agnet"},
		{name: "config in config", file: `{"config": "other.json"}`, path: "config"},
		{name: "string for bool", file: `{"headful": "yes"}`, path: "headful"},
		{name: "number for string", file: `{"user-agent": 5}`, path: "user-agent"},
		{name: "fraction for int", file: `{"max-popups": 1.5}`, path: "max-popups"},
		{name: "bad duration", file: `{"idle-timeout": "soon"}`, path: "idle-timeout"},
		{name: "list of numbers", file: `{"browser-arg": [1]}`, path: "browser-arg"},
		{name: "not an object", file: `[1]`, path: "--config"},
		{name: "two objects", file: `{} {}`, path: "--config"},
		{name: "bad env", env: map[string]string{"TW_MAX_POPUPS": "many"}, path: "TW_MAX_POPUPS"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newTestFlags()
			var args []string
			if c.file != "" {
				args = []string{"--config", writeConfig(t, c.file)}
			}
			f.fs.Parse(args)
			_, err := Apply(f.fs, Settings{Prefix: "TW_", Getenv: envOf(c.env)})
			e := errs.As(err)
			if err == nil || e.Code != errs.InvalidInput || !strings.Contains(e.Path, c.path) {
				t.Fatalf("error %v (path %q), want invalid_input at %q", err, e.Path, c.path)
			}
		})
	}
}

func TestMissingConfigFile(t *testing.T) {
	f := newTestFlags()
	f.fs.Parse([]string{"--config", filepath.Join(t.TempDir(), "none.json")})
	if _, err := Apply(f.fs, Settings{Prefix: "TW_", Getenv: envOf(nil)}); errs.Code(err) != errs.InvalidInput {
		t.Fatalf("error %v", err)
	}
}

func TestSchemaAndTableCoverEveryFlag(t *testing.T) {
	f := newTestFlags()
	schema, err := Schema(f.fs, "t", []string{ConfigFlag})
	if err != nil {
		t.Fatal(err)
	}
	table := Table(f.fs, "TW_", nil)
	f.fs.VisitAll(func(fl *flag.Flag) {
		if fl.Name != ConfigFlag && !strings.Contains(string(schema), `"`+fl.Name+`"`) {
			t.Errorf("schema lacks %s", fl.Name)
		}
		if !strings.Contains(table, "`"+EnvName("TW_", fl.Name)+"`") {
			t.Errorf("table lacks %s", fl.Name)
		}
	})
	if !strings.Contains(string(schema), `"additionalProperties": false`) {
		t.Error("schema allows other keys")
	}
}
