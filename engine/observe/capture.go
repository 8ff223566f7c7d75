package observe

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/injected"
)

// Tracked is a Page that keeps per-tab state for the observer (recent
// observations for diffing, the previous one for watching) and names its
// current document. *tabs.Tab is one.
type Tracked interface {
	Page
	// State returns the value kept under key, creating it with init.
	State(key string, init func() any) any
	// Loader changes on every cross-document navigation.
	Loader() string
}

// Screenshotter is a Page that can capture its viewport as PNG.
type Screenshotter interface {
	Screenshot(ctx context.Context) ([]byte, error)
}

// pageResult is what __tabwright.observe returns; sections not asked for
// are absent.
type pageResult struct {
	Error *struct {
		Path    string `json:"path"`
		Message string `json:"message"`
	} `json:"error"`
	Quiet       bool          `json:"quiet"`
	Journal     *journal      `json:"journal"`
	URL         string        `json:"url"`
	Title       string        `json:"title"`
	Doc         string        `json:"doc"` // the document's mark for its refs (see Scoped)
	TextPreview string        `json:"textpreview"`
	TextLength  int           `json:"textlength"`
	Forms       []Form        `json:"forms"`
	Interactive []Element     `json:"interactive"`
	A11y        *A11y         `json:"a11y"`
	ListPattern []ListPattern `json:"listpattern"`
	TableShape  []TableShape  `json:"tableshape"`
	HTML        string        `json:"html"`
	Lang        string        `json:"lang"`
	Groundings  *struct {
		Boxes    map[string][4]int `json:"boxes"`
		Viewport [2]int            `json:"viewport"`
		Scroll   [2]int            `json:"scroll"`
	} `json:"groundings"`
	Truncated *Truncation `json:"truncated"`
	// Cards are the listed elements that sit in repeated cards, by ref
	// (asked for when folding).
	Cards map[string]cardPos `json:"cards"`
	// Frames are the selectors of the drawn iframes, for inlineFrames.
	Frames []string `json:"frames"`
}

type journal struct {
	Fresh   bool `json:"fresh"`
	Changes int  `json:"changes"`
}

// evalPage evaluates call in p with the extractors (injected.Extractors):
// a check of the bundle's mark and the call, the whole program only in a
// world without them.
func evalPage(ctx context.Context, p Page, call string, out any) error {
	eval := func(ctx context.Context, expr string) (json.RawMessage, error) {
		var raw json.RawMessage
		err := p.Eval(ctx, expr, &raw)
		return raw, err
	}
	raw, err := injected.Extractors().Run(ctx, eval, func() string { return call })
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return errs.Wrap(errs.Internal, err, "decoding the page's observation")
	}
	return nil
}

// pageOptions is what tw.observe reads.
type pageOptions struct {
	MaxChars       int             `json:"maxChars"`
	MaxInteractive int             `json:"maxInteractive"`
	Include        map[string]bool `json:"include"`
	Scope          string          `json:"scope,omitempty"`
	ScopeHandle    string          `json:"scopeHandle,omitempty"`
	Cards          bool            `json:"cards,omitempty"` // say where repeated cards are, to fold them
	AllText        bool            `json:"allText,omitempty"`
}

// pageCall is the page-side call that reads the sections of set.
func pageCall(o Options, set Set, watch bool) string {
	opts := pageOptions{MaxChars: o.maxChars(), MaxInteractive: o.MaxInteractive, Include: set, Scope: o.Scope, ScopeHandle: o.ScopeHandle, Cards: o.fold && set[SectionInteractive], AllText: o.AllText}
	if watch {
		// Reads the journal first: a quiet document since the last watching
		// observation needs no extraction at all.
		return injected.Call(injected.FnWatchedObserve, opts)
	}
	return injected.Call(injected.FnObserve, opts)
}

// Capture observes the page with one Eval call (plus a screenshot when
// vision is included).
//
// In passive mode it returns the sections asked for and the digest. A page
// that is Tracked also remembers the last HistorySize observations, so a
// later diffing call can name one by its digest.
//
// In diffing mode (Options.Since set) the payload is the full observation
// plus Diff against the remembered one.
//
// In watching mode the first call starts the page's change journal and
// returns a full payload; each later call returns a delta (Delta true):
// only the added or changed entries of each section, what was removed in
// Diff.Removed, required fields present. A new document (navigation) gives a
// full payload again. When the journal recorded no change the page is not
// read at all.
//
// The caller sets Environment.
func Capture(ctx context.Context, p Page, opt Options) (*Observation, error) {
	o, err := captureAll(ctx, p, opt)
	if o != nil {
		o.rows = opt.Rows
	}
	return o, err
}

