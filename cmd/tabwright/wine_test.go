package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Windows build runs under Wine (Debian's wine64): `tabwright.exe mcp
// --cdp-url` against this machine's Chromium opens a page, observes it and
// clicks, its claims going through LockFileEx. Wine 8 lacks the
// ProcessPrng Go's runtime needs, so scripts/wine/bcryptprimitives.c,
// built with mingw-w64, stands in for bcryptprimitives.dll in the Wine
// prefix's system32. Wine runs x86 programs: an amd64 host only.
func TestWindowsBuildUnderWine(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Fatal("Wine runs x86 programs only, so the Windows smoke test needs an amd64 host: run make test on one (CI's is)")
	}
	wine := lookAny(t, "wine64", "/usr/lib/wine/wine64")
	gcc := lookAny(t, "x86_64-w64-mingw32-gcc")
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "tabwright.exe")
	build := exec.Command("go", "build", "-tags", "nomodels", "-o", exe, ".")
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0", "GOFLAGS=")
	runOK(t, build)
	dll := filepath.Join(dir, "bcryptprimitives.dll")
	runOK(t, exec.Command(gcc, "-O2", "-shared", "-o", dll, "../../scripts/wine/bcryptprimitives.c"))

	env := append(os.Environ(), "WINEPREFIX="+filepath.Join(dir, "prefix"), "WINEDEBUG=-all", "DISPLAY=")
	boot := exec.Command(wine, "wineboot", "--init")
	boot.Env = env
	runOK(t, boot)
	// The prefix's wineserver outlives the programs; it goes before the
	// prefix does (cleanups run last first).
	server := lookAny(t, "wineserver", "/usr/lib/wine/wineserver64")
	t.Cleanup(func() {
		for _, arg := range []string{"-k", "-w"} {
			stop := exec.Command(server, arg)
			stop.Env = env
			stop.Run()
		}
	})
	system32 := filepath.Join(dir, "prefix", "drive_c", "windows", "system32")
	b, err := os.ReadFile(dll)
	if err == nil {
		err = os.WriteFile(filepath.Join(system32, "bcryptprimitives.dll"), b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}

	browser := startAttachedBrowser(t, "0")
	site := fixtures(t)
	cmd := exec.Command(wine, exe, "mcp", "--cdp-url", browser.HTTPURL, "--tools", "full")
	cmd.Env = env
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "wine", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("tabwright.exe mcp under Wine: %v", err)
	}
	defer sess.Close()
	opened := mustCall(t, sess, "browser_open_tab", map[string]any{"url": site.URL + "/wine"})
	h, _ := opened["tab_handle"].(string)
	if opened["title"] != "Page /wine" || h == "" {
		t.Fatalf("browser_open_tab: %v", opened)
	}
	seen := mustCall(t, sess, "browser_observe", map[string]any{"tab_handle": h})
	if !strings.Contains(seen["textpreview"].(string), "Hello from /wine") {
		t.Fatalf("browser_observe: %v", seen)
	}
	mustCall(t, sess, "browser_click", map[string]any{"tab_handle": h, "selector": "button"})
}

// lookAny returns the first of names found (on PATH, or a path), or fails
// the test with the packages that provide them.
func lookAny(t *testing.T, names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Fatalf("none of %v found: apt-get install -y wine64 gcc-mingw-w64-x86-64-win32 (scripts/ensure-test-deps.sh)", names)
	return ""
}

func runOK(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
}
