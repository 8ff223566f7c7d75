package tabs

import (
	"errors"
	"sync"

	"github.com/tabwright/tabwright/engine/cdp"
)

// parallel runs fns at once and returns the first error. Independent CDP
// commands pipelined this way cost one round trip instead of len(fns).
func parallel(fns ...func() error) error {
	errc := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errc[i] = fn()
		}()
	}
	wg.Wait()
	return errors.Join(errc...)
}

func asProtocol(err error, pe **cdp.ProtocolError) bool { return errors.As(err, pe) }
