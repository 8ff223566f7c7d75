// Package errs defines the one error shape every layer returns: a stable code
// an agent can branch on, a message a person can act on, the input path that
// was wrong, and what to do next.
package errs

import (
	"errors"
	"fmt"
)

// Stable error codes. Agents branch on these; never rename one.
const (
	InvalidInput       = "invalid_input"
	BrowserUnavailable = "browser_unavailable"
	BrowserNotFound    = "browser_not_found"
	Timeout            = "timeout"
	TabNotFound        = "tab_not_found"
	TabInUse           = "tab_in_use"
	TabMismatch        = "tab_mismatch"
	InvalidHandle      = "invalid_handle"
	NavigationFailed   = "navigation_failed"
	ProtocolError      = "protocol_error"
	Cancelled          = "cancelled"
	DialogPending      = "dialog_pending"
	NoDialog           = "no_dialog"
	NotFound           = "not_found"
	Ambiguous          = "ambiguous"
	StaleRef           = "stale_ref"   // a ref from an earlier document of the tab
	TabCrashed         = "tab_crashed" // the tab's renderer process died
	NotActionable      = "not_actionable"
	ValueMismatch      = "value_mismatch"
	PermissionDenied   = "permission_denied" // the user's browser settings forbid it (e.g. file:// without file access)
	ScriptError        = "script_error"      // a script the agent gave threw
	Unsupported        = "unsupported"       // this browser connection cannot do it (the hint says which can)
	Internal           = "internal"
)

// Error is a coded error. Path names the offending input field, when one is
// to blame ("url", "steps[3].frame.path[1]"); Hint says what to do next.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
	Hint    string `json:"hint,omitempty"`
	// Fact names, finer than Code, the engine fact the error states, so that
	// a layer with its own vocabulary (the MCP tools) can word Hint in it.
	Fact  string `json:"-"`
	cause error
}

func (e *Error) Error() string {
	s := e.Code + ": "
	if e.Path != "" {
		s += e.Path + ": "
	}
	s += e.Message
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.cause }

// New returns an error with a code and a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with a code whose message is msg: cause, keeping cause
// for errors.Is/As.
func Wrap(code string, cause error, msg string) *Error {
	return &Error{Code: code, Message: msg + ": " + cause.Error(), cause: cause}
}

// Input returns an invalid_input error for the field at path.
func Input(path, format string, args ...any) *Error {
	return &Error{Code: InvalidInput, Path: path, Message: fmt.Sprintf(format, args...)}
}

// WithPath returns e with the input path set.
func (e *Error) WithPath(path string) *Error {
	e.Path = path
	return e
}

// WithHint returns e with the hint set.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// WithFact returns e with its fact set (see Error.Fact).
func (e *Error) WithFact(fact string) *Error {
	e.Fact = fact
	return e
}

// Code returns the code of err, or Internal when err carries none.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// As returns err as an *Error, wrapping an uncoded error as Internal.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: err.Error(), cause: err}
}
