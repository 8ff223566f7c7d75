package tabs

import (
	"net/url"

	"github.com/tabwright/tabwright/engine/errs"
)

// ValidateURL accepts the URLs a tab may load: absolute http(s), file and about.
// path names the input field in the error.
func ValidateURL(path, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return errs.Input(path, "must be an absolute http(s), file or about URL; got %q", raw).
			WithHint("include the scheme, e.g. https://example.com/")
	}
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" {
			return errs.Input(path, "must name a host; got %q", raw)
		}
	case "file", "about":
	default:
		return errs.Input(path, "must be an absolute http(s), file or about URL; scheme %q is not allowed", u.Scheme)
	}
	return nil
}
