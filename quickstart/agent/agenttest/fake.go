// Package agenttest has fake model servers for tests: loopback HTTP
// servers that speak the Anthropic Messages API and OpenAI's Chat
// Completions as their documentation describes them, answering from a
// script, and checking each request the way the real service would (tool
// results must answer the tool calls before them, in order).
package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Call is one tool call a scripted turn makes.
type Call struct {
	Name  string
	Input map[string]any
	Raw   string // OpenAI only: arguments sent verbatim (bad JSON on purpose)
}

// Usage is what a turn reports having used; cache counters are reported
// in each protocol's own fields.
type Usage struct{ Input, Output, CacheWrite, CacheRead int }

// Turn is one scripted answer.
type Turn struct {
	Text   string
	Calls  []Call
	Refuse bool   // stop_reason "refusal" / a message refusal
	Stop   string // override the stop or finish reason
	Usage  Usage
	Model  string // default: the requested model with "-fake" appended

	// An error answer instead: a status, its retry-after header, a message.
	Status     int
	RetryAfter string
	Message    string

	// Delay holds the answer back (the client may give up first).
	Delay time.Duration
	// Build, when set, makes the turn from the request (a call that needs
	// what an earlier tool answered, such as a tab handle).
	Build func(req Request) Turn
}

// LastToolText is the text of the newest tool result in a request, in
// either protocol.
func LastToolText(req Request) string {
	msgs := list(req.Body["messages"])
	if len(msgs) == 0 {
		return ""
	}
	last, _ := msgs[len(msgs)-1].(map[string]any)
	if s, ok := last["content"].(string); ok {
		return s
	}
	text := ""
	for _, b := range blocks(last) {
		if b["type"] == "tool_result" {
			switch c := b["content"].(type) {
			case string:
				text = c
			case []any:
				for _, x := range c {
					if m, ok := x.(map[string]any); ok {
						text, _ = m["text"].(string)
					}
				}
			}
		}
	}
	return text
}

// Request is one request the fake received.
type Request struct {
	Path   string
	Header http.Header
	Body   map[string]any
	Raw    string
}

// Server is a scripted fake. Requests past the script's end get a 500 and
// fail the test through Errs.
type Server struct {
	*httptest.Server
	Key string // when set, the key each request must carry
	// NoImages makes it a server without vision: a request with an image
	// gets a 400 (and uses no turn of the script).
	NoImages bool
	// RefuseParams are request fields this Chat Completions server does
	// not take: a request carrying one gets OpenAI's 400 for an
	// unsupported parameter (and uses no turn of the script).
	RefuseParams []string

	mu       sync.Mutex
	script   []Turn
	next     int
	requests []Request
	errs     []string
	protocol string
	busy     time.Duration // time spent answering, delays included
}

// Anthropic starts a fake Messages API (POST /v1/messages).
func Anthropic(turns ...Turn) *Server { return start("anthropic", turns) }

// OpenAI starts a fake Chat Completions API (POST /v1/chat/completions);
// its base URL for clients is URL + "/v1/".
func OpenAI(turns ...Turn) *Server { return start("openai", turns) }

func start(protocol string, turns []Turn) *Server {
	s := &Server{script: turns, protocol: protocol}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is what a client is pointed at.
func (s *Server) BaseURL() string {
	if s.protocol == "openai" {
		return s.URL + "/v1/"
	}
	return s.URL
}

// Requests returns what was received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Errs are the protocol violations seen (empty when the client behaved).
func (s *Server) Errs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errs...)
}

func (s *Server) fail(format string, a ...any) {
	s.errs = append(s.errs, fmt.Sprintf(format, a...))
}

// Busy is the time the fake spent answering so far (a benchmark subtracts
// it to leave the client's own cost).
func (s *Server) Busy() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy
}

