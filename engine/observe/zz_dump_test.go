package observe

import (
	"encoding/json"
	"os"
	"testing"
)

func TestZZDump(t *testing.T) {
	ctx := testCtx(t)
	for _, pg := range []string{"/login.html", "/hidden.html"} {
		p := open(t, ctx, pg)
		o, _ := capture(t, ctx, p, Options{})
		raw, _ := json.MarshalIndent(o, "", " ")
		os.Stdout.Write(raw)
		os.Stdout.WriteString("\n" + Render(o) + "\n")
	}
}
