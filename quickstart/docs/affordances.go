package docs

import (
	"context"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// Affordances are the machine-facing files a docs site may offer an agent:
// llms.txt, llms-full.txt, and a page's Markdown twin (PAGE.md). With
// --affordances none read_docs withholds them, to measure what the docs
// are worth without them; --probe-affordances records which exist.

// Affordance policies.
const (
	AffordancesAll  = "all"
	AffordancesNone = "none"
)

// AffordancePolicy is the reader's policy, as run_start records it.
func (d *Reader) AffordancePolicy() string {
	if d.Affordances == AffordancesNone {
		return AffordancesNone
	}
	return AffordancesAll
}

// IsAffordanceURL reports whether u names an affordance file.
func IsAffordanceURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	p := strings.ToLower(u.Path)
	base := path.Base(p)
	return base == "llms.txt" || base == "llms-full.txt" || strings.HasSuffix(p, ".md")
}

// AffordanceFile is what the probe found at one URL.
type AffordanceFile struct {
	URL     string `json:"url"`
	Present bool   `json:"present"`
	Status  int    `json:"status,omitempty"`
	Bytes   int    `json:"bytes"`
	Note    string `json:"note,omitempty"`
}

// ProbeAffordances looks for the entrypoint origin's llms.txt and
// llms-full.txt and the entrypoint's .md twin. Throttled like reads, not
// cached, not robots-checked, never scored: a record of what exists.
func (d *Reader) ProbeAffordances(ctx context.Context, entrypoint string) map[string]AffordanceFile {
	u, err := url.Parse(entrypoint)
	if err != nil || u.Host == "" {
		return map[string]AffordanceFile{}
	}
	origin := u.Scheme + "://" + u.Host
	targets := map[string]string{"llms.txt": origin + "/llms.txt", "llms-full.txt": origin + "/llms-full.txt"}
	page := strings.TrimSuffix(origin+u.EscapedPath(), "/")
	if !strings.HasSuffix(strings.ToLower(page), ".md") {
		targets["page.md"] = page + ".md"
	}
	found := map[string]AffordanceFile{}
	for _, label := range []string{"llms.txt", "llms-full.txt", "page.md"} {
		if t, ok := targets[label]; ok {
			found[label] = d.probeOne(ctx, t)
		}
	}
	return found
}

func (d *Reader) probeOne(ctx context.Context, target string) AffordanceFile {
	f := AffordanceFile{URL: target}
	u, _ := url.Parse(target)
	if err := d.wait(ctx, u.Hostname()); err != nil {
		f.Note = clipNote(err.Error())
		return f
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		f.Note = clipNote(err.Error())
		return f
	}
	req.Header.Set("User-Agent", UserAgent)
	resp, err := direct.Do(req)
	if err != nil {
		f.Note = clipNote(err.Error())
		return f
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	f.Status, f.Bytes = resp.StatusCode, len(b)
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	switch {
	case ok && strings.Contains(ctype, "html"):
		f.Note = "served HTML where a machine-readable file was expected"
	case ok && len(strings.TrimSpace(string(b))) > 0:
		f.Present = true
	}
	return f
}

func clipNote(s string) string {
	if r := []rune(s); len(r) > 120 {
		return string(r[:120])
	}
	return s
}
