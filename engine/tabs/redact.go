package tabs

import "strings"

// Redacted stands in for a credential or a configured secret.
const Redacted = "[redacted]"

// credentialHeaders are never shown, whatever their value.
var credentialHeaders = map[string]bool{"authorization": true, "proxy-authorization": true, "cookie": true, "set-cookie": true}

// Redactor hides credentials and configured secret values in what a tab
// reports (logs, evaluation results) before anyone can read it.
type Redactor struct {
	secrets []string
}

// MinSecretLength is the shortest secret value accepted: shorter ones would
// blank out ordinary text.
const MinSecretLength = 4

// NewRedactor hides the given values (each at least MinSecretLength long;
// shorter ones are ignored).
func NewRedactor(secrets []string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if len(s) >= MinSecretLength {
			r.secrets = append(r.secrets, s)
		}
	}
	return r
}

// String replaces every secret value in s.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, v := range r.secrets {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	return s
}

func (r *Redactor) headers(h map[string]string) {
	for k, v := range h {
		w := Redacted
		if !credentialHeaders[strings.ToLower(k)] {
			w = r.String(v)
		}
		if w != v { // written only when it changes: a map redacted once is left alone
			h[k] = w
		}
	}
}

func (r *Redactor) entry(e *LogEntry) {
	r.headers(e.RequestHeaders)
	r.headers(e.ResponseHeaders)
	e.Text, e.URL, e.Source = r.String(e.Text), r.String(e.URL), r.String(e.Source)
	for i := range e.Stack {
		e.Stack[i] = r.String(e.Stack[i])
	}
}
