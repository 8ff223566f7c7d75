package tabs

import "strings"

// Redacted stands in for a credential (and, in the MCP server's results,
// for a configured secret).
const Redacted = "[redacted]"

// credentialHeaders are never shown, whatever their value.
var credentialHeaders = map[string]bool{"authorization": true, "proxy-authorization": true, "cookie": true, "set-cookie": true}

// hideCredentials replaces the value of every credential header in h.
func hideCredentials(h map[string]string) {
	for k, v := range h {
		if credentialHeaders[strings.ToLower(k)] && v != Redacted { // written only when it changes
			h[k] = Redacted
		}
	}
}

// hideEntryCredentials keeps credentials out of a log entry before it is
// stored.
func hideEntryCredentials(e *LogEntry) {
	hideCredentials(e.RequestHeaders)
	hideCredentials(e.ResponseHeaders)
}
