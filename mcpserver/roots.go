package mcpserver

import (
	"context"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabwright/tabwright/engine/errs"
)

// A client that offers roots (the folders of the user's workspace) gets
// the file tools in those folders instead of --output-dir and
// --upload-root, as Playwright MCP does; the flags' folders stay for a
// client that offers none.

// rootsFlag is how errors name the client's roots as a folder's origin.
const rootsFlag = "the MCP client's roots"

// rootsWait bounds asking a client for its roots.
const rootsWait = 5 * time.Second

// sessionKey carries the calling session in a tool call's context.
type sessionKey struct{}

func withSession(ctx context.Context, ss *mcp.ServerSession) context.Context {
	return context.WithValue(ctx, sessionKey{}, ss)
}

// rootsCache keeps each session's roots until it says they changed.
type rootsCache struct {
	mu sync.Mutex
	m  map[*mcp.ServerSession][]*folder
}

func (c *rootsCache) forget(ss *mcp.ServerSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, ss)
}

// rootFolders are the calling client's roots, or nil when it offers none
// (or cannot say which).
func (s *server) rootFolders(ctx context.Context) []*folder {
	ss, _ := ctx.Value(sessionKey{}).(*mcp.ServerSession)
	if ss == nil {
		return nil
	}
	if p := ss.InitializeParams(); p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		return nil
	}
	s.roots.mu.Lock()
	cached, ok := s.roots.m[ss]
	s.roots.mu.Unlock()
	if ok {
		return cached
	}
	ask, cancel := context.WithTimeout(ctx, rootsWait)
	defer cancel()
	res, err := ss.ListRoots(ask, &mcp.ListRootsParams{})
	if err != nil {
		return nil // the flags' folders, as for a client without roots
	}
	var folders []*folder
	for _, r := range res.Roots {
		if f := rootFolder(r.URI); f != nil {
			folders = append(folders, f)
		}
	}
	s.roots.mu.Lock()
	if s.roots.m == nil {
		s.roots.m = map[*mcp.ServerSession][]*folder{}
	}
	s.roots.m[ss] = folders
	s.roots.mu.Unlock()
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
