// Package observe builds the observation: the compact, versioned JSON payload
// an agent reads a page through (schemas/observation.schema.json).
//
// One Capture is one round trip: a single expression, evaluated in the tab's
// isolated world, installs the page-side extractor (engine/injected) when it
// is not there yet and returns every section at once. The extractor keeps its
// state in that world, so element refs stay stable across observations of the
// same document.
package observe

import (
	"context"
	"encoding/json"

	"github.com/tabwright/tabwright/engine/errs"
)

// Page is what the observer needs from a tab: evaluate an expression in the
// tab's isolated world of its main frame and decode the JSON-serialisable
// result into out. The isolated world must stay the same for the life of a
// document, or refs start over.
type Page interface {
	Eval(ctx context.Context, expression string, out any) error
}

// SchemaVersion is the observation schema version this package emits.
const SchemaVersion = 1

// Observation modes (the schema's enum).
const (
	ModePassive  = "passive"
	ModeWatching = "watching"
	ModeDiffing  = "diffing"
)

// Bounds of the options: the defaults used for zero, and the smallest and
// largest values accepted (browser_observe lists these).
const (
	DefaultMaxChars       = 2500
	DefaultMaxInteractive = 150
	DefaultMaxReaderChars = 20000
	MinMaxChars           = 100
	LimitMaxChars         = 1 << 20
	LimitMaxInteractive   = 5000
	LimitScope            = 1000 // characters of a scope selector
	LimitSince            = 64   // characters of a digest
)

// Options bound and select what a capture returns. Zero values mean the
// defaults.
type Options struct {
	MaxChars       int // cut textpreview (and the reader's markdown) at this many characters
	MaxInteractive int // list at most this many interactive elements
	// Include names the sections to read (see Sections); nil means the
	// default set: text, forms, interactive (and the digest, always).
	Include []string
	// Scope is a CSS selector: every section is read under the first
	// element it matches.
	Scope string
	// ScopeHandle is the alternative to Scope for any locator: the
	// page-side handle of an element engine/locate resolved in the same
	// isolated world. ScopeName says what was searched, for messages and
	// for telling one watching request from another (handles change).
	ScopeHandle, ScopeName string
	// Mode is passive (default), diffing or watching; see Capture.
	Mode string
	// Since is the digest of an earlier observation of the same tab; it is
	// required in diffing mode and refused in the others.
	Since string
	// ScreenshotDir is where vision screenshots are written; empty means a
	// "tabwright" folder in the system's temporary directory.
	ScreenshotDir string
	// HideHost keeps the vision screenshot off the host's disk and its
	// setup out of the result, for a client that runs elsewhere (a
	// sandboxed agent): no file stays (OCR reads a private copy, removed at
	// once), Screenshot is empty, and a missing OCR says nothing of what the
	// host lacks.
	HideHost bool
	// Rows asks for interactive's compact form: runs of plain elements as
	// {columns, rows} entries (see Elements). The default is one element
	// per entry, the contract's meaning.
	Rows bool
	// AllText makes the preview all the visible text, for a caller that
	// looks for words on the page: by default it leaves out lines a listed
	// element's label says and folds a long table's rows.
	AllText bool

	fold bool // fold repeated cards (see fold): max_interactive left at its default
}

