package hub

import (
	"net"
	"testing"
)

// A second listener on a taken port is recognised as "port taken" on this
// OS, whatever words its error uses: that is what makes a second process
// join the first one's hub instead of failing.
func TestAddrInUseOnThisOS(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = net.Listen("tcp", ln.Addr().String())
	if err == nil {
		t.Fatal("a second listener on a taken port succeeded")
	}
	if !addrInUse(err) {
		t.Fatalf("addrInUse(%v) = false", err)
	}
	if addrInUse(net.ErrClosed) {
		t.Fatal("addrInUse matched an unrelated error")
	}
}
