package observe

import "fmt"

// A reader who observed a tab a moment ago already knows its page. Seen is
// what that reader was shown; Since leaves out of the next observation what
// the reader knows: all of it when nothing changed (same digest), else the
// title/URL line of the text when those did not change. The caller keeps
// one Seen per reader (the MCP server: per claim), since a reader who never
// saw the page must get it whole.

// ReservedUnchanged is the Reserved key of an observation that repeats
// nothing: the page is as the reader last saw it.
const ReservedUnchanged = "unchanged"

// Seen is what a reader was last shown of a tab.
type Seen struct {
	Digest, URL, Title string
}

// SeenIn is what o shows its reader.
func SeenIn(o *Observation) Seen { return Seen{Digest: o.Digest, URL: o.URL, Title: o.Title} }

// Since returns o for a reader who last saw s: o itself with its title/URL
// line left out of the text when both are the same, or, when the digest is
// the same, an unchanged payload: a delta with nothing in it (the required
// fields present, every section empty) whose reserved.unchanged and one
// text line say so. A passive observation only (diffing and watching say
// their own changes), and never one with vision's screenshot.
func (o *Observation) Since(s Seen) *Observation {
	if s.Digest == "" || o.Mode != "" || o.Diff != nil {
		return o
	}
	if o.Digest != s.Digest || o.Vision != nil { // an asked-for screenshot is sent again
		if o.URL == s.URL && o.Title == s.Title {
			c := *o
			c.headKnown = true
			return &c
		}
		return o
	}
	return &Observation{
		SchemaVersion: o.SchemaVersion,
		URL:           o.URL,
		Title:         o.Title,
		TextLength:    o.TextLength,
		Forms:         []Form{},
		Interactive:   []Element{},
		CapturedAt:    o.CapturedAt,
		Environment:   o.Environment,
		Delta:         true,
		Digest:        o.Digest,
		Reserved:      map[string]any{ReservedUnchanged: unchangedNote(o.Digest)},
	}
}

// unchangedNote is the one line an unchanged observation is.
func unchangedNote(digest string) string {
	return fmt.Sprintf("unchanged since your last observation (digest %s); full: true reads it again", digest)
}

// Unchanged says whether o is an unchanged payload (see Since).
func (o *Observation) Unchanged() bool {
	_, ok := o.Reserved[ReservedUnchanged]
	return ok
}