// normalise checks the options and fills in the defaults. Error paths use the
// tool parameter names, since that is where bad values come from.
func (o Options) normalise() (Options, error) {
	switch {
	case o.MaxChars < 0 || (o.MaxChars > 0 && o.MaxChars < MinMaxChars) || o.MaxChars > LimitMaxChars:
		return o, errs.Input("max_chars", "must be between %d and %d; got %d", MinMaxChars, LimitMaxChars, o.MaxChars).WithHint("leave it out for the default of %d (%d for the reader)", DefaultMaxChars, DefaultMaxReaderChars)
	case o.MaxInteractive < 0:
		return o, errs.Input("max_interactive", "must not be negative, got %d", o.MaxInteractive).WithHint("leave it out for the default of %d", DefaultMaxInteractive)
	case o.MaxInteractive > LimitMaxInteractive:
		return o, errs.Input("max_interactive", "must be between 1 and %d; got %d", LimitMaxInteractive, o.MaxInteractive)
	case len(o.Scope) > LimitScope:
		return o, errs.Input("scope", "at most %d characters, got %d", LimitScope, len(o.Scope))
	case o.Scope != "" && o.ScopeHandle != "":
		return o, errs.Input("scope", "give a CSS scope or a located element, not both")
	}
	if o.Mode == "" {
		o.Mode = ModePassive
	}
	switch o.Mode {
	case ModePassive, ModeWatching:
		if o.Since != "" {
			return o, errs.Input("since", "is only used with mode diffing").WithHint("add \"mode\": \"diffing\", or drop since")
		}
	case ModeDiffing:
		if o.Since == "" {
			return o, errs.Input("since", "is required with mode diffing").WithHint("pass the digest of an earlier observation of this tab")
		}
		if len(o.Since) > LimitSince {
			return o, errs.Input("since", "is not a digest: at most %d characters", LimitSince)
		}
	default:
		return o, errs.Input("mode", "must be one of passive, diffing, watching; got %q", o.Mode)
	}
	if _, err := ParseInclude(o.Include); err != nil {
		return o, err
	}
	if o.MaxInteractive == 0 {
		o.MaxInteractive = DefaultMaxInteractive
		// A scope already narrowed the page (it is how a fold says to list
		// cards with refs): what is under it is listed as it is.
		o.fold = !o.Rows && o.Scope == "" && o.ScopeHandle == ""
	}
	return o, nil
}

// Validate reports the first option that is out of bounds or that does not go
// with the others, with the tool parameter's name as its path: what
// Capture would refuse, for a caller to refuse it before queueing.
func (o Options) Validate() error {
	_, err := o.normalise()
	return err
}

// maxChars is the text preview's bound; readerChars the reader's.
func (o Options) maxChars() int {
	if o.MaxChars == 0 {
		return DefaultMaxChars
	}
	return o.MaxChars
}

func (o Options) readerChars() int {
	if o.MaxChars == 0 {
		return DefaultMaxReaderChars
	}
	return o.MaxChars
}

// Observation is the payload. JSON names are the schema's; anything outside
// the schema's named fields goes in Reserved. Optional sections use omitzero:
// a section that was read and found nothing is an empty list, one that was
// not asked for is absent.
type Observation struct {
	SchemaVersion int            `json:"schemaversion"`
	URL           string         `json:"url"`
	Title         string         `json:"title"`
	TextPreview   string         `json:"textpreview"`
	TextLength    int            `json:"textlength"`
	Forms         []Form         `json:"forms"`
	Interactive   Elements       `json:"interactive"`
	CapturedAt    int64          `json:"capturedat"`
	Environment   string         `json:"environment,omitempty"`
	Mode          string         `json:"mode,omitempty"` // left out in passive mode
	A11y          *A11y          `json:"a11y,omitempty"`
	Reader        *Reader        `json:"reader,omitempty"`
	ListPattern   []ListPattern  `json:"listpattern,omitzero"`
	TableShape    []TableShape   `json:"tableshape,omitzero"`
	Diff          *Diff          `json:"diff,omitempty"`
	Delta         bool           `json:"delta,omitempty"`
	Digest        string         `json:"digest,omitempty"`
	Vision        *Vision        `json:"vision,omitempty"`
	Reserved      map[string]any `json:"reserved,omitempty"`

	rows bool // write interactive's runs as rows (Options.Rows)
	// headKnown: the reader already knows the title and URL (see Since),
	// so the text leaves their line out.
	headKnown bool
}

// ReservedLoading is the Reserved key under which a tab that had not
// finished loading says so (a fmt.Stringer; see tabs.Loading).
const ReservedLoading = "loading"

// ReservedTruncated is the Reserved key under which a *Truncation says what
// the bounds left out.
const ReservedTruncated = "truncated"

// Truncation says which sections were cut. Nil fields were not.
type Truncation struct {
	TextPreview bool `json:"textpreview,omitempty"`
	Forms       *Cut `json:"forms,omitempty"`
	Interactive *Cut `json:"interactive,omitempty"`
	A11y        *Cut `json:"a11y,omitempty"`        // outline lines
	ListPattern *Cut `json:"listpattern,omitempty"` // patterns
	TableShape  *Cut `json:"tableshape,omitempty"`  // tables
	Reader      bool `json:"reader,omitempty"`      // markdown cut at the bound
}

func (t *Truncation) empty() bool { return t == nil || *t == Truncation{} }

// Cut counts what a bounded list kept and left out. For interactive, the
// kept include the elements of folded cards (reserved.repeated).
type Cut struct {
	Shown   int `json:"shown"`
	Omitted int `json:"omitted"`
}

