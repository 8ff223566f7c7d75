package act

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
)

// A fill or type result never echoes a secret field's value (a password,
// a card number): not in the result, not in a value_mismatch error, not in
// the control read; and a plain field's value is stated once.
func TestSecretValuesAreNotEchoed(t *testing.T) {
	t.Parallel()
	tab := page(t, "secret.html")
	for _, s := range []*Step{
		{Action: Fill, Locator: css("#pw"), Text: ptr("hunter2-secret"), Observe: &ObserveSpec{}},
		{Action: Fill, Locator: css("#card"), Text: ptr("hunter2-secret")},
		{Action: Type, Locator: css("#pw"), Text: ptr("hunter2-secret")},
	} {
		r := must(t, tab, s)
		raw, _ := json.Marshal(r)
		if strings.Contains(string(raw), "hunter2") {
			t.Errorf("%s %s echoes the secret: %s", s.Action, s.Locator, raw)
		}
	}
	_, err := run(t, tab, &Step{Action: Fill, Locator: css("#pin"), Text: ptr("hunter2-secret")})
	wantCode(t, err, errs.ValueMismatch, "not shown")
	if e := errs.As(err); strings.Contains(e.Message+e.Hint, "hunt") {
		t.Errorf("the mismatch echoes the secret: %s (%s)", e.Message, e.Hint)
	}

	r := must(t, tab, &Step{Action: Fill, Locator: css("#email"), Text: ptr("ann@example.com"), Observe: &ObserveSpec{}})
	raw, _ := json.Marshal(r)
	if n := strings.Count(string(raw), "ann@example.com"); n != 1 {
		t.Errorf("the value is stated %d times, not once: %s", n, raw)
	}
}
