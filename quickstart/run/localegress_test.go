package run

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/quickstart/trace"
)

// The local backend runs the same egress proxy, advisory: what goes through
// it is allowed or refused by the task's policy and recorded.
func TestLocalBackendRecordsEgress(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse(docsSrv.URL)
	tk := newTask(t, strings.Replace(head, "NAME", "local-egress", 1)+`network: {allow: [registry.test]}
replay:
  - curl -fsS http://registry.test/pkg | grep -c elsewhere
  - curl -sS --noproxy '' --proxy "$HTTP_PROXY" DOCS/docs/
  - curl -fsS http://evil.test/ || echo refused
  - echo done > done.txt
success:
  script: test -f done.txt || qs_fail "done.txt was never created"
`)
	o := opts()
	o.EgressDial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if !strings.HasSuffix(strings.Split(addr, ":")[0], ".test") {
			return nil, fmt.Errorf("tests reach only *.test names, not %s", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, offSrv.Listener.Addr().String())
	}
	r := Attempt(context.Background(), tk, 1, o)
	ev := r.Trace.Events()
	if r.Enforced || r.Backend != "local" || ev[0]["egress"] != "advisory" {
		t.Errorf("backend %s enforced %v run_start %v", r.Backend, r.Enforced, ev[0])
	}
	var allowed, blocked []string
	for _, e := range ev {
		switch trace.TypeOf(e) {
		case "egress_allowed":
			allowed = append(allowed, fmt.Sprint(e["host"]))
		case "egress_blocked":
			blocked = append(blocked, fmt.Sprint(e["host"], " ", e["reason"]))
		}
	}
	want := []string{u.Hostname() + " docs_host_requires_read_docs", "evil.test not_allowlisted"}
	if strings.Join(allowed, ",") != "registry.test" || strings.Join(blocked, ",") != strings.Join(want, ",") {
		t.Errorf("allowed %v blocked %v, want [registry.test] %v", allowed, blocked, want)
	}
	if r.DocsBypassAttempts != 1 || r.EgressBlocked != 2 {
		t.Errorf("bypass attempts %d, blocked %d", r.DocsBypassAttempts, r.EgressBlocked)
	}
}