// Truncated returns what the bounds cut, or nil when nothing was.
func (o *Observation) Truncated() *Truncation {
	switch t := o.Reserved[ReservedTruncated].(type) {
	case *Truncation:
		return t
	case nil:
		return nil
	default: // decoded from JSON by someone else: a generic map
		raw, err := json.Marshal(t)
		if err != nil {
			return nil
		}
		var out Truncation
		if json.Unmarshal(raw, &out) != nil {
			return nil
		}
		return &out
	}
}

// Form is a <form>, or a synthetic group of controls outside any form.
type Form struct {
	Selector  string  `json:"selector"`
	Name      string  `json:"name,omitempty"`
	Action    string  `json:"action,omitempty"` // absolute
	Method    string  `json:"method,omitempty"` // lowercase; left out for get, HTML's default
	Synthetic bool    `json:"synthetic,omitempty"`
	Fields    []Field `json:"fields"`
	Truncated bool    `json:"truncated,omitempty"` // more than 100 fields
	Omitted   int     `json:"omitted,omitempty"`   // fields left out
	// Frame is the child frame the form is in (nil: the page itself).
	Frame *FramePath `json:"frame,omitempty"`
}

// Field is one control of a form; a radio group is one field whose options
// are its radios.
type Field struct {
	// A field says its own label, type and name (the contract's forms),
	// even when interactive lists the control too: a consumer may read
	// either section alone.
	Label    string `json:"label,omitempty"`
	Type     string `json:"type,omitempty"` // input type, "select", "select-multiple", "textarea", "submit"...
	Name     string `json:"name,omitempty"`
	Selector string `json:"selector,omitempty"`
	// Ref is the control's ref in interactive, where a drawn control is
	// listed too (with its role and state; its value stays here).
	Ref string `json:"ref,omitempty"`
	// Value is never set for passwords and other secrets (card numbers,
	// security and one-time codes).
	Value     string   `json:"value,omitempty"`
	ValueLen  int      `json:"valuelength,omitempty"` // the whole value's length, when Value was cut
	Required  bool     `json:"required,omitempty"`
	Disabled  bool     `json:"disabled,omitempty"`
	ReadOnly  bool     `json:"readonly,omitempty"`
	Checked   bool     `json:"checked,omitempty"`
	Hidden    bool     `json:"hidden,omitempty"` // in the form but not drawn
	Options   []Option `json:"options,omitempty"`
	Truncated bool     `json:"truncated,omitempty"` // more than 50 options
	Omitted   int      `json:"omitted,omitempty"`   // options left out
}

// Option is a select option, a datalist suggestion or one radio of a group
// (which alone carries a selector). Label is left out when it equals Value.
// Selected is set only in a multiple select: a single select or a radio
// group says its choice in the field's Value.
type Option struct {
	Value    string `json:"value"`
	Label    string `json:"label,omitempty"`
	Selected bool   `json:"selected,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	Selector string `json:"selector,omitempty"`
	Ref      string `json:"ref,omitempty"` // a drawn radio's ref in interactive
}

// Element is a visible actionable element. Ref is stable for the element's
// life in its document; Selector is unique when captured (inside open shadow
// roots it reads "host >>> inner"). State fields appear only when set.
type Element struct {
	Ref      string `json:"ref"`
	Selector string `json:"selector"`
	Role     string `json:"role"`
	Label    string `json:"label"`          // the accessible name; '' when it has none
	Type     string `json:"type,omitempty"` // input type, when the role does not already say it
	Disabled bool   `json:"disabled,omitempty"`
	Checked  bool   `json:"checked,omitempty"`
	Mixed    bool   `json:"mixed,omitempty"` // checked state is "mixed" (indeterminate)
	// Expanded is nil when the element does not expand.
	Expanded *bool  `json:"expanded,omitempty"`
	Selected bool   `json:"selected,omitempty"`
	Pressed  bool   `json:"pressed,omitempty"`
	Value    string `json:"value,omitempty"`       // current text; for a select, the chosen option's label
	ValueLen int    `json:"valuelength,omitempty"` // the whole value's length, when Value was cut
	Href     string `json:"href,omitempty"`        // absolute
	// Frame is the child frame the element is in (nil: the page itself);
	// its ref names that frame's document.
	Frame *FramePath `json:"frame,omitempty"`
}
