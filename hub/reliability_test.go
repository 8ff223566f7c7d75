package hub

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A peer that is not on loopback is refused before anything else is read,
// extension and joining process alike. The listener is loopback only, so
// the request is built with the address such a peer would have.
func TestReliabilityNonLoopbackPeerRefused(t *testing.T) {
	h, key, log := startHub(t, 0)
	for _, who := range []string{"", "client "} {
		req := httptest.NewRequest(http.MethodGet, "/relay", nil)
		req.RemoteAddr = "192.0.2.7:5555"
		req.Header.Set("Origin", "chrome-extension://"+testExtID)
		req.Header.Set("Sec-WebSocket-Protocol", Protocol+", "+keyPrefix+key)
		rec := httptest.NewRecorder()
		if h.admit(rec, req, who, Protocol, func(string) string { return "" }) {
			t.Fatalf("%q: a non-loopback peer was admitted", who)
		}
		if rec.Code != http.StatusForbidden || !strings.Contains(log.String(), "192.0.2.7:5555: not a loopback peer") {
			t.Fatalf("%q: status %d, log %s", who, rec.Code, log.String())
		}
	}
	fmt.Printf("FIGURE %s: refused: non-loopback peer (403), and in TestRefusals wrong/short/missing key (401), wrong, web and missing origin (403)\n", t.Name())
}
