package runcmd

import (
	"fmt"
	"io"

	"github.com/tabwright/tabwright/quickstart/docs"
	"github.com/tabwright/tabwright/quickstart/egress"
	"github.com/tabwright/tabwright/quickstart/run"
	"github.com/tabwright/tabwright/quickstart/sandbox"
)

// reader makes read_docs' reader as d says (its cache comes with
// openCaches).
func (d Docs) reader(b *docs.Browser) *docs.Reader {
	return &docs.Reader{Browser: b, Refresh: d.Refresh, Offline: d.Offline, IgnoreRobots: d.IgnoreRobots,
		Affordances: d.Affordances, RateLimit: d.RateLimit}
}

// openCaches opens the docs cache into reader and the registry cache,
// saying where they are.
func (d Docs) openCaches(reader *docs.Reader, backend string, stdout, stderr io.Writer) (*egress.Cache, run.ExitCode) {
	if d.CacheDir != "" {
		c, err := docs.OpenCache(d.CacheDir)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return nil, run.ExitUsage
		}
		reader.Cache = c
		fmt.Fprintf(stdout, "docs cache: %s (%s)\n", c.Dir(), d.cacheMode())
	}
	if d.RegistryCache == "" {
		return nil, run.ExitOK
	}
	if backend == sandbox.Local {
		fmt.Fprintln(stderr, run.ErrCacheNeedsSandbox)
		return nil, run.ExitUsage
	}
	reg, err := egress.OpenCache(d.RegistryCache)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, run.ExitUsage
	}
	fmt.Fprintf(stdout, "registry cache: %s (immutable downloads kept; npm, pip, uv and go use the proxy's mirrors)\n", reg.Dir())
	return reg, run.ExitOK
}

func (d Docs) cacheMode() string {
	switch {
	case d.Refresh:
		return "every page read again and the copy replaced"
	case d.Offline:
		return "offline: only cached pages can be read"
	}
	return "pages read before are served from it"
}
