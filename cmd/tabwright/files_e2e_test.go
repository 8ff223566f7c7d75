package main

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The file tools reach only the folders the user named (issue 25 item 10):
// a tool call steered by a page cannot write, overwrite or read a host file
// elsewhere, through .., an absolute path or a link inside the folder.
func TestFileToolsStayInTheirFolders(t *testing.T) {
	t.Parallel()
	site := actSite(t)
	out, up, host := t.TempDir(), t.TempDir(), t.TempDir()
	victim := filepath.Join(host, "victim.txt")
	if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(host, "secret.json")
	if err := os.WriteFile(secret, []byte(`xsecret-byte`), 0o644); err != nil {
		t.Fatal(err)
	}
	mustLink(t, host, filepath.Join(out, "away"))          // a folder link out
	mustLink(t, victim, filepath.Join(out, "victim.png"))  // a file link out
	mustLink(t, secret, filepath.Join(out, "state.json"))  // a link to read through
	mustLink(t, secret, filepath.Join(up, "innocent.txt")) // an upload link out
	s := startServer(t, "--output-dir", out, "--upload-root", up)
	h := openOn(t, s.sess, site.URL+"/mcp.html")

	for _, p := range []string{"../escape.png", filepath.Join(host, "abs.png"), "away/through.png", victim} {
		code, path, msg := callErr(t, s.sess, "browser_screenshot", map[string]any{"tab_handle": h, "save_path": p})
		if code != "invalid_input" || path != "save_path" || !strings.Contains(msg, "outside") {
			t.Errorf("save_path %q: %s %s %q, want invalid_input save_path outside", p, code, path, msg)
		}
	}
	// A link at the target is replaced by the file, never written through.
	saved := mustCall(t, s.sess, "browser_screenshot", map[string]any{"tab_handle": h, "save_path": "victim.png"})
	if saved["saved"] != filepath.Join(out, "victim.png") {
		t.Errorf("saved %v", saved["saved"])
	}
	if fi, err := os.Lstat(filepath.Join(out, "victim.png")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("victim.png in the folder is not the new file: %v %v", fi, err)
	}
	entries, _ := os.ReadDir(host)
	if data, _ := os.ReadFile(victim); string(data) != "keep me" || len(entries) != 2 {
		t.Fatalf("a host file changed or appeared: victim %q, %d entries", data, len(entries))
	}

	for _, p := range []string{"/etc/passwd", "state.json", "../" + filepath.Base(host) + "/secret.json"} {
		code, path, msg := callErr(t, s.sess, "browser_storage_state", map[string]any{"tab_handle": h, "action": "import", "path": p})
		if code != "invalid_input" || path != "path" || strings.Contains(msg, "xsecret") || strings.Contains(msg, "root:") || strings.Contains(msg, "'x'") {
			t.Errorf("import %q: %s %s %q", p, code, path, msg)
		}
	}
	// A file in the folder that is not state JSON: where, never what.
	if err := os.WriteFile(filepath.Join(out, "junk.json"), []byte("zebra"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, msg := callErr(t, s.sess, "browser_storage_state", map[string]any{"tab_handle": h, "action": "import", "path": "junk.json"}); strings.Contains(msg, "'z'") || !strings.Contains(msg, "byte") {
		t.Errorf("junk import says %q", msg)
	}

	for _, p := range []string{victim, "innocent.txt", "../x"} {
		code, path, msg := callErr(t, s.sess, "browser_upload", map[string]any{"tab_handle": h, "selector": "#file", "files": []any{p}})
		if code != "invalid_input" || path != "files[0]" {
			t.Errorf("upload %q: %s %s %q", p, code, path, msg)
		}
	}
	if err := os.WriteFile(filepath.Join(up, "notes.txt"), []byte("twelve bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCall(t, s.sess, "browser_upload", map[string]any{"tab_handle": h, "selector": "#file", "files": []any{"notes.txt"}})
	waitLog(t, s.sess, h, "file notes.txt 12")
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// file:// is off unless the user turns it on: a page that tells the agent
// to open file:///… cannot have this machine's files read back to it.
func TestFileURLsNeedTheirFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	page := filepath.Join(dir, "local.html")
	if err := os.WriteFile(page, []byte("<title>Local page</title><p>host file content</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + page
	site := actSite(t)

	off := startServer(t)
	code, path, msg := callErr(t, off.sess, "browser_open_tab", map[string]any{"url": fileURL})
	if code != "permission_denied" || path != "url" || !strings.Contains(msg, "file:// URLs are off") {
		t.Errorf("open_tab file:// without the flag: %s %s %q", code, path, msg)
	}
	h := openOn(t, off.sess, site.URL+"/mcp.html")
	code, path, msg = callErr(t, off.sess, "browser_navigate", map[string]any{"tab_handle": h, "url": fileURL})
	if code != "permission_denied" || path != "url" {
		t.Errorf("navigate file:// without the flag: %s %s %q", code, path, msg)
	}

	on := startServer(t, "--allow-file-urls")
	opened := mustCall(t, on.sess, "browser_open_tab", map[string]any{"url": fileURL})
	if opened["title"] != "Local page" {
		t.Errorf("open_tab file:// with --allow-file-urls: %v", opened)
	}
}

// A client that offers roots gets the file tools in its roots, not in
// --output-dir: a relative path lands in the first root, a path in another
// root is refused naming the roots.
func TestFileToolsUseTheClientsRoots(t *testing.T) {
	t.Parallel()
	site := actSite(t)
	root, out := t.TempDir(), t.TempDir()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-roots", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(root)}).String(), Name: "workspace"})
	cmd := exec.Command(binary, "mcp", "--tools", "full", "--output-dir", out)
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	h := openOn(t, sess, site.URL+"/mcp.html")

	saved := mustCall(t, sess, "browser_screenshot", map[string]any{"tab_handle": h, "save_path": "shot.png"})
	real, _ := filepath.EvalSymlinks(root)
	if saved["saved"] != filepath.Join(real, "shot.png") {
		t.Fatalf("saved at %v, want in the root %s", saved["saved"], real)
	}
	code, path, msg := callErr(t, sess, "browser_screenshot", map[string]any{"tab_handle": h, "save_path": filepath.Join(out, "shot.png")})
	if code != "invalid_input" || path != "save_path" || !strings.Contains(msg, "roots") {
		t.Fatalf("a path in --output-dir with roots offered: %s %s %q", code, path, msg)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Fatalf("the output folder got %d files", len(entries))
	}
}
