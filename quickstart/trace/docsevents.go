package trace

import "github.com/tabwright/tabwright/quickstart/docs"

// Docs events are made from the read itself: page is the URL asked for,
// by who asked (ByAgent or ByHarness).

// PageRead is docs_read: a page read_docs returned; pageFile is where the
// results keep its text.
func PageRead(page string, by By, r *docs.Read, pageFile string) Event {
	f := map[string]any{"url": page, "by": string(by), "chars": r.Chars, "original_chars": r.OriginalChars, "truncated": r.Truncated,
		"from_cache": r.FromCache, "content_hash": r.ContentHash, "rendered": r.Rendered, "status": r.Status,
		"page_file": pageFile}
	if r.ResolvedTo != "" {
		f["resolved_to"] = r.ResolvedTo
	}
	if r.CacheError != "" {
		f["cache_error"] = r.CacheError
	}
	return withRequests(Event{DocsRead, f}, r)
}

// PageRedirected is docs_redirect_followed: the page read is at another
// URL than the one asked for.
func PageRedirected(page string, r *docs.Read) Event {
	return Event{DocsRedirect, map[string]any{"requested": page, "resolved_to": r.ResolvedTo, "hops": r.Redirects}}
}

// PageRefused is docs_read_blocked: read_docs refused the page (r.Blocked
// says why).
func PageRefused(page string, by By, r *docs.Read) Event {
	f := map[string]any{"url": page, "by": string(by), "reason": string(r.Blocked)}
	if r.ResolvedTo != "" {
		f["resolved_to"] = r.ResolvedTo
	}
	return withRequests(Event{DocsReadBlocked, f}, r)
}

// PageFailed is docs_read_error: the page could not be read.
func PageFailed(page string, by By, r *docs.Read) Event {
	return withRequests(Event{DocsReadError, map[string]any{"url": page, "by": string(by), "error": r.Err}}, r)
}

// RequestRefused is docs_request_blocked: one request read_docs' browser
// made while it rendered page, which its gate refused (off the docs
// allowlist).
func RequestRefused(page string, by By, q docs.Request) Event {
	f := map[string]any{"url": page, "by": string(by), "host": q.Host, "method": q.Method, "reason": string(q.Reason)}
	if q.Path != "" {
		f["path"] = q.Path
	}
	return Event{DocsRequestBlocked, f}
}

// withRequests adds to a read's event what the browser was allowed to
// fetch for it (method, host and, for plain HTTP, path), how many requests
// were refused, and how many are past the record's bound.
func withRequests(e Event, r *docs.Read) Event {
	var allowed []string
	for _, q := range r.Requests {
		if q.Allowed {
			s := q.Method + " " + q.Host + q.Path
			if q.Error != "" {
				s += " (" + q.Error + ")"
			}
			allowed = append(allowed, s)
		}
	}
	if len(allowed) > 0 {
		e.Fields["browser_requests"] = allowed
	}
	if r.RefusedRequests > 0 {
		e.Fields["refused_requests"] = r.RefusedRequests
	}
	if r.RequestsLeftOut > 0 {
		e.Fields["requests_left_out"] = r.RequestsLeftOut
	}
	return e
}
