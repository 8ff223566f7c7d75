package launch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// Endpoint parses a --cdp-url (http://host:port, ws://host:port/devtools/…)
// and returns its host:port, which names the browser profile "cdp:host:port".
func Endpoint(raw string) (hostPort string, err error) {
	u, perr := url.Parse(raw)
	if perr != nil || u.Host == "" {
		return "", errs.Input("cdp_url", "%q is not a URL; expected http://host:port or ws://host:port/devtools/browser/ID", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ws", "wss":
	default:
		return "", errs.Input("cdp_url", "scheme %q is not supported; expected http(s):// or ws(s)://", u.Scheme)
	}
	return u.Host, nil
}

// Attach connects to a browser that already runs with a DevTools endpoint.
// For an http(s) URL the WebSocket address is read from /json/version.
func Attach(ctx context.Context, raw string) (*cdp.Conn, error) {
	if _, err := Endpoint(raw); err != nil {
		return nil, err
	}
	u, _ := url.Parse(raw)
	wsURL := raw
	if scheme := strings.ToLower(u.Scheme); scheme == "http" || scheme == "https" {
		// Only scheme and host matter: the browser answers /json/version at its root.
		base := scheme + "://" + u.Host
		var err error
		if wsURL, err = browserWebSocketURL(ctx, base); err != nil {
			return nil, errs.Wrap(errs.BrowserUnavailable, err, "reading "+base+"/json/version").
				WithHint("start the browser with --remote-debugging-port and check the address")
		}
	}
	t, err := cdp.DialWebSocket(ctx, wsURL, nil)
	if err != nil {
		return nil, errs.Wrap(errs.BrowserUnavailable, err, "connecting to "+wsURL).
			WithHint("check that the browser is running and its DevTools endpoint is reachable")
	}
	return cdp.New(t), nil
}

func browserWebSocketURL(ctx context.Context, base string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/json/version", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var v struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", err
	}
	if v.WebSocketDebuggerURL == "" {
		return "", fmt.Errorf("no webSocketDebuggerUrl in the answer")
	}
	return v.WebSocketDebuggerURL, nil
}
