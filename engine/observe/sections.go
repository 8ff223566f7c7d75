package observe

import (
	"sort"
	"strconv"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
)

// Section names, as `include` takes them. text stands for textpreview and
// textlength.
const (
	SectionText        = "text"
	SectionForms       = "forms"
	SectionInteractive = "interactive"
	SectionA11y        = "a11y"
	SectionReader      = "reader"
	SectionListPattern = "listpattern"
	SectionTableShape  = "tableshape"
	SectionVision      = "vision"
	SectionDigest      = "digest"
	SectionAll         = "all" // every section but vision
)

// Sections lists the names include accepts, in payload order.
var Sections = []string{SectionText, SectionForms, SectionInteractive, SectionA11y, SectionReader,
	SectionListPattern, SectionTableShape, SectionVision, SectionDigest, SectionAll}

// DefaultSections are read when include is not given.
var DefaultSections = []string{SectionText, SectionForms, SectionInteractive}

// MaxInclude bounds the entries of include.
const MaxInclude = 16

// Set is a set of section names.
type Set map[string]bool

// ParseInclude checks the entries of include and returns the set they name;
// nil or empty gives the defaults. The digest is always computed, so
// "digest" is accepted and changes nothing; "all" is every section but
// vision, which takes a screenshot and so is asked for by name.
func ParseInclude(include []string) (Set, error) {
	set := Set{}
	if len(include) == 0 {
		for _, s := range DefaultSections {
			set[s] = true
		}
		return set, nil
	}
	if len(include) > MaxInclude {
		return nil, errs.Input("include", "at most %d entries, got %d", MaxInclude, len(include))
	}
	for i, name := range include {
		known := false
		for _, s := range Sections {
			if name == s {
				known = true
			}
		}
		if !known {
			return nil, errs.Input("include["+strconv.Itoa(i)+"]", "unknown section %q", clip(name, 40)).
				WithHint("sections: %s", strings.Join(Sections, ", "))
		}
		switch name {
		case SectionAll:
			for _, s := range Sections {
				if s != SectionVision && s != SectionAll && s != SectionDigest {
					set[s] = true
				}
			}
		case SectionDigest:
		default:
			set[name] = true
		}
	}
	return set, nil
}

// names lists the set in the order of Sections.
func (s Set) names() []string {
	var out []string
	for _, n := range Sections {
		if s[n] {
			out = append(out, n)
		}
	}
	return out
}

func (s Set) key() string { return strings.Join(s.names(), ",") }

// A11y is the accessibility outline: one line per landmark, heading, list,
// table, control or named image, `role "name" [state]`, indented two spaces
// per level.
type A11y struct {
	Outline   string `json:"outline"`
	Lines     int    `json:"lines"`
	Truncated bool   `json:"truncated,omitempty"`
	Omitted   int    `json:"omitted,omitempty"` // lines past the bound
}

// Reader is the main content of the page as Markdown, links kept absolute.
// Found is false when no article stood out (a form, a list of links); the
// metadata may still be set.
type Reader struct {
	Found     bool   `json:"found"`
	Title     string `json:"title,omitempty"`
	Byline    string `json:"byline,omitempty"`
	SiteName  string `json:"sitename,omitempty"`
	Lang      string `json:"lang,omitempty"`
	Excerpt   string `json:"excerpt,omitempty"`
	Length    int    `json:"length"` // characters of article text, before any cut
	Markdown  string `json:"markdown"`
	Truncated bool   `json:"truncated,omitempty"`
}

// ListPattern is a run of repeated siblings: Item selects them (under
// Container), Fields names what each carries, Samples shows up to three.
type ListPattern struct {
	Container string              `json:"container"`
	Item      string              `json:"item"`
	Count     int                 `json:"count"`
	Fields    []string            `json:"fields"`
	Samples   []map[string]string `json:"samples"`
}

// TableShape is a data table: its selector, caption, header labels, body
// row and column counts, and up to three sample rows.
type TableShape struct {
	Selector string     `json:"selector"`
	Caption  string     `json:"caption,omitempty"`
	Headers  []string   `json:"headers"`
	Rows     int        `json:"rows"`
	Cols     int        `json:"cols"`
	Samples  [][]string `json:"samples"`
}

// Vision is the visual side of an observation: a screenshot of the
// viewport, the boxes of the listed interactive elements in it, and the OCR
// text when tesseract is installed.
type Vision struct {
	Screenshot string            `json:"screenshot,omitempty"` // PNG file path
	Image      *VisionImage      `json:"image,omitempty"`      // the screenshot's size and scale
	Viewport   [2]int            `json:"viewport"`             // CSS px
	Scroll     [2]int            `json:"scroll"`               // CSS px of the viewport's top-left in the page
	Groundings map[string][4]int `json:"groundings"`           // ref -> [x, y, width, height] in viewport CSS px
	OCR        string            `json:"ocr,omitempty"`
	OCRNote    string            `json:"ocrnote,omitempty"` // why there is no OCR text
	Truncated  bool              `json:"truncated,omitempty"`
}

// Diff is what changed since the observation whose digest is Base. Each map
// is keyed by section; see Compare for the entries.
type Diff struct {
	Base    string           `json:"base"`
	Added   map[string][]any `json:"added"`
	Removed map[string][]any `json:"removed"`
	Changed map[string][]any `json:"changed"`
}

// Empty reports whether nothing changed.
func (d *Diff) Empty() bool {
	return d == nil || len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0
}

// Sections lists the sections that changed, sorted.
func (d *Diff) Sections() []string {
	seen := map[string]bool{}
	for _, m := range []map[string][]any{d.Added, d.Removed, d.Changed} {
		for k := range m {
			seen[k] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
