package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/tabs"
	"github.com/tabwright/tabwright/mcpserver"
)

func TestParseSecrets(t *testing.T) {
	t.Parallel()
	got, err := parseSecrets("f", strings.NewReader("# comment\n\nAPI_KEY=abcd1234\nplain-secret\nwith space = kept whole\n"))
	if err != nil || strings.Join(got, "|") != "abcd1234|plain-secret|with space = kept whole" {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := parseSecrets("f", strings.NewReader("K=abc\n")); errs.Code(err) != errs.InvalidInput {
		t.Fatalf("a short secret: %v", err)
	}
}

// Only an environment-style NAME is split off: any other line with '=' is
// the secret whole, padded base64 included.
func TestParseSecretsKeepsLinesWhole(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		"pa=ssword":        "pa=ssword",
		"TOKEN=abc==":      "abc==",
		"QUJDRA==":         "QUJDRA==",
		"c2VjcmV0LXg=":     "c2VjcmV0LXg=",
		"_K9=value-1":      "value-1",
		"9K=value-1":       "9K=value-1",
		"Api_Key=value-1":  "Api_Key=value-1",
		"API_KEY==padded=": "=padded=",
	} {
		got, err := parseSecrets("f", strings.NewReader(line+"\n"))
		if err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("%q: got %q %v, want %q", line, got, err, want)
		}
	}
}

// FuzzParseSecrets: a secrets file gives values of at least the minimum
// length, or a coded error; never a panic.
func FuzzParseSecrets(f *testing.F) {
	for _, s := range []string{"", "a=bcdef", "#x\nTOKEN=secret-value\n", "abc", "=====", "\x00\xff\n", "pa=ssword", "TOKEN=abc==", "QUJDRA==\n", "A==="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSecrets("f", strings.NewReader(s))
		if err != nil {
			if errs.Code(err) != errs.InvalidInput {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		for _, v := range got {
			if len(v) < mcpserver.MinSecretLength {
				t.Fatalf("%q: short secret %q", s, v)
			}
			if !strings.Contains(s, v) {
				t.Fatalf("%q: secret %q is not a line's value", s, v)
			}
		}
	})
}

// --max-popups: the default is the engine's, 0 closes every popup, and a
// number out of range is refused with the flag named.
func TestMaxPopupsFlag(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]int{"": tabs.DefaultMaxPopups, "-max-popups=0": tabs.NoPopups, "-max-popups=3": 3} {
		var f stateFlags
		fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
		f.register(fs)
		if args != "" {
			if err := fs.Parse([]string{args}); err != nil {
				t.Fatal(err)
			}
		}
		var opt tabs.Options
		if err := f.apply(&opt, &mcpserver.Options{}); err != nil || opt.MaxPopups != want {
			t.Errorf("%q: MaxPopups %d (%v), want %d", args, opt.MaxPopups, err, want)
		}
	}
	for _, bad := range []int{-1, tabs.MaxPopupsLimit + 1} {
		f := stateFlags{maxPopups: bad}
		if err := f.apply(&tabs.Options{}, &mcpserver.Options{}); errs.Code(err) != errs.InvalidInput || errs.As(err).Path != "--max-popups" {
			t.Errorf("--max-popups %d: %v", bad, err)
		}
	}
}
