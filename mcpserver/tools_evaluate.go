package mcpserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/tabs"
)

// ---- browser_evaluate (listed only with tabwright mcp --allow-evaluate)

type evaluateInput struct {
	TabHandle  string `json:"tab_handle" tool:"required"`
	Expression string `json:"expression"`
	Cursor     string `json:"cursor" tool:"nonempty"`
	ResultType string `json:"result_type" tool:"enum=json|element,default=json"`
	// The frame to run in, as every locating tool names one.
	Frame     *locate.FrameSpec `json:"frame"`
	FrameID   string            `json:"frame_id"`
	MaxChars  *int              `json:"max_chars"`
	TimeoutMS *int              `json:"timeout_ms"`
}

// listedAs: the frame fields as every tool lists them, and the bounds and
// defaults of the constants below (a script's timeout_ms has its own
// default).
func (*evaluateInput) listedAs() map[string]schema {
	loc := locatorProps()
	return map[string]schema{
		"expression": {"type": "string", "minLength": 1, "maxLength": maxExpression},
		"frame":      loc["frame"].(schema),
		"frame_id":   loc["frame_id"].(schema),
		"max_chars":  integer("", minEvalChars, maxEvalChars, defaultEvalChars),
		"timeout_ms": integer("", minTimeoutMS(), maxTimeoutMS(), defaultEvalTimeout),
	}
}

// rules: an expression or a cursor; the frame's rules; what goes with
// which.
func (in *evaluateInput) rules() error {
	if err := firstViolation(act.ValidateFrame(in.Frame, in.FrameID)); err != nil {
		return err
	}
	inFrame := in.Frame != nil || in.FrameID != ""
	switch {
	case in.Expression == "" && in.Cursor == "":
		return errs.Input("expression", "is required (or a cursor from an earlier result)")
	case in.Expression != "" && in.Cursor != "":
		return errs.Input("cursor", "give expression or cursor, not both")
	case in.ResultType == "element" && inFrame:
		return errs.Input("result_type", "element works in the main frame only: refs name elements of the page")
	case in.Cursor != "" && (inFrame || in.ResultType != ""):
		return errs.Input("cursor", "a cursor pages an earlier result: drop frame, frame_id and result_type")
	}
	return nil
}

const (
	minEvalChars       = 100
	defaultEvalChars   = 10000
	maxEvalChars       = 100000
	defaultEvalTimeout = 10000
	maxExpression      = 100000
	keptEvalResults    = 4
)

type evaluateResult struct {
	Type       string         `json:"type"`
	JSON       string         `json:"json,omitempty"`
	Offset     int            `json:"offset,omitempty"`
	TotalChars int            `json:"total_chars"`
	NextCursor string         `json:"next_cursor,omitempty"`
	Truncated  bool           `json:"capture_truncated,omitempty"`
	Ref        string         `json:"ref,omitempty"`
	Element    map[string]any `json:"element,omitempty"`
}

func (s *server) evaluateTool() tool {
	return defineTool("browser_evaluate", `Run JavaScript once in a claimed tab's page (its globals visible) or a child frame (frame, frame_id: see browser_observe): an expression, or a function called with no arguments; promises awaited. Returns the value as JSON text in pages of max_chars (next_cursor reads on without running again), or with result_type element one element's ref. At timeout_ms the script is terminated, even a busy loop; the tab stays usable.
Errors: script_error (it threw), timeout, dialog_pending, invalid_input, invalid_handle.`, s.runEvaluate)
}

func (s *server) runEvaluate(ctx context.Context, owner string, in *evaluateInput) (any, string, error) {
	maxChars := orDefault(in.MaxChars, defaultEvalChars)
	if in.Cursor != "" {
		t, err := s.m.Get(owner, in.TabHandle)
		if err != nil {
			return nil, "", err
		}
		return nextPage(t, in.Cursor, maxChars)
	}
	var res *tabs.Evaluated
	err := s.onTab(ctx, owner, in.TabHandle, ptr(orDefault(in.TimeoutMS, defaultEvalTimeout)), func(ctx context.Context, t *tabs.Tab) (err error) {
		var f *tabs.Frame
		if in.Frame != nil || in.FrameID != "" {
			if f, err = locate.FrameOf(ctx, t, locate.Locator{Frame: in.Frame, FrameID: in.FrameID}); err != nil {
				return err
			}
		}
		res, err = t.Evaluate(ctx, tabs.Evaluation{Expression: in.Expression, Frame: f, Element: in.ResultType == "element"})
		return err
	})
	if err != nil {
		return nil, "", err
	}
	if res.Ref != "" {
		out := evaluateResult{Type: res.Type, Ref: res.Ref, Element: res.Element}
		return out, fmt.Sprintf("element %s %v", res.Ref, res.Element), nil
	}
	t, err := s.m.Get(owner, in.TabHandle)
	if err != nil {
		return nil, "", err
	}
	id := keepResult(t, res)
	return page(res, id, 0, maxChars)
}

// evalResults keeps a tab's last few large results for paging.
type evalResults struct {
	mu   sync.Mutex
	next int
	kept map[int]*tabs.Evaluated
}

const evalResultsKey = "mcpserver.evaluate"

func keepResult(t *tabs.Tab, res *tabs.Evaluated) int {
	k := t.State(evalResultsKey, func() any { return &evalResults{kept: map[int]*tabs.Evaluated{}} }).(*evalResults)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.next++
	k.kept[k.next] = res
	delete(k.kept, k.next-keptEvalResults)
	return k.next
}

func nextPage(t *tabs.Tab, cursor string, maxChars int) (any, string, error) {
	id, off, err := parseCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	k := t.State(evalResultsKey, func() any { return &evalResults{kept: map[int]*tabs.Evaluated{}} }).(*evalResults)
	k.mu.Lock()
	res := k.kept[id]
	k.mu.Unlock()
	if res == nil || off > len(res.JSON) {
		return nil, "", errs.Input("cursor", "the result of cursor %q is no longer kept", cursor).
			WithHint("the last %d results of a tab are kept; evaluate again", keptEvalResults)
	}
	return page(res, id, off, maxChars)
}

// parseCursor reads a next_cursor: ev<result id>:<offset>.
func parseCursor(cursor string) (id, off int, err error) {
	idText, offText, ok := strings.Cut(strings.TrimPrefix(cursor, "ev"), ":")
	id, err1 := strconv.Atoi(idText)
	off, err2 := strconv.Atoi(offText)
	if !strings.HasPrefix(cursor, "ev") || !ok || err1 != nil || err2 != nil || off < 0 || id < 0 {
		return 0, 0, errs.Input("cursor", "%q is not a cursor from browser_evaluate", cursor).WithHint("pass next_cursor exactly as returned")
	}
	return id, off, nil
}

// page returns max characters of the result's JSON from off.
func page(res *tabs.Evaluated, id, off, max int) (any, string, error) {
	end := min(off+max, len(res.JSON))
	out := evaluateResult{Type: res.Type, JSON: res.JSON[off:end], Offset: off, TotalChars: len(res.JSON), Truncated: res.Truncated}
	if end < len(res.JSON) {
		out.NextCursor = fmt.Sprintf("ev%d:%d", id, end)
	}
	text := out.JSON
	if out.NextCursor != "" {
		text += fmt.Sprintf("\n[characters %d-%d of %d; next_cursor %s]", off, end, len(res.JSON), out.NextCursor)
	}
	if res.Truncated {
		text += "\n[the value was cut when captured]"
	}
	return out, text, nil
}