// captureAll is Capture but for the form the payload is written in.
func captureAll(ctx context.Context, p Page, opt Options) (*Observation, error) {
	opt, err := opt.normalise()
	if err != nil {
		return nil, err
	}
	set, _ := ParseInclude(opt.Include)
	tracked, _ := p.(Tracked)
	if opt.Mode != ModePassive && tracked == nil {
		return nil, errs.Input("mode", "%s needs a tab that keeps state between observations", opt.Mode)
	}
	hist, base, err := recall(tracked, opt)
	if err != nil {
		return nil, err
	}
	if opt.Mode == ModeWatching {
		return captureWatching(ctx, p, tracked, opt, set, hist)
	}
	res, capturedAt, err := readPage(ctx, p, opt, set, false)
	if err != nil {
		return nil, err
	}
	o, err := assemble(ctx, p, res, opt, set, capturedAt)
	if err != nil {
		return nil, err
	}
	if hist != nil {
		hist.add(o)
	}
	if base != nil {
		o.Mode = ModeDiffing
		o.Diff = Compare(base, o)
	}
	return o, nil
}

// recall returns the tab's history of observations (nil for a page that
// keeps none) and, when diffing, the one opt.Since names.
func recall(tracked Tracked, opt Options) (*history, *Observation, error) {
	if tracked == nil {
		return nil, nil, nil
	}
	hist := tracked.State(historyKey, func() any { return &history{} }).(*history)
	if opt.Mode != ModeDiffing {
		return hist, nil, nil
	}
	base := hist.find(opt.Since)
	if base == nil {
		return nil, nil, errs.Input("since", "no recent observation of this tab has digest %q", clip(opt.Since, 40)).
			WithHint("the last %d observations of a tab are kept; observe again (passive) and pass its digest", HistorySize)
	}
	return hist, base, nil
}

// ListenerMarker is a Page that can tell the page-side observer which
// elements have pointer listeners of the page's own (no page script can
// see them); without it, the listing rules read markup and style alone.
type ListenerMarker interface {
	MarkListeners(ctx context.Context) error
}

// readPage runs the page-side observation once and checks its answer.
func readPage(ctx context.Context, p Page, opt Options, set Set, watching bool) (*pageResult, int64, error) {
	if m, ok := p.(ListenerMarker); ok && (set[SectionInteractive] || set[SectionVision]) {
		// A page that cannot be read this way is still observed: its
		// listeners are one signal of several.
		if err := m.MarkListeners(ctx); err != nil && ctx.Err() != nil {
			return nil, 0, err
		}
	}
	var res *pageResult
	if err := evalPage(ctx, p, pageCall(opt, set, watching), &res); err != nil {
		var coded *errs.Error
		if errors.As(err, &coded) {
			return nil, 0, err
		}
		return nil, 0, errs.Wrap(errs.Internal, err, "observing the page")
	}
	capturedAt := time.Now().UnixMilli()
	if res == nil {
		return nil, 0, errs.New(errs.ProtocolError, "the page returned no observation")
	}
	scopeRefs(p, res)
	if res.Error != nil {
		if res.Error.Path == "selector" {
			return nil, 0, errs.Input(res.Error.Path, "%s", res.Error.Message).WithHint("observe again; the page replaced the element")
		}
		return nil, 0, errs.Input(res.Error.Path, "%s", res.Error.Message).WithHint("scope takes one CSS selector, e.g. \"main\" or \"#content\"")
	}
	return res, capturedAt, nil
}

// captureWatching is watching mode: a full payload on the first call, on a
// new document or a different request; otherwise what changed.
func captureWatching(ctx context.Context, p Page, tracked Tracked, opt Options, set Set, hist *history) (*Observation, error) {
	w := tracked.State(watchKey, func() any { return &watchState{} }).(*watchState)
	loader := tracked.Loader()
	res, capturedAt, err := readPage(ctx, p, opt, set, true)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	same := w.prev != nil && w.loader == loader && w.include == set.key() && w.opts == opt.boundsKey()
	// A page registers and removes tools without touching its DOM: the
	// journal's quiet does not cover them.
	toolsKey := toolsKeyOf(p)
	if res.Quiet && same && toolsKey == w.tools {
		return w.prev.delta(w.prev, capturedAt), nil
	}
	if res.Quiet { // quiet, but the request differs from the last one: read in full
		if res, _, err = readPage(ctx, p, opt, set, false); err != nil {
			return nil, err
		}
	}
	o, err := assemble(ctx, p, res, opt, set, capturedAt)
	if err != nil {
		return nil, err
	}
	fresh := res.Journal == nil || res.Journal.Fresh
	if hist != nil {
		hist.add(o)
	}
	prev := w.prev
	w.prev, w.loader, w.include, w.opts, w.tools = o, loader, set.key(), opt.boundsKey(), toolsKey
	if !same || fresh {
		o.Mode = ModeWatching
		if prev != nil {
			o.reserve("watch", map[string]any{"full": true, "reason": reason(prev, loader, w, fresh)})
		}
		return o, nil
	}
	return prev.delta(o, capturedAt), nil
}

func reason(prev *Observation, loader string, w *watchState, fresh bool) string {
	if fresh {
		return "new document"
	}
	return "different include or bounds than the last watching observation"
}

