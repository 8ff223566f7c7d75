package hub

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/act"
	"github.com/tabwright/tabwright/engine/locate"
	"github.com/tabwright/tabwright/engine/observe"
	"github.com/tabwright/tabwright/engine/tabs"
)

// BenchmarkRelayOverhead compares the relay with a direct DevTools
// connection to the same browser: a warm tab each way, each in a window of
// its own so that both are in front (a background tab gets one animation
// frame a second, and clicks wait for frames). The two are measured in
// turns, direct and relay alternately, so that the load of a shared machine
// falls on both alike; it reports the medians of 50 observations and 50
// clicks each way, and what the relay adds per CDP command.
//
//	go test ./hub -run '^$' -bench RelayOverhead -benchtime 1x
func BenchmarkRelayOverhead(b *testing.B) {
	base := fixture(b)
	_, br, relayed, bi := pairedManager(b)
	direct, err := tabs.New(tabs.Options{CDPURL: br.wsURL})
	if err != nil {
		b.Fatal(err)
	}
	defer direct.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	claim := func(m *tabs.Manager, browserID string) *tabs.Tab {
		id := br.windowTab(b, base+"/form.html", "Signed in")
		t, err := m.Claim(ctx, tabs.ClaimOptions{Owner: "bench", BrowserID: browserID, TabID: string(id)})
		if err != nil {
			b.Fatal(err)
		}
		var state string
		if err := t.Eval(ctx, "document.visibilityState", &state); err != nil || state != "visible" {
			b.Fatalf("the benchmark tab is %q (%v), not visible", state, err)
		}
		return t
	}
	viaRelay := claim(relayed, bi.BrowserID)
	viaDirect := claim(direct, direct.DefaultBrowser())

	// measure runs op on both tabs n times in turns and returns the medians
	// and the CDP commands one op sends.
	measure := func(op func(ctx context.Context, t *tabs.Tab) error) (direct, relay time.Duration, cmds float64) {
		const n = 50
		run := func(t *tabs.Tab) time.Duration {
			ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			start := time.Now()
			if err := t.Do(ctx, func(ctx context.Context) error { return op(ctx, t) }); err != nil {
				b.Fatal(err)
			}
			return time.Since(start)
		}
		for i := 0; i < 5; i++ { // warm up: helpers installed, worlds made
			run(viaDirect)
			run(viaRelay)
		}
		d, r := make([]time.Duration, n), make([]time.Duration, n)
		before := viaDirect.RoundTrips()
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				d[i], r[i] = run(viaDirect), run(viaRelay)
			} else {
				r[i], d[i] = run(viaRelay), run(viaDirect)
			}
		}
		cmds = float64(viaDirect.RoundTrips()-before) / n
		return median(d), median(r), cmds
	}
	observeOp := func(ctx context.Context, t *tabs.Tab) error {
		_, err := observe.Capture(ctx, t, observe.Options{})
		return err
	}
	clickOp := func(ctx context.Context, t *tabs.Tab) error {
		_, err := act.Run(ctx, t, &act.Step{Action: "click", Locator: locate.Locator{Selector: "button[type=submit]"}})
		return err
	}
	evalOp := func(ctx context.Context, t *tabs.Tab) error { var n int; return t.Eval(ctx, "1", &n) }
	for i := 0; i < b.N; i++ {
		evalDirect, evalRelay, _ := measure(evalOp)
		obsDirect, obsRelay, obsCmds := measure(observeOp)
		clickDirect, clickRelay, clickCmds := measure(clickOp)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(obsDirect), "observe-direct-ms")
		b.ReportMetric(ms(obsRelay), "observe-relay-ms")
		b.ReportMetric(ms(clickDirect), "click-direct-ms")
		b.ReportMetric(ms(clickRelay), "click-relay-ms")
		b.ReportMetric(ms(evalRelay-evalDirect), "eval-added-ms")
		b.ReportMetric(ms(obsRelay-obsDirect)/obsCmds, "observe-added-ms/cmd")
		b.ReportMetric(ms(clickRelay-clickDirect)/clickCmds, "click-added-ms/cmd")
		b.Logf("evaluate 1: direct %v, relay %v", evalDirect, evalRelay)
		b.Logf("observe: direct %v, relay %v (%.0f commands); click: direct %v, relay %v (%.0f commands)",
			obsDirect, obsRelay, obsCmds, clickDirect, clickRelay, clickCmds)
	}
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
