package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/tabwright/tabwright/engine/tabs"
)

// webmcpReport says whether the browser opt starts (or attaches to)
// offers pages WebMCP, which browser_page_tool needs: it opens a tab on a
// page served on loopback (a secure context, as WebMCP requires) and asks.
func webmcpReport(stdout io.Writer, opt tabs.Options) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	available, err := probeWebMCP(ctx, opt)
	switch {
	case err != nil:
		fmt.Fprintf(stdout, "webmcp:   not checked: %v\n", err)
	case available:
		fmt.Fprintln(stdout, "webmcp:   pages can offer tools (browser_page_tool calls them)")
	default:
		fmt.Fprintln(stdout, "webmcp:   MISSING: this browser offers pages no WebMCP; browser_page_tool will say so")
		fmt.Fprintln(stdout, "  fix:    a Chromium with WebMCP, started with --enable-features=WebMCP (the managed browser is)")
	}
}

func probeWebMCP(ctx context.Context, opt tabs.Options) (bool, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return false, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>tabwright doctor</title>")
	})}
	go srv.Serve(ln)
	defer srv.Close()
	m, err := tabs.New(opt)
	if err != nil {
		return false, err
	}
	defer m.Close()
	opened, _, err := m.OpenAndLoad(ctx, tabs.OpenOptions{Owner: "doctor", URL: "http://" + ln.Addr().String() + "/", Claim: true})
	if err != nil {
		return false, err
	}
	defer m.CloseTab(ctx, "doctor", opened.Tab.Handle())
	var available bool
	err = opened.Tab.Do(ctx, func(ctx context.Context) (err error) {
		available, _, err = opened.Tab.PageToolsAvailable(ctx)
		return err
	})
	return available, err
}
