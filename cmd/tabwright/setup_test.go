package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/hub"
)

func TestSetup(t *testing.T) {
	home := t.TempDir()
	t.Setenv("TABWRIGHT_HOME", home)
	ctx := context.Background()

	// attach mode refuses to start unpaired, and says what to do
	var stderr strings.Builder
	err := runMCP(ctx, []string{"--attach"}, &stderr)
	if errs.Code(err) != errs.InvalidInput || !strings.Contains(err.Error(), "tabwright setup") {
		t.Fatalf("mcp --attach before setup: %v", err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var out strings.Builder
	if err := runSetup(ctx, []string{"--port", strconv.Itoa(port), "--name", "Work"}, &out); err != nil {
		t.Fatal(err)
	}
	cfg, err := hub.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, "extension")
	for _, want := range []string{dir, cfg.Key, "fdblnkdnocfaepcaikfpoankifcokefa", `"--attach"`, "127.0.0.1:" + strconv.Itoa(port), "Load unpacked"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("setup output lacks %q:\n%s", want, out.String())
		}
	}
	pairing, err := os.ReadFile(filepath.Join(dir, "pairing.json"))
	if err != nil || !strings.Contains(string(pairing), cfg.Key) || !strings.Contains(string(pairing), `"Work"`) {
		t.Fatalf("pairing file: %v %s", err, pairing)
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(home, "attach.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("attach.json: %v %v", err, fi)
	}

	// a second setup keeps the key; --new-key replaces it
	out.Reset()
	if err := runSetup(ctx, nil, &out); err != nil {
		t.Fatal(err)
	}
	again, _ := hub.LoadConfig(home)
	if again.Key != cfg.Key || again.Port != port {
		t.Fatalf("setup changed the pairing: %+v -> %+v", cfg, again)
	}
	if err := runSetup(ctx, []string{"--new-key"}, &out); err != nil {
		t.Fatal(err)
	}
	if fresh, _ := hub.LoadConfig(home); fresh.Key == cfg.Key {
		t.Fatal("--new-key kept the key")
	}

	// the hub starts on the paired port
	stderr.Reset()
	h, err := startAttachHub(&stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if h.Role() != hub.RoleHub || h.Hub().Port() != port || !strings.Contains(stderr.String(), "attach hub on 127.0.0.1:") {
		t.Fatalf("hub %s on %d, log %q", h.Role(), h.Hub().Port(), stderr.String())
	}
}
