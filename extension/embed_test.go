package extension

import (
	"encoding/json"
	"io/fs"
	"testing"
)

func TestID(t *testing.T) {
	id, err := ID()
	if err != nil {
		t.Fatal(err)
	}
	// The id Chrome shows for the unpacked extension; it must never change,
	// since the hub accepts only this origin.
	if id != "fdblnkdnocfaepcaikfpoankifcokefa" {
		t.Fatalf("extension id %q", id)
	}
	if _, err := IDFromKey("%%%"); err == nil {
		t.Fatal("a bad key gave no error")
	}
}

func TestManifest(t *testing.T) {
	raw, err := fs.ReadFile(Files(), "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ManifestVersion int      `json:"manifest_version"`
		Permissions     []string `json:"permissions"`
		Background      struct {
			ServiceWorker string `json:"service_worker"`
		} `json:"background"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m.ManifestVersion != 3 || m.Background.ServiceWorker != "sw.js" {
		t.Fatalf("manifest: %+v", m)
	}
	want := map[string]bool{"debugger": true, "tabs": true, "storage": true, "alarms": true}
	for _, p := range m.Permissions {
		delete(want, p)
	}
	if len(want) != 0 {
		t.Fatalf("missing permissions %v", want)
	}
	if _, err := fs.Stat(Files(), PairingFile); err == nil {
		t.Fatal("a pairing file is embedded; it holds a secret and must be written per machine")
	}
}