// Reset starts the script again and forgets what was received.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next, s.requests, s.busy = 0, nil, 0
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	defer func() {
		s.mu.Lock()
		s.busy += time.Since(start)
		s.mu.Unlock()
	}()
	var body map[string]any
	raw := new(strings.Builder)
	dec := json.NewDecoder(r.Body)
	err := dec.Decode(&body)
	b, _ := json.Marshal(body)
	raw.Write(b)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Raw: raw.String()})
	if err != nil {
		s.fail("request %d: body is not JSON: %v", len(s.requests), err)
	}
	var problems, bad []string
	if s.protocol == "anthropic" {
		problems, bad = checkAnthropic(r, body, s.Key), anthropicImages(body)
	} else {
		problems, bad = checkOpenAI(r, body, s.Key), openaiImages(body)
	}
	for _, p := range append(problems, bad...) {
		s.fail("request %d: %s", len(s.requests), p)
	}
	if refuse := refusal(bad, s.NoImages && HasImages(s.requests[len(s.requests)-1])); refuse != "" {
		// As the service does: a malformed image is a 400, and so is
		// any image on a server without vision.
		s.mu.Unlock()
		writeError(w, s.protocol, Turn{Status: http.StatusBadRequest, Message: refuse})
		return
	}
	if p := s.refusedParam(body); p != "" {
		s.mu.Unlock()
		writeUnsupported(w, p)
		return
	}
	if s.next >= len(s.script) {
		s.fail("request %d: past the end of the script (%d turns)", len(s.requests), len(s.script))
		s.mu.Unlock()
		writeError(w, s.protocol, Turn{Status: 500, Message: "the fake's script has ended"})
		return
	}
	t := s.script[s.next]
	s.next++
	req := s.requests[len(s.requests)-1]
	s.mu.Unlock()
	if t.Build != nil {
		t = t.Build(req)
	}
	if t.Delay > 0 {
		select {
		case <-time.After(t.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if t.Status != 0 && t.Status != http.StatusOK {
		writeError(w, s.protocol, t)
		return
	}
	model, _ := body["model"].(string)
	if t.Model == "" {
		t.Model = model + "-fake"
	}
	n := len(s.Requests())
	w.Header().Set("Content-Type", "application/json")
	if s.protocol == "anthropic" {
		w.Header().Set("request-id", fmt.Sprintf("req_fake%d", n))
		json.NewEncoder(w).Encode(anthropicMessage(t, n))
	} else {
		w.Header().Set("x-request-id", fmt.Sprintf("req_fake%d", n))
		json.NewEncoder(w).Encode(openaiCompletion(t, n))
	}
}

// refusedParam is the first of RefuseParams the body carries, or "".
func (s *Server) refusedParam(body map[string]any) string {
	for _, p := range s.RefuseParams {
		if _, ok := body[p]; ok && s.protocol == "openai" {
			return p
		}
	}
	return ""
}

// writeUnsupported answers as OpenAI does a parameter the model does not
// take: 400, an invalid_request_error naming it in param, code
// unsupported_parameter.
func writeUnsupported(w http.ResponseWriter, param string) {
	msg := fmt.Sprintf("Unsupported parameter: '%s' is not supported with this model.", param)
	if param == "max_tokens" {
		msg += " Use 'max_completion_tokens' instead."
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": param, "code": "unsupported_parameter"}})
}

func writeError(w http.ResponseWriter, protocol string, t Turn) {
	if t.RetryAfter != "" {
		w.Header().Set("retry-after", t.RetryAfter)
	}
	if t.Message == "" {
		t.Message = http.StatusText(t.Status)
	}
	w.Header().Set("Content-Type", "application/json")
	// Both SDKs would retry on their own unless told not to; the harness
	// retries, and the fake says nothing either way.
	w.WriteHeader(t.Status)
	if protocol == "anthropic" {
		json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": anthropicErrorType(t.Status), "message": t.Message}})
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": t.Message, "type": "requests", "param": nil, "code": openaiErrorCode(t.Status)}})
}

func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 404:
		return "not_found_error"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

func openaiErrorCode(status int) any {
	if status == 429 {
		return "rate_limit_exceeded"
	}
	return nil
}

func refusal(bad []string, noVision bool) string {
	switch {
	case len(bad) > 0:
		return bad[0]
	case noVision:
		return "this model does not support image input"
	}
	return ""
}
