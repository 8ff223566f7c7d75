package locate

// Facts the errors of this package state (errs.Error.Fact), for layers that
// word the next step in their own vocabulary.
const (
	FactNoMatch  = "no_match" // nothing matches the locator
	FactDisabled = "disabled" // the element is disabled
)
