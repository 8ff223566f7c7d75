package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// nodeArch is Node's name for this machine's architecture.
func nodeArch() string {
	if runtime.GOARCH == "amd64" {
		return "x64"
	}
	return runtime.GOARCH
}

// make release for this machine's target: an archive holding both
// binaries, SHA256SUMS over every file, and npm tarballs that install
// offline into a scratch prefix, from which `npx tabwright mcp` answers an
// MCP client (the Go SDK's; scripts/real-clients.sh has the TypeScript
// one, which needs the registry) and opens a page.
func TestReleasePackagesInstallAndRun(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm is needed to pack and install the npm packages (apt-get install -y npm)")
	}
	t.Parallel()
	dist := t.TempDir()
	cmd := exec.Command("sh", "../../scripts/release.sh", dist, "v0.0.0-releasetest")
	cmd.Env = append(os.Environ(), "TARGETS=linux/"+runtime.GOARCH, "SOURCE_DATE_EPOCH=1700000000")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, out)
	}

	archive := filepath.Join(dist, "tabwright-v0.0.0-releasetest-linux-"+runtime.GOARCH+".tar.gz")
	if got := tarNames(t, archive); !slices.Equal(got, []string{"./", "./tabwright", "./tabwright-models"}) {
		t.Errorf("%s holds %v, want both binaries", archive, got)
	}
	sums, _ := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	platform := "tabwright-linux-" + nodeArch()
	for _, f := range []string{filepath.Base(archive), "tabwright-linux-" + runtime.GOARCH,
		"npm/tabwright-0.0.0-releasetest.tgz", "npm/" + platform + "-0.0.0-releasetest.tgz"} {
		if !strings.Contains(string(sums), "  "+f+"\n") {
			t.Errorf("SHA256SUMS does not list %s:\n%s", f, sums)
		}
	}

	// Installed from the two tarballs alone, npm reaching no registry.
	prefix := t.TempDir()
	install := exec.Command("npm", "install", "--offline", "--no-audit", "--no-fund", "--prefix", prefix,
		filepath.Join(dist, "npm", "tabwright-0.0.0-releasetest.tgz"), filepath.Join(dist, "npm", platform+"-0.0.0-releasetest.tgz"))
	npmEnv := append(os.Environ(), "npm_config_cache="+t.TempDir(), "npm_config_offline=true")
	install.Env = npmEnv
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install --offline: %v\n%s", err, out)
	}
	var pj struct {
		OS, CPU []string
	}
	b, _ := os.ReadFile(filepath.Join(prefix, "node_modules", platform, "package.json"))
	if json.Unmarshal(b, &pj); !slices.Equal(pj.OS, []string{"linux"}) || !slices.Equal(pj.CPU, []string{nodeArch()}) {
		t.Errorf("%s's package.json: os %v cpu %v", platform, pj.OS, pj.CPU)
	}
	launcher := filepath.Join(prefix, "node_modules", ".bin", "tabwright")
	if out, err := exec.Command(launcher, "version").Output(); err != nil || strings.TrimSpace(string(out)) != "tabwright v0.0.0-releasetest" {
		t.Fatalf("tabwright version through npm: %q %v", out, err)
	}
	// The launcher passes the exit code on: 3 for an unknown command.
	if err := exec.Command(launcher, "frobnicate").Run(); err == nil || err.(*exec.ExitError).ExitCode() != 3 {
		t.Errorf("unknown command through npm: %v, want exit 3", err)
	}

	site := fixtures(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "npm-install", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	npx := exec.Command("npx", "tabwright", "mcp") // as an MCP client's configuration runs it
	npx.Dir, npx.Env = prefix, npmEnv
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: npx, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	opened := mustCall(t, sess, "browser_open_tab", map[string]any{"url": site.URL + "/a"})
	if opened["tab_handle"] == nil {
		t.Fatalf("browser_open_tab through npm: %v", opened)
	}
}

func tarNames(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
}
