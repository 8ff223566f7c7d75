package crossbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Targets are the released platforms.
var Targets = []struct{ GOOS, GOARCH string }{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// Each target builds the command twice, lean (-tags nomodels: the MCP
// server) and full (tabwright-models, with the model agents' SDKs), and
// vets every package, test files included: a test file that compiles only
// on Linux would break the macOS and Windows CI the same way. Vet runs
// once per target, on the full build: no test file depends on nomodels,
// and the two files that do are compiled by the lean build.
func TestEveryTargetBuildsAndVets(t *testing.T) {
	root := moduleRoot(t)
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, tg := range Targets {
		name := tg.GOOS + "-" + tg.GOARCH
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			for _, args := range [][]string{
				{"build", "-tags", "nomodels", "-o", os.DevNull, "./cmd/tabwright"},
				{"build", "-o", os.DevNull, "./cmd/tabwright"},
				{"vet", "./..."},
			} {
				cmd := exec.Command(goBin, args...)
				cmd.Dir = root
				cmd.Env = append(os.Environ(), "GOOS="+tg.GOOS, "GOARCH="+tg.GOARCH, "CGO_ENABLED=0", "GOFLAGS=")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("GOOS=%s GOARCH=%s go %s: %v\n%s", tg.GOOS, tg.GOARCH, strings.Join(args, " "), err, out)
				}
			}
			t.Logf("%s: %v", name, time.Since(start).Round(time.Millisecond))
		})
	}
}

func moduleRoot(t *testing.T) string {
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}
