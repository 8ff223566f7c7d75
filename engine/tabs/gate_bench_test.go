package tabs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/netgate"
)

// BenchmarkGateNavigate: what the network gate (--allowed-origins,
// --blocked-origins, a proxy with a password) adds to loading a page of
// ten images from the page's own server, the browsers with and without
// the gate loading in turn so that load slows both alike. Reports the
// median load of each, in ms.
func BenchmarkGateNavigate(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("/img/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>ten</title>`)
		for i := range 10 {
			fmt.Fprintf(w, `<img src="/img/%d-%s.svg">`, i, r.URL.Path[1:])
		}
	})
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	blocked, err := netgate.ParseRules("--blocked-origins", "blocked.example")
	if err != nil {
		b.Fatal(err)
	}
	tabs := map[string]*Tab{}
	for name, gate := range map[string]*netgate.Options{"direct": nil, "gate": {Policy: netgate.Policy{Blocked: blocked}}} {
		m, err := New(Options{Gate: gate})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(m.Close)
		opened, err := m.Open(context.Background(), OpenOptions{Owner: "bench", URL: "about:blank", Claim: true})
		if err != nil {
			b.Fatal(err)
		}
		tabs[name] = opened.Tab
	}
	times := map[string][]float64{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, name := range []string{"direct", "gate"} {
			start := time.Now()
			if _, err := tabs[name].Navigate(context.Background(), Navigation{URL: fmt.Sprintf("%s/p%d", srv.URL, i)}); err != nil {
				b.Fatal(err)
			}
			times[name] = append(times[name], float64(time.Since(start).Microseconds())/1000)
		}
	}
	for name, ts := range times {
		sort.Float64s(ts)
		b.ReportMetric(ts[len(ts)/2], "ms-"+name+"/load")
	}
}
