// Package extension holds the browser extension of attach mode (a Manifest V3
// extension, plain JavaScript, loaded unpacked) and the facts the hub needs
// about it: its files, to copy them where the user loads them from, and its
// fixed id, derived from the public key in its manifest.
package extension

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
)

//go:embed manifest.json sw.js options.html options.js
var files embed.FS

// Files returns the extension's files.
func Files() fs.FS { return files }

// PairingFile is the name of the file, next to the manifest, from which the
// extension reads the hub's port and the pairing key. `tabwright setup`
// writes it; it is never part of the repository.
const PairingFile = "pairing.json"

// ID returns the extension id Chrome derives from the manifest key: the
// first 128 bits of the SHA-256 of the public key (DER), each hex digit
// 0-f written as a letter a-p.
func ID() (string, error) {
	raw, err := fs.ReadFile(files, "manifest.json")
	if err != nil {
		return "", err
	}
	var m struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", fmt.Errorf("manifest.json: %w", err)
	}
	return IDFromKey(m.Key)
}

// IDFromKey derives an extension id from a manifest key (base64 DER).
func IDFromKey(key string) (string, error) {
	der, err := base64.StdEncoding.DecodeString(key)
	if err != nil || len(der) == 0 {
		return "", fmt.Errorf("manifest key is not base64: %v", err)
	}
	sum := sha256.Sum256(der)
	id := make([]byte, 32)
	for i, b := range sum[:16] {
		id[2*i] = 'a' + b>>4
		id[2*i+1] = 'a' + b&0x0f
	}
	return string(id), nil
}
