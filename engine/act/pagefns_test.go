package act

import (
	"context"
	"testing"
	"time"

	"github.com/tabwright/tabwright/engine/injected"
)

// Every page function the engine names (injected.Fns) is a function once
// the bundles are installed: a Go call cannot name one the page lacks.
func TestPageFunctionsInstalled(t *testing.T) {
	tab := page(t, "basics.html")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	check := "(" + js(injected.Fns) + ").filter((fn) => typeof globalThis.__tabwright[fn] !== 'function')"
	var missing []string
	if err := tab.Eval(ctx, injected.Installing(check, injected.Act, injected.Observe, injected.Watch), &missing); err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("page functions the engine calls but the bundle does not define: %v", missing)
	}
}
