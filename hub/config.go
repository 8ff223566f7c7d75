package hub

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tabwright/tabwright/engine/errs"
	"github.com/tabwright/tabwright/extension"
)

// DefaultPort is the hub's port unless setup chose another.
const DefaultPort = 47411

// Config is the pairing that `tabwright setup` writes and `tabwright mcp
// --attach` reads: the hub's port and the pairing key.
type Config struct {
	Port int    `json:"port"`
	Key  string `json:"key"` // 64 hex digits: 256 random bits
}

// configFile is the name of the pairing file in the tabwright home.
const configFile = "attach.json"

// Home returns the directory for the pairing and the extension copy:
// $TABWRIGHT_HOME, else tabwright/ in the user's configuration directory.
func Home() (string, error) {
	if h := os.Getenv("TABWRIGHT_HOME"); h != "" {
		return h, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", errs.Wrap(errs.InvalidInput, err, "finding the configuration directory").
			WithHint("set TABWRIGHT_HOME to a directory of your choice")
	}
	return filepath.Join(dir, "tabwright"), nil
}

// NewKey returns a fresh pairing key.
func NewKey() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// KeyBytes decodes and checks the key.
func (c *Config) KeyBytes() ([]byte, error) {
	k, err := hex.DecodeString(c.Key)
	if err != nil || len(k) != 32 {
		return nil, errs.Input("key", "the pairing key must be 64 hex digits").
			WithHint("run `tabwright setup --new-key` to make a new one")
	}
	return k, nil
}

// LoadConfig reads the pairing from home.
func LoadConfig(home string) (*Config, error) {
	path := filepath.Join(home, configFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidInput, err, "reading the attach pairing").
			WithHint("%s", "run `tabwright setup` first: it pairs the extension and writes "+path)
	}
	var c Config
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, errs.Wrap(errs.InvalidInput, err, "reading "+path).WithHint("run `tabwright setup --new-key` to write it again")
	}
	if c.Port <= 0 || c.Port > 65535 {
		return nil, errs.Input("port", "%s has no valid port", path).WithHint("run `tabwright setup` again")
	}
	if _, err := c.KeyBytes(); err != nil {
		return nil, err
	}
	return &c, nil
}

// SaveConfig writes the pairing to home, readable by the user only.
func SaveConfig(home string, c *Config) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return errs.Wrap(errs.InvalidInput, err, "creating "+home)
	}
	raw, _ := json.MarshalIndent(c, "", "  ")
	path := filepath.Join(home, configFile)
	if err := os.WriteFile(path, append(raw, '\n'), 0o600); err != nil {
		return errs.Wrap(errs.InvalidInput, err, "writing "+path)
	}
	return nil
}

// InstallExtension writes the extension's files to dir with the pairing
// file beside them, replacing an older copy. The user loads dir unpacked
// once; later setups rewrite it in place, so Chrome keeps the same folder.
// name, when not empty, is the profile name the extension starts with
// (the options page can change it).
func InstallExtension(dir string, c *Config, name string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return errs.Wrap(errs.InvalidInput, err, "creating "+dir)
	}
	err := fs.WalkDir(extension.Files(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(extension.Files(), path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, path), data, 0o644)
	})
	if err != nil {
		return errs.Wrap(errs.InvalidInput, err, "copying the extension to "+dir)
	}
	pairing := map[string]any{"port": c.Port, "key": c.Key}
	if name != "" {
		pairing["name"] = name
	}
	raw, _ := json.MarshalIndent(pairing, "", "  ")
	path := filepath.Join(dir, extension.PairingFile)
	if err := os.WriteFile(path, append(raw, '\n'), 0o600); err != nil {
		return errs.Wrap(errs.InvalidInput, err, "writing "+path)
	}
	return nil
}
