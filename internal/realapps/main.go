//go:build realapps

// Command realapps runs real web apps, served on loopback from unmodified
// npm packages, through three MCP browser servers side by side: tabwright,
// Playwright MCP and Chrome DevTools MCP. The driver acts as a model
// would: it looks each target up in the server's own observation and acts
// through the server's tools; each task's verdict reads the app's state.
// Run it with make real-apps (see docs/real-apps.md).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// logSink gets the servers' stderr; traceSink every counted call and
// the text it returned (-trace), to see what a server showed.
var logSink, traceSink io.Writer = io.Discard, io.Discard

func stderrSink() io.Writer { return logSink }

type config struct {
	bin, modules, out string
	runs              int
	servers, apps     []string
}

func main() {
	var c config
	var servers, apps string
	flag.StringVar(&c.bin, "bin", "bin/tabwright", "the tabwright binary")
	flag.StringVar(&c.modules, "modules", "", "node_modules with the apps and the peer servers (npm ci of scripts/real-apps)")
	flag.StringVar(&c.out, "out", "", "folder for the results JSON and the servers' log")
	flag.IntVar(&c.runs, "runs", 1, "runs of each task")
	flag.StringVar(&servers, "servers", "tabwright,playwright-mcp,chrome-devtools-mcp", "servers to run, comma separated")
	flag.StringVar(&apps, "apps", "", "apps to run, comma separated (default all)")
	trace := flag.String("trace", "", "write every counted call and its text to this file")
	again := flag.String("report", "", "print the table of a results JSON written before, and run nothing")
	flag.Parse()
	if *again != "" {
		if err := reprint(*again); err != nil {
			fmt.Fprintln(os.Stderr, "real-apps:", err)
			os.Exit(1)
		}
		return
	}
	if *trace != "" {
		f, err := os.Create(*trace)
		if err != nil {
			fmt.Fprintln(os.Stderr, "real-apps:", err)
			os.Exit(1)
		}
		defer f.Close()
		traceSink = f
	}
	// The servers run in a folder of their own: paths must not be relative.
	for _, p := range []*string{&c.bin, &c.modules, &c.out} {
		if *p != "" {
			*p, _ = filepath.Abs(*p)
		}
	}
	c.servers = split(servers)
	c.apps = split(apps)
	if err := suite(c); err != nil {
		fmt.Fprintln(os.Stderr, "real-apps:", err)
		os.Exit(1)
	}
}

func split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// report is the JSON written after a suite run.
type report struct {
	Started  time.Time           `json:"started"`
	Runs     int                 `json:"runs"`
	Servers  map[string]string   `json:"servers"`
	Apps     map[string]string   `json:"apps"`
	WallMS   map[string]int64    `json:"wall_ms"`
	Outcomes []outcome           `json:"outcomes"`
	Tasks    map[string][]string `json:"tasks"`
}

