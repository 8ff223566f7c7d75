package run

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/internal/testimage"
	"github.com/tabwright/tabwright/quickstart/sandbox"
	"github.com/tabwright/tabwright/quickstart/trace"
)

// A task that names an image runs in it when a container engine is given
// (--backend auto), under the sandbox backend's rules: the egress proxy's
// records, the docs read through read_docs, the check in the same
// container. On the host it would have been infra_error: the host has
// neither the image's files nor its environment.
func TestImageTaskRunsInItsImage(t *testing.T) {
	t.Parallel()
	rt, why := sandbox.FindRuntime(context.Background())
	if rt == nil {
		t.Fatalf("the container backend cannot run here: %s", why)
	}
	image := testimage.Build(t, rt.Path)
	o := isolatedOpts(t)
	o.Runtime = rt
	tk := newTask(t, strings.Replace(head, "NAME", "in-image", 1)+fmt.Sprintf(`image: %s
network: {allow: [registry.test]}
replay:
  - wget -q -O - http://registry.test/pkg
  - wget -q -O - http://evil.test/ || echo refused
  - cat %s > seen.txt
success:
  script: |
    grep -q %s seen.txt || qs_fail "the commands did not run in the image"
    test "$%s" = %s || qs_fail "the check did not run in the image"
`, image, testimage.MarkerFile, testimage.Marker, testimage.EnvVar, testimage.EnvValue))
	r := Attempt(context.Background(), tk, 1, o)
	if r.Classification != Passed {
		t.Fatalf("%s (%s): %+v\n%s", r.Classification, r.Detail, r.SuccessCheck, r.Trace.Events())
	}
	ev := r.Trace.Events()
	if r.Backend != sandbox.Container || !r.Enforced || r.Image != image || ev[0]["backend"] != sandbox.Container || ev[0]["image"] != image {
		t.Errorf("backend %s enforced %v image %q; run_start %v", r.Backend, r.Enforced, r.Image, ev[0])
	}
	var blocked []string
	for _, e := range ev {
		if trace.TypeOf(e) == ImageCheckEvent {
			t.Errorf("an image_check on the container backend, which runs the image itself: %v", e)
		}
		if trace.TypeOf(e) == "egress_blocked" {
			blocked = append(blocked, fmt.Sprint(e["host"], " ", e["reason"]))
		}
	}
	if strings.Join(blocked, ",") != "evil.test not_allowlisted" || r.EgressBlocked != 1 || len(r.DocsPagesRead) != 1 {
		t.Errorf("refusals %v (%d), pages read %v", blocked, r.EgressBlocked, r.DocsPagesRead)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings %q", r.Warnings)
	}
}
