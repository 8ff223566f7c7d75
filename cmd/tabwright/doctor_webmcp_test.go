package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/launch"
	"github.com/tabwright/tabwright/engine/tabs"
)

// doctor says whether the browser offers pages WebMCP: the managed one
// does; one started with another --enable-features (the last one wins)
// does not, and doctor names the fix.
func TestDoctorReportsWebMCP(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	webmcpReport(&out, tabs.Options{})
	if got := out.String(); got != "webmcp:   pages can offer tools (browser_page_tool calls them)\n" {
		t.Fatalf("the managed browser: %q", got)
	}
	out.Reset()
	webmcpReport(&out, tabs.Options{Launch: launch.Options{Args: []string{"--enable-features=NoSuchFeature"}}})
	if got := out.String(); !strings.HasPrefix(got, "webmcp:   MISSING: ") || !strings.Contains(got, "--enable-features=WebMCP") {
		t.Fatalf("a browser without WebMCP: %q", got)
	}
}
