package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/runcmd"
)

// docsFlags are qs run's flags for how read_docs reads (the docs cache,
// manners, affordances) and the registry cache.
type docsFlags struct {
	cacheDir, registryCache, affordances  string
	refresh, offline, ignoreRobots, probe bool
	rateLimit                             float64
}

func addDocsFlags(fs *flag.FlagSet) *docsFlags {
	f := &docsFlags{}
	fs.StringVar(&f.cacheDir, "cache-dir", "", "the docs cache: every page read_docs returns is kept here by URL, and later runs read the same bytes")
	fs.BoolVar(&f.refresh, "refresh", false, "with --cache-dir: read every page again, replace the cached copy, and record docs_changed when it differs")
	fs.BoolVar(&f.offline, "offline", false, "with --cache-dir: read only the cache; a page not in it is refused (offline_cache_miss)")
	fs.StringVar(&f.registryCache, "registry-cache", "", "keep immutable registry downloads here and serve them to later runs (sandbox backend; npm, pip/uv and go are pointed at the proxy's mirrors)")
	fs.Float64Var(&f.rateLimit, "rate-limit", 1.0, "least seconds between two reads of one docs host (loopback hosts are not throttled)")
	fs.BoolVar(&f.ignoreRobots, "ignore-robots", false, "read pages the docs site's robots.txt disallows")
	fs.StringVar(&f.affordances, "affordances", docs.AffordancesAll, "all, or none: withhold llms.txt, llms-full.txt and *.md from read_docs")
	fs.BoolVar(&f.probe, "probe-affordances", false, "record which of llms.txt, llms-full.txt and the entrypoint's .md exist (attempt 1; never scored)")
	return f
}

// check refuses contradictory or malformed values before anything runs.
func (f *docsFlags) check(stderr io.Writer) exitCode {
	switch {
	case f.affordances != docs.AffordancesAll && f.affordances != docs.AffordancesNone:
		fmt.Fprintf(stderr, "--affordances %q: all or none\n", f.affordances)
	case (f.refresh || f.offline) && f.cacheDir == "":
		fmt.Fprintln(stderr, "--refresh and --offline work on the docs cache; give --cache-dir DIR")
	case f.refresh && f.offline:
		fmt.Fprintln(stderr, "--refresh reads every page again and --offline reads none; give one")
	case f.rateLimit < 0:
		fmt.Fprintln(stderr, "--rate-limit must be 0 or more seconds")
	default:
		return exitOK
	}
	return exitUsage
}

// config is read_docs' reading and the caches as the flags say.
func (f *docsFlags) config() runcmd.Docs {
	return runcmd.Docs{CacheDir: f.cacheDir, RegistryCache: f.registryCache, Affordances: f.affordances,
		Refresh: f.refresh, Offline: f.offline, IgnoreRobots: f.ignoreRobots, Probe: f.probe,
		RateLimit: time.Duration(f.rateLimit * float64(time.Second))}
}
