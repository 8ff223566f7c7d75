package docs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tabwright/tabwright/quickstart/egress"
)

// Cache is the docs cache (qs run --cache-dir): every page read_docs
// returned, keyed by the URL asked for, so two runs read the same bytes.
// Entries are JSON files named by the SHA-256 of the URL, written whole or
// not at all (several runs may share a directory); the text's own SHA-256
// is its content_hash. An entry keeps the hosts its read reached and serves
// only a read whose allowlist has them all: a page read under a wider
// allowlist may hold text the narrower one refuses. Nothing is evicted: --refresh reads every page again
// and overwrites, and delete the directory to empty it.
type Cache struct {
	dir string
}

// cacheEntry is one cached page.
type cacheEntry struct {
	URL           string    `json:"url"`
	ResolvedTo    string    `json:"resolved_to,omitempty"`
	Redirects     []string  `json:"redirects,omitempty"`
	Status        int       `json:"status"`
	Text          string    `json:"text"`
	OriginalChars int       `json:"original_chars"`
	Truncated     bool      `json:"truncated"`
	ContentHash   string    `json:"content_hash"`
	Rendered      bool      `json:"rendered"`
	Reached       []string  `json:"reached"`
	FetchedAt     time.Time `json:"fetched_at"`
}

// OpenCache opens (making it when missing) the docs cache in dir.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, fmt.Errorf("docs.cache_dir: no directory given for the docs cache")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("docs.cache_dir: %s: %v", dir, err)
	}
	// v2: entries say which hosts their read reached; a v1 entry was read
	// by a browser that reached any host, so none of them is trusted.
	root := filepath.Join(abs, "docs-v2")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("docs.cache_dir: cannot make the docs cache in %s: %v; give --cache-dir a directory you can write", dir, err)
	}
	f, err := os.CreateTemp(root, ".probe-")
	if err != nil {
		return nil, fmt.Errorf("docs.cache_dir: cannot write in the docs cache %s: %v; give --cache-dir a directory you can write", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return &Cache{dir: root}, nil
}

// Dir is the cache's directory (the versioned one inside --cache-dir).
func (c *Cache) Dir() string { return c.dir }

func (c *Cache) path(url string) string {
	sum := sha256.Sum256([]byte(url))
	h := hex.EncodeToString(sum[:])
	return filepath.Join(c.dir, h[:2], h+".json")
}

// get returns the cached read of url for a read under allow, or nil (a
// missing or corrupt entry, one whose text does not match its hash, and one
// that reached a host allow lacks are misses).
func (c *Cache) get(url string, allow []string) *Read {
	b, err := os.ReadFile(c.path(url))
	if err != nil {
		return nil
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil || e.URL != url || hashOf(e.Text) != e.ContentHash || !allHostsMatch(e.Reached, allow) {
		return nil
	}
	return &Read{URL: url, ResolvedTo: e.ResolvedTo, Redirects: e.Redirects, Status: e.Status, Text: e.Text,
		Chars: runeCount(e.Text), OriginalChars: e.OriginalChars, Truncated: e.Truncated, ContentHash: e.ContentHash,
		Rendered: e.Rendered, Reached: e.Reached, FromCache: true}
}

// put stores a successful read; a failure to store is returned, and the
// read itself stands.
func (c *Cache) put(r *Read) error {
	e := cacheEntry{URL: r.URL, ResolvedTo: r.ResolvedTo, Redirects: r.Redirects, Status: r.Status, Text: r.Text,
		OriginalChars: r.OriginalChars, Truncated: r.Truncated, ContentHash: r.ContentHash, Rendered: r.Rendered,
		Reached: r.Reached, FetchedAt: time.Now().UTC()}
	b, err := json.MarshalIndent(e, "", " ")
	if err != nil {
		return err
	}
	p := c.path(r.URL)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".entry-")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// allHostsMatch reports whether every host is on allow; an entry that
// names none reached nothing known and matches no allowlist.
func allHostsMatch(hosts, allow []string) bool {
	for _, h := range hosts {
		if !egress.HostMatches(h, allow) {
			return false
		}
	}
	return len(hosts) > 0
}
