package observe

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// DigestOf hashes the content of an observation: url, title, text, and
// every section it carries (refs included), but not when or where it was
// taken (capturedat, environment), how it was asked for (mode), nor what
// describes it (diff, delta, the digest itself, the screenshot's file).
// Two observations of an unchanged page have the same digest; a change in
// any included section changes it. It is 16 hex digits (64 bits of
// SHA-256), short for an agent to pass back as `since`.
func DigestOf(o *Observation) string {
	c := *o
	c.CapturedAt = 0
	c.Environment = ""
	c.Mode = ""
	c.Diff = nil
	c.Delta = false
	c.Digest = ""
	c.rows, c.headKnown = false, false // forms of writing, not content
	if o.Vision != nil {
		v := *o.Vision
		v.Screenshot = ""
		c.Vision = &v
	}
	// encoding/json writes struct fields in declaration order and map keys
	// sorted, so the encoding is canonical for a given content.
	raw, err := json.Marshal(&c)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}
