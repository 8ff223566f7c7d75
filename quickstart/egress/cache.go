package egress

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Cache keeps immutable registry downloads on disk, keyed by their upstream
// URL, so that repeated runs do not download them again (qs run
// --registry-cache). Entries are written to a temporary file and renamed into
// place only when the whole body arrived, so several attempts, or several
// harnesses, may share one directory. Nothing is ever evicted: delete the
// directory to empty it.
type Cache struct {
	dir string
}

// cacheMeta sits beside each body.
type cacheMeta struct {
	URL         string    `json:"url"`
	ContentType string    `json:"content_type,omitempty"`
	Size        int64     `json:"size"`
	Stored      time.Time `json:"stored"`
}

// OpenCache opens (making it when missing) the cache in dir.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, fmt.Errorf("egress.cache_dir: no directory given for the registry cache")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("egress.cache_dir: %s: %v", dir, err)
	}
	root := filepath.Join(abs, "v1")
	if err := os.MkdirAll(filepath.Join(root, "tmp"), 0o755); err != nil {
		return nil, fmt.Errorf("egress.cache_dir: cannot make the registry cache in %s: %v; give --registry-cache a directory you can write", dir, err)
	}
	f, err := os.CreateTemp(filepath.Join(root, "tmp"), "probe-")
	if err != nil {
		return nil, fmt.Errorf("egress.cache_dir: cannot write in the registry cache %s: %v; give --registry-cache a directory you can write", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return &Cache{dir: root}, nil
}

// Dir is the cache's directory (the versioned one inside --registry-cache).
func (c *Cache) Dir() string { return c.dir }

func (c *Cache) paths(url string) (body, meta string) {
	sum := sha256.Sum256([]byte(url))
	k := hex.EncodeToString(sum[:])
	base := filepath.Join(c.dir, k[:2], k)
	return base + ".body", base + ".json"
}

// get opens the entry for url; ok is false on a miss (or a damaged entry).
func (c *Cache) get(url string) (*os.File, cacheMeta, bool) {
	var m cacheMeta
	bodyPath, metaPath := c.paths(url)
	b, err := os.ReadFile(metaPath)
	if err != nil || json.Unmarshal(b, &m) != nil || m.URL != url {
		return nil, m, false
	}
	f, err := os.Open(bodyPath)
	if err != nil {
		return nil, m, false
	}
	if st, err := f.Stat(); err != nil || st.Size() != m.Size {
		f.Close()
		return nil, m, false
	}
	return f, m, true
}

// cacheWriter receives one download; commit puts it in place.
type cacheWriter struct {
	c                  *Cache
	url, ctype         string
	f                  *os.File
	n                  int64
	err                error
	committed          bool
	bodyPath, metaPath string
}

func (c *Cache) create(url, contentType string) (*cacheWriter, error) {
	f, err := os.CreateTemp(filepath.Join(c.dir, "tmp"), "dl-")
	if err != nil {
		return nil, err
	}
	bodyPath, metaPath := c.paths(url)
	return &cacheWriter{c: c, url: url, ctype: contentType, f: f, bodyPath: bodyPath, metaPath: metaPath}, nil
}

func (w *cacheWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.f.Write(p)
	w.n += int64(n)
	if err != nil {
		w.err = err
	}
	return n, err
}

// commit stores the entry when it is whole: no write failed, and want (the
// upstream's Content-Length, or -1 when it sent none) matches.
func (w *cacheWriter) commit(want int64) bool {
	defer w.abort()
	if w.err != nil || (want >= 0 && w.n != want) {
		return false
	}
	if err := w.f.Close(); err != nil {
		return false
	}
	if err := os.MkdirAll(filepath.Dir(w.bodyPath), 0o755); err != nil {
		return false
	}
	b, _ := json.Marshal(cacheMeta{URL: w.url, ContentType: w.ctype, Size: w.n, Stored: time.Now().UTC()})
	mt, err := os.CreateTemp(filepath.Join(w.c.dir, "tmp"), "meta-")
	if err != nil {
		return false
	}
	mt.Write(b)
	mt.Close()
	// The body first, then the meta that vouches for it: a reader that sees
	// the meta sees a whole body.
	if os.Rename(w.f.Name(), w.bodyPath) != nil || os.Rename(mt.Name(), w.metaPath) != nil {
		os.Remove(mt.Name())
		return false
	}
	w.committed = true
	return true
}

func (w *cacheWriter) abort() {
	w.f.Close()
	if !w.committed {
		os.Remove(w.f.Name())
	}
}

var goModFile = regexp.MustCompile(`/@v/[^/]+\.(zip|mod|info)$`)

// Immutable reports whether the artifact at this URL path never changes once
// published, so that a copy may be served for ever: npm tarballs (/-/*.tgz),
// files under PyPI's /packages/, Go module proxy files of a version
// (@v/VERSION.zip|.mod|.info, not @v/list or @latest) and full checksum
// database tiles, Debian packages (.deb, .udeb, by-hash/ indexes) and crates
// (.crate). Indexes, package metadata and version lists change, and are
// always fetched.
func Immutable(p string) bool {
	p = path.Clean("/" + p)
	base := path.Base(p)
	switch {
	case strings.Contains(p, "/-/") && strings.HasSuffix(base, ".tgz"):
		return true
	case strings.HasPrefix(p, "/packages/") && pypiFile(base):
		return true
	case goModFile.MatchString(p) && !strings.HasSuffix(p, "/@v/list"):
		return true
	case strings.Contains(p, "/sumdb/") && strings.Contains(p, "/tile/") && !strings.Contains(p, ".p/"):
		return true
	case strings.HasSuffix(base, ".deb") || strings.HasSuffix(base, ".udeb") || strings.Contains(p, "/by-hash/"):
		return true
	case strings.HasSuffix(base, ".crate"):
		return true
	}
	return false
}

func pypiFile(base string) bool {
	for _, ext := range []string{".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz", ".egg", ".whl.metadata"} {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return false
}