func suite(c config) error {
	if c.modules == "" {
		return fmt.Errorf("-modules is required")
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(c.out, "servers.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	logSink = logf
	s, err := newSite(c.modules)
	if err != nil {
		return err
	}
	selected, err := pick(c.apps)
	if err != nil {
		return err
	}
	rep := report{Started: time.Now().UTC(), Runs: c.runs, Servers: map[string]string{}, Apps: map[string]string{}, WallMS: map[string]int64{}, Tasks: map[string][]string{}}
	for _, a := range selected {
		rep.Apps[a.Name] = a.Package
		for _, t := range a.Tasks {
			rep.Tasks[a.Name] = append(rep.Tasks[a.Name], t.ID+": "+t.Goal)
		}
	}
	ctx := context.Background()
	for _, name := range c.servers {
		spec, ok := serverSpecs(c)[name]
		if !ok {
			return fmt.Errorf("unknown server %q", name)
		}
		rep.Servers[name] = spec.version
		start := time.Now()
		outs, err := runServer(ctx, spec, s, selected, c.runs, filepath.Join(c.out, "work", name))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rep.WallMS[name] = time.Since(start).Milliseconds()
		rep.Outcomes = append(rep.Outcomes, outs...)
	}
	printTable(os.Stdout, rep, selected, c.servers)
	return writeJSON(c.out, rep)
}

// reprint prints the table of a results file, its apps and servers in the
// suite's order.
func reprint(file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var rep report
	if err := json.Unmarshal(raw, &rep); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	var selected []app
	for _, a := range apps() {
		if _, ok := rep.Apps[a.Name]; ok {
			selected = append(selected, a)
		}
	}
	var servers []string
	for _, s := range []string{"tabwright", "playwright-mcp", "chrome-devtools-mcp"} {
		if _, ok := rep.Servers[s]; ok {
			servers = append(servers, s)
		}
	}
	printTable(os.Stdout, rep, selected, servers)
	return nil
}

func pick(names []string) ([]app, error) {
	all := apps()
	if len(names) == 0 {
		return all, nil
	}
	var out []app
	for _, n := range names {
		found := false
		for _, a := range all {
			if a.Name == n {
				out = append(out, a)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown app %q", n)
		}
	}
	return out, nil
}

// serverSpec says how to start one server and wrap it.
type serverSpec struct {
	argv    []string
	env     []string
	version string
	wrap    func(*conn) server
}

func serverSpecs(c config) map[string]serverSpec {
	chrome := findChrome()
	node := func(rel string) string { return filepath.Join(c.modules, rel) }
	// Chromium refuses to run as root with its sandbox; tabwright turns it
	// off by itself there, the peers are told to.
	var pwRoot, cdtRoot []string
	if os.Geteuid() == 0 {
		pwRoot, cdtRoot = []string{"--no-sandbox"}, []string{"--chromeArg=--no-sandbox"}
	}
	return map[string]serverSpec{
		"tabwright": {
			argv:    []string{c.bin, "mcp", "--allow-evaluate", "--tools", "full"},
			env:     []string{"TABWRIGHT_CHROME=" + chrome},
			version: binVersion(c.bin),
			wrap:    func(cn *conn) server { return &tabwright{c: cn} },
		},
		"playwright-mcp": {
			argv:    append([]string{"node", node("@playwright/mcp/cli.js"), "--headless", "--isolated", "--executable-path", chrome}, pwRoot...),
			version: "@playwright/mcp " + pkgVersion(c.modules, "@playwright/mcp"),
			wrap:    func(cn *conn) server { return &playwright{c: cn} },
		},
		"chrome-devtools-mcp": {
			argv: append([]string{"node", node("chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"), "--headless", "--isolated",
				"--executablePath", chrome, "--no-usage-statistics", "--no-performance-crux"}, cdtRoot...),
			env:     []string{"CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1"},
			version: "chrome-devtools-mcp " + pkgVersion(c.modules, "chrome-devtools-mcp"),
			wrap:    func(cn *conn) server { return &devtools{c: cn} },
		},
	}
}

// findChrome picks the one browser every server runs: $TABWRIGHT_CHROME,
// else the first of the usual names on PATH (tabwright's own order).
func findChrome() string {
	if c := os.Getenv("TABWRIGHT_CHROME"); c != "" {
		return c
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return "chromium"
}

// binVersion is what the tabwright binary says its version is.
func binVersion(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "tabwright ?"
	}
	return strings.TrimSpace(string(out))
}

func pkgVersion(modules, name string) string {
	raw, err := os.ReadFile(filepath.Join(modules, name, "package.json"))
	if err != nil {
		return "?"
	}
	var v struct{ Version string }
	json.Unmarshal(raw, &v)
	return v.Version
}

// runServer starts one server process and runs every task on it, as one
// model session would.
func runServer(ctx context.Context, spec serverSpec, s *site, selected []app, runs int, dir string) ([]outcome, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cn, err := dial(ctx, spec.argv, spec.env, dir)
	if err != nil {
		return nil, err
	}
	defer cn.close()
	srv := spec.wrap(cn)
	var outs []outcome
	for _, a := range selected {
		for _, t := range a.Tasks {
			for n := 1; n <= runs; n++ {
				o := runTask(ctx, srv, s, a, t, n)
				fmt.Fprintf(os.Stderr, "%-20s %-12s %-22s run %d: %s\n", o.Server, o.App, o.Task, n, verdictText(o))
				outs = append(outs, o)
			}
		}
	}
	return outs, nil
}

func verdictText(o outcome) string {
	if o.Pass {
		return fmt.Sprintf("pass (%d chars, %d ms)", o.Chars, o.MS)
	}
	return fmt.Sprintf("FAIL (%d chars, %d ms): %s", o.Chars, o.MS, o.Reason)
}

func writeJSON(dir string, rep report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	name := filepath.Join(dir, "real-apps-"+rep.Started.Format("20060102-150405")+".json")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		return err
	}
	fmt.Println("results:", name)
	return os.WriteFile(filepath.Join(dir, "latest.json"), b, 0o644)
}
