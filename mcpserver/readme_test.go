package mcpserver

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/batch"
)

// profileRow is a profile's row of the README's profile table, written
// from profiles.go: its tools, or the profile it extends and what it adds.
func profileRow(name string) string {
	label := "`" + name + "`"
	if name == DefaultProfile {
		label += " (default)"
	}
	var base string
	var tools []string
	for _, e := range ProfileEntries(name) {
		if _, isProfile := profiles[e]; isProfile {
			base = e
			continue
		}
		tools = append(tools, "`"+e+"`")
	}
	list := strings.Join(tools, ", ")
	if base != "" {
		list = base + ", plus " + list
	}
	return fmt.Sprintf("| %s | %s |", label, list)
}

// The README's profile table is the profiles as profiles.go states them;
// with -update (go generate ./mcpserver) it is rewritten.
func TestReadmeProfiles(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	for _, p := range ProfileNames() {
		want := profileRow(p)
		prefix := "| `" + p + "`"
		found := false
		for i, l := range lines {
			if !strings.HasPrefix(l, prefix+" |") && !strings.HasPrefix(l, prefix+" (default) |") {
				continue
			}
			found = true
			if l != want {
				if *update {
					lines[i] = want
					continue
				}
				t.Errorf("README's row for %s:\n%s\nprofiles.go says:\n%s\n(go generate ./mcpserver rewrites it)", p, l, want)
			}
		}
		if !found {
			t.Errorf("README has no row for profile %s", p)
		}
	}
	if *update {
		if err := os.WriteFile("../README.md", []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReadmeDeadlineDefaults: the default deadlines the README and the
// lifecycle note state are the code's (DefaultActionTimeout, the batch
// contract's default timeout_ms), not figures written beside them.
func TestReadmeDeadlineDefaults(t *testing.T) {
	secs := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s" }
	action, batchDefault := secs(DefaultActionTimeout), secs(batch.DefaultTimeout())
	for file, says := range map[string][]string{
		"../README.md": {
			"default: " + action + " for the single-action tools",
			batchDefault + " for `browser_batch` (the contract's)",
		},
		"../docs/lifecycle.md": {
			"(" + action + " for single actions, `--action-timeout`; " + batchDefault + " for batch",
		},
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(b)), " ") // lines rewrapped
		for _, s := range says {
			if !strings.Contains(text, s) {
				t.Errorf("%s does not say %q", file, s)
			}
		}
	}
}