// assemble builds the payload from the page's result: reader markdown,
// vision, required fields never null, truncation, digest.
func assemble(ctx context.Context, p Page, res *pageResult, opt Options, set Set, capturedAt int64) (*Observation, error) {
	o := &Observation{
		SchemaVersion: SchemaVersion,
		URL:           res.URL,
		Title:         res.Title,
		TextPreview:   res.TextPreview,
		TextLength:    res.TextLength,
		Forms:         res.Forms,
		Interactive:   res.Interactive,
		CapturedAt:    capturedAt,
		A11y:          res.A11y,
	}
	requiredPresent(o, res, set)
	tr := res.Truncated
	if tr == nil {
		tr = &Truncation{}
	}
	if f, ok := p.(Framed); ok && len(res.Frames) > 0 && opt.Scope == "" && opt.ScopeHandle == "" && (set[SectionForms] || set[SectionInteractive]) {
		inlineFrames(ctx, f, o, res.Frames, opt, set, tr)
	}
	if tools := pageToolsOf(p); tools != nil && wholePage(opt, set) {
		o.reserve(ReservedPageTools, tools)
	}
	if set[SectionReader] {
		r := readerOf(res.HTML, res.URL, res.Lang, opt.readerChars())
		o.Reader = r
		tr.Reader = r.Truncated
	}
	if set[SectionVision] {
		v, err := vision(ctx, p, res, opt)
		if err != nil {
			return nil, err
		}
		o.Vision = v
	}
	if set[SectionInteractive] && opt.fold {
		var reps []Repeat
		at := func(e Element) (cardPos, bool) { p, ok := res.Cards[e.Ref]; return p, ok }
		if o.Interactive, reps = fold(o.Interactive, at); reps != nil {
			o.reserve(ReservedRepeated, reps)
		}
	}
	if !set[SectionInteractive] {
		o.Interactive = []Element{} // listed only to ground the screenshot
		tr.Interactive = nil
	}
	if !tr.empty() {
		o.reserve(ReservedTruncated, tr)
	}
	if missing := notIncluded(set); missing != nil {
		// Required fields are present but empty; say they were not read.
		o.reserve("notincluded", missing)
	}
	o.Digest = DigestOf(o)
	return o, nil
}

// wholePage: the observation reads the page's controls and is not scoped
// to a part of it, so it lists what the page offers as a whole.
func wholePage(opt Options, set Set) bool {
	return opt.Scope == "" && opt.ScopeHandle == "" && (set[SectionForms] || set[SectionInteractive])
}

// requiredPresent makes every list the schema requires (and each section
// asked for) an empty list rather than null.
func requiredPresent(o *Observation, res *pageResult, set Set) {
	if o.Forms == nil {
		o.Forms = []Form{}
	}
	for i := range o.Forms {
		if o.Forms[i].Fields == nil {
			o.Forms[i].Fields = []Field{}
		}
	}
	if o.Interactive == nil {
		o.Interactive = []Element{}
	}
	if set[SectionListPattern] {
		o.ListPattern = nonNil(res.ListPattern)
		for i := range o.ListPattern {
			o.ListPattern[i].Fields = nonNil(o.ListPattern[i].Fields)
			o.ListPattern[i].Samples = nonNil(o.ListPattern[i].Samples)
		}
	}
	if set[SectionTableShape] {
		o.TableShape = nonNil(res.TableShape)
		for i := range o.TableShape {
			o.TableShape[i].Headers = nonNil(o.TableShape[i].Headers)
			o.TableShape[i].Samples = nonNil(o.TableShape[i].Samples)
		}
	}
}

// notIncluded lists the default sections set leaves out.
func notIncluded(set Set) []string {
	var missing []string
	for _, s := range DefaultSections {
		if !set[s] {
			missing = append(missing, s)
		}
	}
	return missing
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (o *Observation) reserve(key string, v any) {
	if o.Reserved == nil {
		o.Reserved = map[string]any{}
	}
	o.Reserved[key] = v
}

func (o Options) boundsKey() [6]any {
	return [6]any{o.maxChars(), o.MaxInteractive, o.Scope, o.ScopeName, o.fold, o.AllText}
}

// HistorySize is how many recent observations of a tab diffing can name.
const HistorySize = 8

const (
	historyKey = "observe.history"
	watchKey   = "observe.watch"
)

// history keeps a tab's last HistorySize observations, newest last.
type history struct {
	mu   sync.Mutex
	list []*Observation
}

func (h *history) add(o *Observation) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, old := range h.list { // an identical one moves to the end
		if old.Digest == o.Digest {
			h.list = append(h.list[:i], h.list[i+1:]...)
			break
		}
	}
	h.list = append(h.list, o)
	if len(h.list) > HistorySize {
		h.list = h.list[len(h.list)-HistorySize:]
	}
}

func (h *history) find(digest string) *Observation {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.list) - 1; i >= 0; i-- {
		if h.list[i].Digest == digest {
			return h.list[i]
		}
	}
	return nil
}

// watchState is the previous watching observation of a tab and what it was
// asked with.
type watchState struct {
	mu      sync.Mutex
	prev    *Observation
	loader  string
	include string
	opts    [6]any
	tools   string // the page tools seen with prev (toolsKeyOf)
}

// toolsKeyOf names the tools p offers now, to tell a change.
func toolsKeyOf(p Page) string {
	tools := pageToolsOf(p)
	if tools == nil {
		return ""
	}
	raw, _ := json.Marshal(tools)
	return string(raw)
}
