package observe

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
)

const minimal = `{"schemaversion":1,"url":"https://a.test/","title":"A","textpreview":"hi","textlength":2,"forms":[],"interactive":[{"ref":"e1","selector":"#b","role":"button","label":"Go"}],"capturedat":1700000000000}`

// with returns minimal with key set to value (raw JSON), or removed when
// value is empty.
func with(t testing.TB, key, value string) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(minimal), &m); err != nil {
		t.Fatal(err)
	}
	if value == "" {
		delete(m, key)
	} else {
		m[key] = json.RawMessage(value)
	}
	raw, _ := json.Marshal(m)
	return raw
}

func TestDecodeAcceptsLaterVersions(t *testing.T) {
	raw := with(t, "schemaversion", "3")
	var m map[string]any
	json.Unmarshal(raw, &m)
	m["heatmap"] = map[string]any{"cells": 4}
	m["reserved"] = map[string]any{"heatmap": "kept", "future": true}
	m["a11y"] = map[string]any{"outline": "main", "lines": 1, "tree": []any{1, 2}}
	raw, _ = json.Marshal(m)
	o, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if o.SchemaVersion != 3 || o.URL != "https://a.test/" || len(o.Interactive) != 1 || o.Interactive[0].Label != "Go" {
		t.Errorf("decoded: %+v", o)
	}
	if o.Reserved["future"] != true || o.Reserved["heatmap"] != "kept" {
		t.Errorf("reserved entries lost: %v", o.Reserved)
	}
	if h, ok := o.Reserved["toplevel.heatmap"].(map[string]any); !ok || h["cells"] != float64(4) {
		t.Errorf("unknown top-level field not moved into reserved: %v", o.Reserved)
	}
	if o.A11y == nil || o.A11y.Outline != "main" {
		t.Errorf("a11y with an extra inner field: %+v", o.A11y)
	}
	// Re-encoded, it is a valid payload of our version's schema.
	out, _ := json.Marshal(o)
	validate(t, out)

	// An unknown field with no clash keeps its name.
	raw = with(t, "colour", `"blue"`)
	if o, err := Decode(raw); err != nil || o.Reserved["colour"] != "blue" {
		t.Errorf("colour: %v %v", o, err)
	}
	// A section whose entries changed shape is kept raw, not refused.
	raw = with(t, "forms", `[{"selector":7}]`)
	o, err = Decode(raw)
	if err != nil || len(o.Forms) != 0 || o.Reserved[ReservedUndecoded] == nil {
		t.Errorf("odd forms entries: %+v %v", o, err)
	}
}

func TestDecodeRefusesBrokenContracts(t *testing.T) {
	for _, tc := range []struct {
		raw  []byte
		path string
		msg  string
	}{
		{[]byte(`[]`), "observation", "JSON object"},
		{[]byte(`{"schemaversion":`), "observation", "not valid JSON"},
		{with(t, "schemaversion", "0"), "schemaversion", ">= 1"},
		{with(t, "schemaversion", `"1"`), "schemaversion", "must be a number"},
		{with(t, "forms", ""), "forms", "missing"},
		{with(t, "capturedat", ""), "capturedat", "missing"},
		{with(t, "title", "42"), "title", "must be a string"},
		{with(t, "interactive", `{}`), "interactive", "must be an array"},
		{with(t, "textlength", "null"), "textlength", "got null"},
		{with(t, "delta", `"yes"`), "delta", "true or false"},
		{with(t, "reserved", `[]`), "reserved", "an object"},
	} {
		_, err := Decode(tc.raw)
		e := errs.As(err)
		if err == nil || e.Code != errs.InvalidInput || e.Path != tc.path || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("%s: %v, want invalid_input at %s (%s)", tc.raw, err, tc.path, tc.msg)
		}
	}
}

func TestDecodeRoundTripsOurOwnPayloads(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/products.html")
	o, raw := observeOK(t, ctx, p, Options{Include: []string{"all"}})
	back, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if DigestOf(back) != o.Digest {
		t.Errorf("digest after a round trip: %s, was %s", DigestOf(back), o.Digest)
	}
	if c := Compare(o, back); !c.Empty() {
		t.Errorf("round trip changed: %+v", c)
	}
}

// Decode never panics, and what it accepts re-encodes to a valid payload.
func FuzzDecodeObservation(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add(with(f, "schemaversion", "1e308"))
	f.Add(with(f, "textlength", "-1e300"))
	f.Add(with(f, "reserved", `{"truncated":{"forms":{"shown":1}}}`))
	f.Add(with(f, "diff", `{"base":"x","added":{"text":["a"]},"removed":null,"changed":{}}`))
	f.Add([]byte(`{"schemaversion":2,"url":"","title":"","textpreview":"","textlength":0,"forms":[null],"interactive":[],"capturedat":0,"x":{"y":[1,{"z":null}]}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schemaversion":1,"schemaversion":0}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		o, err := Decode(raw)
		if err != nil {
			if errs.Code(err) != errs.InvalidInput {
				t.Fatalf("error without the input code: %v", err)
			}
			return
		}
		out, err := json.Marshal(o)
		if err != nil {
			t.Fatalf("accepted payload does not re-encode: %v", err)
		}
		validate(t, out)
		_ = DigestOf(o)
		_ = Render(o)
		_ = Compare(o, o)
	})
}

// Decode and json.Unmarshal give back each form field as it was captured,
// and the same digest.
func TestFormsRoundTrip(t *testing.T) {
	ctx := testCtx(t)
	p := open(t, ctx, "/signup.html")
	o, raw := observeOK(t, ctx, p, Options{})
	back, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	var plain Observation
	if err := json.Unmarshal(raw, &plain); err != nil {
		t.Fatal(err)
	}
	for _, got := range []*Observation{back, &plain} {
		for i, f := range o.Forms[0].Fields {
			g := got.Forms[0].Fields[i]
			if g.Label != f.Label || g.Selector != f.Selector || g.Ref != f.Ref || f.Selector == "" {
				t.Errorf("field %d: %+v, was %+v", i, g, f)
			}
		}
	}
	if DigestOf(back) != o.Digest {
		t.Errorf("digest after a round trip: %s, was %s", DigestOf(back), o.Digest)
	}
}
