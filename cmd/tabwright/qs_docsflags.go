package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/egress"
	qsrun "github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/sandbox"
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

// reader makes read_docs' reader as the flags say (its cache comes with
// open).
func (f *docsFlags) reader(b *docs.Browser) *docs.Reader {
	return &docs.Reader{Browser: b, Refresh: f.refresh, Offline: f.offline, IgnoreRobots: f.ignoreRobots,
		Affordances: f.affordances, RateLimit: time.Duration(f.rateLimit * float64(time.Second))}
}

// open opens the caches into reader, saying where they are.
func (f *docsFlags) open(reader *docs.Reader, backend string, stdout, stderr io.Writer) (*docs.Reader, *egress.Cache, exitCode) {
	if f.cacheDir != "" {
		c, err := docs.OpenCache(f.cacheDir)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return nil, nil, exitUsage
		}
		reader.Cache = c
		mode := "pages read before are served from it"
		switch {
		case f.refresh:
			mode = "every page read again and the copy replaced"
		case f.offline:
			mode = "offline: only cached pages can be read"
		}
		fmt.Fprintf(stdout, "docs cache: %s (%s)\n", c.Dir(), mode)
	}
	var reg *egress.Cache
	if f.registryCache != "" {
		if backend == sandbox.Local {
			fmt.Fprintln(stderr, qsrun.ErrCacheNeedsSandbox)
			return nil, nil, exitUsage
		}
		var err error
		if reg, err = egress.OpenCache(f.registryCache); err != nil {
			fmt.Fprintln(stderr, err)
			return nil, nil, exitUsage
		}
		fmt.Fprintf(stdout, "registry cache: %s (immutable downloads kept; npm, pip, uv and go use the proxy's mirrors)\n", reg.Dir())
	}
	return reader, reg, 0
}
