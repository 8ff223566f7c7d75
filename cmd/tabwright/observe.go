package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/observetab"
	"github.com/tabwright/tabwright/engine/tabs"
)

// runObserve is the one-shot: launch, open, observe, print, exit.
func runObserve(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("observe")
	var bf browserFlags
	bf.register(fs)
	asJSON := fs.Bool("json", false, "print the observation as JSON")
	maxChars := fs.Int("max-chars", 0, fmt.Sprintf("cut the text preview (default %d) and the reader's markdown (default %d) at this many characters (%d to %d)", observe.DefaultMaxChars, observe.DefaultMaxReaderChars, observe.MinMaxChars, observe.LimitMaxChars))
	include := fs.String("include", "", "comma-separated sections: text, forms, interactive, a11y, reader, listpattern, tableshape, vision, all (default text,forms,interactive)")
	scope := fs.String("scope", "", "CSS selector: read only under the first element it matches")
	rows := fs.Bool("rows", false, "with --json: write runs of plain interactive elements as {columns, rows}")
	diff := fs.Bool("diff", false, "compare two saved observations: observe --diff a.json b.json")
	timeout := fs.Duration("timeout", 30*time.Second, "deadline for loading and reading the page")
	if err := fs.Parse(reorder(args)); err != nil {
		return err
	}
	if *diff {
		return runDiff(fs.Args(), stdout)
	}
	if fs.NArg() != 1 {
		return errs.Input("URL", "give exactly one URL (or a local file path)").WithHint("tabwright observe https://example.com/")
	}
	target := fs.Arg(0)
	if st, err := os.Stat(target); err == nil && !st.IsDir() {
		abs, _ := filepath.Abs(target)
		target = "file://" + abs
	}
	if err := tabs.ValidateURL("URL", target); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	m, err := newManager(bf)
	if err != nil {
		return err
	}
	defer m.Close()
	opt := observe.Options{MaxChars: *maxChars, Scope: *scope, Rows: *rows}
	if *include != "" {
		for _, name := range strings.Split(*include, ",") {
			opt.Include = append(opt.Include, strings.TrimSpace(name))
		}
	}
	obs, err := openAndObserve(ctx, m, target, opt)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(obs)
	}
	fmt.Fprint(stdout, observe.Render(obs))
	return nil
}

func openAndObserve(ctx context.Context, m *tabs.Manager, url string, opt observe.Options) (*observe.Observation, error) {
	opened, _, err := m.OpenAndLoad(ctx, tabs.OpenOptions{Owner: "cli", URL: url, Active: true})
	if err != nil {
		return nil, err
	}
	return observetab.Capture(ctx, opened.Tab, observetab.Part{}, opt) // frames inline, as browser_observe reads them
}

// runDiff reads two saved observations (any schemaversion >= 1) and prints
// what changed from the first to the second as JSON: {base, added, removed,
// changed}, keyed by section.
func runDiff(files []string, stdout io.Writer) error {
	if len(files) != 2 {
		return errs.Input("files", "give exactly two observation files, got %d", len(files)).WithHint("tabwright observe --diff a.json b.json")
	}
	var obs [2]*observe.Observation
	for i, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			return errs.Input(name, "cannot read: %v", err)
		}
		o, err := observe.Decode(raw)
		if err != nil {
			e := errs.As(err)
			return errs.Input(name+": "+e.Path, "%s", e.Message)
		}
		// Recomputed: a saved file may have been edited since it was taken.
		o.Digest = observe.DigestOf(o)
		obs[i] = o
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(observe.Compare(obs[0], obs[1]))
}

// reorder moves flags before positional arguments, so that
// "observe URL --json" works as well as "observe --json URL".
func reorder(args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			if !hasValue(a) && i+1 < len(args) && takesValue(a) {
				flags = append(flags, args[i+1])
				i++
			}
		default:
			rest = append(rest, a)
		}
	}
	return append(flags, rest...)
}

func hasValue(flag string) bool {
	for _, c := range flag {
		if c == '=' {
			return true
		}
	}
	return false
}

// takesValue lists the observe flags that are not booleans.
func takesValue(flag string) bool {
	switch flag {
	case "--max-chars", "-max-chars", "--timeout", "-timeout", "--cdp-url", "-cdp-url", "--include", "-include", "--scope", "-scope":
		return true
	}
	return false
}
