//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"net"
	"runtime"

	"github.com/tabwright/tabwright/quickstart/egress"
)

// Unavailable is the code of every refusal on a host the backends do not
// run on.
const Unavailable = "sandbox.unavailable"

// unavailableWhy says why and what to do instead. The container backend
// runs tabwright itself inside the container as the process keeper, so it
// needs a Linux host as much as bubblewrap does.
var unavailableWhy = Unavailable + ": qs runs task commands in a Linux sandbox (bubblewrap) or a container it drives from a Linux host, and this host is " +
	runtime.GOOS + "; run qs on Linux: WSL 2 on Windows, a Linux VM (Docker Desktop's, colima, OrbStack) or a CI runner, with tabwright's linux build. " +
	"The MCP server and read_docs work here"

var errUnavailable = errors.New(unavailableWhy)

// Sandbox stands for a sandbox that cannot be made on this host.
type Sandbox struct {
	Base, Workspace, Home, Tmp string
}

// New refuses: no backend runs on this host.
func New() (*Sandbox, error) { return nil, errUnavailable }

// Adopt refuses: no backend runs on this host.
func Adopt(string) (*Sandbox, error) { return nil, errUnavailable }

// NewLocal refuses: no backend runs on this host.
func NewLocal(*egress.Proxy) (*Sandbox, error) { return nil, errUnavailable }

// AdoptLocal refuses: no backend runs on this host.
func AdoptLocal(string, *egress.Proxy) (*Sandbox, error) { return nil, errUnavailable }

// NewIsolated refuses: no backend runs on this host.
func NewIsolated(*egress.Proxy) (*Sandbox, error) { return nil, errUnavailable }

// NewIsolatedBounded refuses: no backend runs on this host.
func NewIsolatedBounded(*egress.Proxy, int64) (*Sandbox, error) { return nil, errUnavailable }

// NewIsolatedLimited refuses: no backend runs on this host.
func NewIsolatedLimited(*egress.Proxy, int64, Limits) (*Sandbox, error) { return nil, errUnavailable }

// AdoptIsolated refuses: no backend runs on this host.
func AdoptIsolated(string, *egress.Proxy) (*Sandbox, error) { return nil, errUnavailable }

// NewContainer refuses: no backend runs on this host.
func NewContainer(context.Context, *Runtime, string, *egress.Proxy, int64) (*Sandbox, error) {
	return nil, errUnavailable
}

// AdoptContainer refuses: no backend runs on this host.
func AdoptContainer(context.Context, *Runtime, string, string, *egress.Proxy) (*Sandbox, error) {
	return nil, errUnavailable
}

// FindRuntime finds no usable container runtime here, and says why.
func FindRuntime(context.Context) (*Runtime, string) { return nil, unavailableWhy }

// FindRuntimeNamed finds no usable container runtime here, and says why.
func FindRuntimeNamed(context.Context, string) (*Runtime, string) { return nil, unavailableWhy }

// StartFlags is empty: nothing starts here.
func StartFlags(*Runtime) string { return "" }

// Probe says the sandbox backend cannot be enforced here, and why.
func Probe(context.Context) (bool, string) { return false, unavailableWhy }

// DetectUsernsBlock finds nothing: user namespaces are Linux's.
func DetectUsernsBlock(string, string) (UsernsBlock, bool) { return UsernsBlock{}, false }

// BwrapPath is empty: bubblewrap is Linux's.
func BwrapPath() string { return "" }

// UsernsHint is the way to run qs from this host.
func UsernsHint(string, string) string { return unavailableWhy }

// The methods of a Sandbox no constructor returns here.

func (s *Sandbox) WorkspaceBound() int64 { return 0 }
func (s *Sandbox) Image() string         { return "" }
func (s *Sandbox) Proxied() bool         { return false }
func (s *Sandbox) BackendName() string   { return "" }
func (s *Sandbox) Enforced() bool        { return false }
func (s *Sandbox) Env(...string) []string {
	return nil
}
func (s *Sandbox) Close(bool) error { return nil }
func (s *Sandbox) DialInside(int) (net.Conn, error) {
	return nil, errUnavailable
}
func (s *Sandbox) Run(context.Context, string, Options) CommandResult {
	return CommandResult{ExitCode: 127, Output: unavailableWhy}
}
