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
// connection to the same browser: the median of 50 observations and of 50
// clicks on a warm tab each way, and the difference per CDP command.
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
		id := br.userTab(b, base+"/form.html", "Signed in")
		t, err := m.Claim(ctx, "bench", browserID, string(id), "", "")
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	viaRelay := claim(relayed, bi.BrowserID)
	viaDirect := claim(direct, direct.DefaultBrowser())

	managers := map[*tabs.Tab]*tabs.Manager{viaRelay: relayed, viaDirect: direct}
	measure := func(t *tabs.Tab, op func(ctx context.Context) error) (median time.Duration, cmds float64) {
		const n = 50
		// A background tab gets one animation frame a second; the actions
		// wait for frames, so measure the tab in front.
		if err := managers[t].Activate(ctx, "bench", t.Handle()); err != nil {
			b.Fatal(err)
		}
		run := func() error {
			ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			return t.Do(ctx, op)
		}
		for i := 0; i < 5; i++ { // warm up: helpers installed, worlds made
			if err := run(); err != nil {
				b.Fatal(err)
			}
		}
		d := make([]time.Duration, n)
		before := t.RoundTrips()
		for i := range d {
			start := time.Now()
			if err := run(); err != nil {
				b.Fatal(err)
			}
			d[i] = time.Since(start)
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[n/2], float64(t.RoundTrips()-before) / n
	}
	observeOp := func(t *tabs.Tab) func(ctx context.Context) error {
		return func(ctx context.Context) error { _, err := observe.Capture(ctx, t, observe.Options{}); return err }
	}
	clickOp := func(t *tabs.Tab) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			_, err := act.Run(ctx, t, &act.Step{Action: "click", Locator: locate.Locator{Selector: "button[type=submit]"}})
			return err
		}
	}
	evalOp := func(t *tabs.Tab) func(ctx context.Context) error {
		return func(ctx context.Context) error { var n int; return t.Eval(ctx, "1", &n) }
	}
	for i := 0; i < b.N; i++ {
		evalDirect, _ := measure(viaDirect, evalOp(viaDirect))
		evalRelay, _ := measure(viaRelay, evalOp(viaRelay))
		obsDirect, obsCmds := measure(viaDirect, observeOp(viaDirect))
		obsRelay, _ := measure(viaRelay, observeOp(viaRelay))
		clickDirect, clickCmds := measure(viaDirect, clickOp(viaDirect))
		clickRelay, _ := measure(viaRelay, clickOp(viaRelay))
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
