package mcpserver

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/errs"
)

// A client that offers roots (the folders of the user's workspace) gets
// the file tools in those folders instead of --output-dir and
// --upload-root, as Playwright MCP does; the flags' folders stay for a
// client that offers none.

// rootsFlag is how errors name the client's roots as a folder's origin.
const rootsFlag = "the MCP client's roots"

// rootsInput names the roots request in a call's input requests.
const rootsInput = "roots"

// fileFields are the arguments by which each tool reads or writes a file;
// "" for a tool that always writes one.
var fileFields = map[string]string{
	"browser_screenshot":    "save_path",
	"browser_pdf":           "",
	"browser_storage_state": "path",
	"browser_upload":        "files",
}

// rootsKey carries the calling client's root folders in a call's context.
type rootsKey struct{}

// callRoots are the roots a call's file tools use. A server may not ask a
// client anything while it serves a call (protocol 2026-07-28, SEP-2322):
// a call that uses a file, from a client that offers roots, first answers
// with an input request for them; the client sends the call again with its
// roots, and the SDK does the same for clients of older versions. ask
// reports that the call must ask first.
func callRoots(tool string, req *mcp.CallToolRequest) (folders []*folder, ask bool) {
	field, usesFiles := fileFields[tool]
	if !usesFiles || (field != "" && !hasArgument(req.Params.Arguments, field)) {
		return nil, false
	}
	if caps := req.ClientCapabilities(); caps == nil || caps.RootsV2 == nil {
		return nil, false
	}
	answer, answered := req.Params.InputResponses[rootsInput]
	if !answered {
		return nil, true
	}
	if list, ok := answer.(*mcp.ListRootsResult); ok {
		for _, r := range list.Roots {
			if f := rootFolder(r.URI); f != nil {
				folders = append(folders, f)
			}
		}
	}
	return folders, false
}

// rootsRequest is the answer that asks the client for its roots.
func rootsRequest() *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsInput: &mcp.ListRootsParams{}}}
}

func hasArgument(args json.RawMessage, field string) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(args, &top) != nil {
		return false
	}
	v, ok := top[field]
	return ok && string(v) != "null"
}

func withRoots(ctx context.Context, folders []*folder) context.Context {
	return context.WithValue(ctx, rootsKey{}, folders)
}

// rootFolders are the calling client's roots, or nil when it offers none.
func (s *server) rootFolders(ctx context.Context) []*folder {
	folders, _ := ctx.Value(rootsKey{}).([]*folder)
	return folders
}

// rootFolder is an existing folder a file:// root names, or nil.
func rootFolder(uri string) *folder {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return nil
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/") // file:///C:/work is C:/work
	}
	abs, err := filepath.EvalSymlinks(filepath.Clean(p))
	if err != nil {
		return nil
	}
	return &folder{dir: abs, flag: rootsFlag}
}

// pickFolder is the folder of folders a path belongs in: a relative path
// goes in the first, an absolute one in the folder that holds it.
func pickFolder(field, p string, folders []*folder) (*folder, error) {
	if !filepath.IsAbs(p) {
		return folders[0], nil
	}
	for _, f := range folders {
		if _, err := f.rel(field, p); err == nil {
			return f, nil
		}
	}
	dirs := make([]string, len(folders))
	for i, f := range folders {
		dirs[i] = f.dir
	}
	return nil, errs.Input(field, "%s is outside the MCP client's roots (%s), the folders file tools may use", p, strings.Join(dirs, ", ")).
		WithHint("give a path inside one of them (relative paths are taken from %s)", folders[0].dir)
}
