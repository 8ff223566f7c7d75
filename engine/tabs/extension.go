package tabs

import (
	"github.com/tabwright/tabwright/engine/cdp"
)

// KindExtension is a browser profile of the user's own Chrome or Edge,
// reached through the paired tabwright extension (attach mode).
const KindExtension = "extension"

// ExtensionSource lists the browser profiles paired through the attach hub.
// The list grows while the program runs, as extensions connect.
type ExtensionSource interface {
	ExtensionProfiles() []ExtensionProfile
}

// ExtensionProfile is one paired profile. Open returns a transport that
// speaks CDP for the profile's tabs; the engine runs over it unchanged.
type ExtensionProfile interface {
	ID() string
	Name() string
	Product() string // e.g. "Chrome/156.0.8078.114"
	Connected() bool
	FileAccess() bool // the user allowed the extension file:// URLs
	Open() (cdp.Transport, error)
}

// extensionCapabilities lists what agents can do with a paired profile;
// CapabilityFileURLs is added when the user allowed the extension file://
// URLs.
var extensionCapabilities = []string{"claim_tab", "open_tab", "navigate", "observe", "act", "batch", "activate_tab", "close_tab"}

// CapabilityFileURLs says that file:// tabs can be claimed and opened.
const CapabilityFileURLs = "file_urls"

// extensionProfiles returns a profile record for every paired profile,
// making records for profiles seen for the first time. Records are never
// dropped: a profile that left may come back with its claims.
func (m *Manager) extensionProfiles() []*profile {
	if m.opt.Extensions == nil {
		return nil
	}
	list := m.opt.Extensions.ExtensionProfiles()
	out := make([]*profile, 0, len(list))
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ep := range list {
		id := KindExtension + ":" + ep.ID()
		p := m.ext[id]
		if p == nil {
			p = &profile{id: id, kind: KindExtension, m: m, lock: make(chan struct{}, 1), ext: ep}
			m.ext[id] = p
		}
		out = append(out, p)
	}
	return out
}

// openExtension connects to a paired profile through the hub.
func (p *profile) openExtension() (*cdp.Conn, error) {
	tr, err := p.ext.Open()
	if err != nil {
		return nil, err
	}
	return cdp.New(tr), nil
}
