package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/extension"
	"github.com/tabwright/tabwright/hub"
)

// runSetup pairs attach mode: it keeps (or makes) the pairing key and the
// hub's port in the tabwright home, writes the extension with that pairing
// into a stable folder there, and prints what the user does next.
func runSetup(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("setup")
	port := fs.Int("port", 0, "the hub's loopback port (default: the one set before, else "+strconv.Itoa(hub.DefaultPort)+")")
	newKey := fs.Bool("new-key", false, "make a new pairing key; extensions paired with the old one are refused until reloaded")
	name := fs.String("name", "", "the profile name the extension starts with (its options page can change it)")
	fs.SetOutput(stdout)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errs.Input("args", "setup takes no arguments, got %q", fs.Args())
	}
	if *port < 0 || *port > 65535 {
		return errs.Input("--port", "%d is not a port", *port)
	}
	home, err := hub.Home()
	if err != nil {
		return err
	}
	cfg, err := hub.LoadConfig(home)
	if err != nil {
		cfg = &hub.Config{Port: hub.DefaultPort, Key: hub.NewKey()}
	}
	if *newKey {
		cfg.Key = hub.NewKey()
	}
	if *port != 0 {
		cfg.Port = *port
	}
	if err := hub.SaveConfig(home, cfg); err != nil {
		return err
	}
	dir := filepath.Join(home, "extension")
	if err := hub.InstallExtension(dir, cfg, *name); err != nil {
		return err
	}
	id, err := extension.ID()
	if err != nil {
		return errs.Wrap(errs.Internal, err, "reading the extension's id")
	}
	exe, err := os.Executable()
	if err != nil {
		exe = "tabwright"
	}
	snippet, _ := json.MarshalIndent(map[string]any{
		"mcpServers": map[string]any{"tabwright": map[string]any{"command": exe, "args": []string{"mcp", "--attach"}}},
	}, "", "  ")

	fmt.Fprintf(stdout, `tabwright attach mode is paired.

1. Load the extension, once per Chrome or Edge profile you want agents in:
   open chrome://extensions (edge://extensions), turn on Developer mode,
   click "Load unpacked" and choose this folder:

     %s

   Its id is %s. For file:// tabs, also turn on "Allow access to file URLs"
   in the extension's details.

2. Give the profile a name on the extension's options page ("Work", "Personal"):
   agents pick the profile by that name in browser_discover.

3. Add tabwright to your MCP client:

%s

The hub listens on 127.0.0.1:%d while `+"`tabwright mcp --attach`"+` runs.
Pairing key: %s
It is already written into the extension folder (%s) and into %s.
Run `+"`tabwright setup --new-key`"+` to revoke it, then reload the extension.

A paired agent can list this profile's tabs (titles and URLs), open, activate and
close tabs, and in a tab it claims do anything DevTools can: read the page, type,
click, run scripts, with your signed-in sessions. No tab is attached unless an agent
claimed it; releasing detaches; Chrome shows a debugging bar while a tab is claimed.
`, dir, id, indent(string(snippet), "   "), cfg.Port, cfg.Key, extension.PairingFile, filepath.Join(home, "attach.json"))
	return nil
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// startAttachHub starts the hub of attach mode with the pairing that
// `tabwright setup` wrote, or joins the hub another tabwright process runs
// on that port.
func startAttachHub(stderr io.Writer) (*hub.Node, error) {
	home, err := hub.Home()
	if err != nil {
		return nil, err
	}
	cfg, err := hub.LoadConfig(home)
	if err != nil {
		return nil, err
	}
	key, err := cfg.KeyBytes()
	if err != nil {
		return nil, err
	}
	id, err := extension.ID()
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "reading the extension's id")
	}
	return hub.StartOrJoin(hub.Options{
		Addr:        net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.Port)),
		Key:         key,
		ExtensionID: id,
		Log:         stderr,
	})
}
