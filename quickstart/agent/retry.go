package agent

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tabwright/tabwright/quickstart/trace"
)

// RetryPolicy is how a failed model call is tried again, for every vendor
// (the SDKs' own retries are off, so this is the only policy).
type RetryPolicy struct {
	Attempts int           // tries per turn, the first included
	Base     time.Duration // the first backoff, doubled each try
	Max      time.Duration // the backoff's ceiling (before jitter)
}

// DefaultRetry: five tries, 1 s doubling to 30 s, each ×[0.5, 1.5).
var DefaultRetry = RetryPolicy{Attempts: 5, Base: time.Second, Max: 30 * time.Second}

// APIError is a failed model call, vendor-neutral.
type APIError struct {
	Status     int // 0: no HTTP answer (a connection error)
	Message    string
	RetryAfter time.Duration // what the service asked for, if it did
	Retriable  bool
	Infra      bool // the service's fault, not the request's
}

func (e *APIError) Error() string {
	if e.Status == 0 {
		return "connection error: " + e.Message
	}
	return fmt.Sprintf("API error %d: %s", e.Status, e.Message)
}

// retriableStatus: timeouts, conflicts, rate limits, server errors and
// Anthropic's 529 (overloaded).
func retriableStatus(code int) bool {
	return code == 408 || code == 409 || code == 429 || code >= 500
}

// httpError makes an APIError from a status and the response (headers:
// retry-after, retry-after-ms, x-should-retry).
func httpError(status int, msg string, resp *http.Response) *APIError {
	e := &APIError{Status: status, Message: msg, Retriable: retriableStatus(status)}
	e.Infra = e.Retriable
	if resp != nil {
		e.RetryAfter = retryAfter(resp.Header, time.Now())
		switch resp.Header.Get("x-should-retry") {
		case "true":
			e.Retriable = true
		case "false":
			e.Retriable = false
		}
	}
	return e
}

// keyEcho is a service quoting the key it was given (OpenAI's 401 does,
// masked in the middle); the quote is dropped.
var keyEcho = regexp.MustCompile(`(?i)(api key provided: )\S+`)

// redact keeps a key out of an error message, so out of the trace and
// the results.
func redact(msg, key string) string {
	if key != "" {
		msg = strings.ReplaceAll(msg, key, "[redacted]")
	}
	return keyEcho.ReplaceAllString(msg, "${1}[redacted]")
}

// statusError is a vendor's HTTP error answer as an APIError, the key kept
// out of its message.
func statusError(status int, msg string, resp *http.Response, key string) error {
	if msg == "" {
		msg = http.StatusText(status)
	}
	if status == http.StatusUnauthorized && key == "" {
		msg += NoKeySent
	}
	return httpError(status, redact(msg, key), resp)
}

// NoKeySent follows a 401 from a server that was sent no key: one on
// loopback, whose key is read only from a variable the user names.
const NoKeySent = " (no API key was sent: a --base-url on loopback gets none unless --api-key-env NAME names the variable that holds its key)"

// transportError is a call that got no HTTP answer (the context's own end
// is passed on as it is), the key kept out of its message.
func transportError(err error, key string) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return connError(errors.New(redact(err.Error(), key)))
}

// connError is a call that got no HTTP answer.
func connError(err error) *APIError {
	return &APIError{Message: err.Error(), Retriable: true, Infra: true}
}

func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("retry-after-ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("retry-after")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// backoff is the wait before try attempt+1.
func (p RetryPolicy) backoff(attempt int) time.Duration {
	d := p.Base << (attempt - 1)
	if d > p.Max || d <= 0 {
		d = p.Max
	}
	return time.Duration(float64(d) * (0.5 + rand.Float64()))
}

// send calls conv.send, retrying what is retriable with jittered
// exponential backoff (or the service's retry-after), never sleeping past
// ctx's deadline; each wait is traced as api_retry.
func send(ctx context.Context, conv conversation, turn int, tr *trace.Trace, p RetryPolicy) (*reply, error) {
	for attempt := 1; ; attempt++ {
		r, err := conv.send(ctx, turn, tr)
		if err == nil {
			return r, nil
		}
		var ae *APIError
		if ctx.Err() != nil || !errors.As(err, &ae) || !ae.Retriable || attempt >= p.Attempts {
			return nil, err
		}
		wait := p.backoff(attempt)
		if ae.RetryAfter > 0 {
			wait = ae.RetryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Now().Add(wait).After(dl) {
			return nil, fmt.Errorf("%w (not retried: the next try would start after max_seconds)", err)
		}
		tr.Add(trace.Retry(turn, attempt, ae.Status, wait, err.Error()))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
	}
}
