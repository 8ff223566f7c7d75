package locate

// Facts the errors of this package state (errs.Error.Fact), for layers that
// word the next step in their own vocabulary.
const (
	FactNoMatch = "no_match" // nothing matches the locator
	// A refusal's reason is its error's fact too (see the page contract).
)
