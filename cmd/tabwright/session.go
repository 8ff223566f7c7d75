package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/mcpserver/session"
)

const sessionUsage = `tabwright session: look at and replay what tabwright mcp --save-session recorded.

  tabwright session view DIR [-o FILE]        write the session as one HTML page (default DIR/view.html)
  tabwright session batch DIR [--tab HANDLE] [--from N]
                                              print the tab's successful actions as browser_batch steps;
                                              what is not replayed, and why, goes to stderr

DIR is a session's folder, or the --save-session folder (its newest session is used).
`

// runSession dispatches tabwright session view|batch.
func runSession(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, sessionUsage)
		return errs.Input("session", "give view or batch")
	}
	switch args[0] {
	case "view":
		return runSessionView(args[1:], stdout, stderr)
	case "batch":
		return runSessionBatch(args[1:], stdout, stderr)
	}
	fmt.Fprint(stderr, sessionUsage)
	return errs.Input("session", "unknown subcommand %q", args[0])
}

// parseWithDir parses flags given before or after the one folder argument.
func parseWithDir(name string, args []string, register func(*flag.FlagSet)) (string, error) {
	fs := newFlags("session " + name)
	register(fs)
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	rest := fs.Args()
	if len(rest) > 0 {
		if err := fs.Parse(rest[1:]); err != nil {
			return "", err
		}
		if fs.NArg() > 0 {
			return "", errs.Input("DIR", "one folder, then flags; got %q too", fs.Args())
		}
		return rest[0], nil
	}
	return "", errs.Input("DIR", "give the session's folder").WithHint("tabwright session %s DIR", name)
}

// loadSession reads DIR, or DIR's newest session when DIR holds sessions.
func loadSession(dir string, stderr io.Writer) (*session.Loaded, error) {
	if _, err := os.Stat(filepath.Join(dir, session.MetaFile)); err != nil {
		newest, ok := newestSession(dir)
		if !ok {
			return nil, errs.Input("DIR", "%s holds no recorded session", dir).
				WithHint("give a folder tabwright mcp --save-session wrote")
		}
		fmt.Fprintf(stderr, "tabwright: the newest session in %s: %s\n", dir, filepath.Base(newest))
		dir = newest
	}
	return session.Load(dir)
}

func newestSession(dir string) (string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	var names []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), session.MetaFile)); e.IsDir() && err == nil {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", false
	}
	sort.Strings(names) // session folders are named by their start time
	return filepath.Join(dir, names[len(names)-1]), true
}

func runSessionView(args []string, stdout, stderr io.Writer) error {
	var out string
	dir, err := parseWithDir("view", args, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "o", "", "the HTML file to write (default: view.html in the session's folder)")
	})
	if err != nil {
		return err
	}
	s, err := loadSession(dir, stderr)
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join(s.Dir, "view.html")
	}
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return errs.Wrap(errs.InvalidInput, err, "writing the view").WithPath("-o")
	}
	if err := session.View(s, f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return errs.Wrap(errs.Internal, err, "writing the view")
	}
	fmt.Fprintln(stdout, out)
	return nil
}

func runSessionBatch(args []string, stdout, stderr io.Writer) error {
	var tab string
	var from int
	dir, err := parseWithDir("batch", args, func(fs *flag.FlagSet) {
		fs.StringVar(&tab, "tab", "", "the tab_handle whose actions to print (default: the first tab acted on)")
		fs.IntVar(&from, "from", 0, "start at this call number (a note names it when the steps stop early)")
	})
	if err != nil {
		return err
	}
	s, err := loadSession(dir, stderr)
	if err != nil {
		return err
	}
	r, err := session.Steps(s, tab, from)
	if err != nil {
		return err
	}
	for _, n := range r.Notes {
		if n.Seq > 0 {
			fmt.Fprintf(stderr, "# call %d (%s): %s\n", n.Seq, n.Tool, n.Why)
		} else {
			fmt.Fprintf(stderr, "# %s\n", n.Why)
		}
	}
	if len(r.Steps) == 0 {
		return errs.Input("DIR", "no successful action of tab %s can be replayed (the notes above say why)", r.Tab)
	}
	fmt.Fprintf(stderr, "# %d steps of tab %s; replay: tabwright batch --url %q --steps FILE\n", len(r.Steps), r.Tab, r.StartURL)
	raw, _ := json.MarshalIndent(r.Steps, "", "  ")
	_, err = fmt.Fprintf(stdout, "%s\n", raw)
	return err
}
