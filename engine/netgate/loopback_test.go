package netgate

import (
	"net"
	"testing"
)

func TestIsLoopbackIsOneAnswer(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "app.localhost": true, "127.0.0.1": true, "127.9.9.9": true,
		"::1": true, "[::1]": true,
		"localhost.evil": false, "127.0.0.1.nip.io": false, "0.0.0.0": false, "::": false, "10.0.0.1": false, "": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// A listener on every interface is not a loopback one, whatever its name
// said; one on 127.0.0.1 is.
func TestBoundToLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:0": true, ":0": false} {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := BoundToLoopback(ln); got != want {
			t.Errorf("%s bound to %s: %v, want %v", addr, ln.Addr(), got, want)
		}
		ln.Close()
	}
}
