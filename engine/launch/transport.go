package launch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tabwright/tabwright/engine/cdp"
)

// pipeEnds are the two pipes of --remote-debugging-pipe: the browser reads
// commands from fd 3 and writes replies to fd 4.
type pipeEnds struct {
	browserIn, toBrowser, fromBrowser, browserOut *os.File
}

func newPipeEnds() (*pipeEnds, error) {
	browserIn, toBrowser, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromBrowser, browserOut, err := os.Pipe()
	if err != nil {
		browserIn.Close()
		toBrowser.Close()
		return nil, err
	}
	return &pipeEnds{browserIn, toBrowser, fromBrowser, browserOut}, nil
}

// childEnds are the child's fds 3 and 4, in that order.
func (p *pipeEnds) childEnds() []*os.File { return []*os.File{p.browserIn, p.browserOut} }

// closeChildEnds drops our copies of the child's ends once it has them, so
// that its exit reads as end of file on ours.
func (p *pipeEnds) closeChildEnds() {
	p.browserIn.Close()
	p.browserOut.Close()
}

func (p *pipeEnds) closeOurEnds() {
	p.toBrowser.Close()
	p.fromBrowser.Close()
}

// activePortFile is where a browser started with --remote-debugging-port=0
// writes the port it chose (first line) and its browser target's path
// (second line), inside its user data directory.
const activePortFile = "DevToolsActivePort"

// activePortPoll is how often the file is looked for: a browser writes it
// about as soon as it listens, some hundred milliseconds after its start,
// and nothing signals the write.
const activePortPoll = 10 * time.Millisecond

// dialActivePort waits for dataDir's DevToolsActivePort (until ctx ends or
// the browser exits) and connects to the loopback address it names.
func dialActivePort(ctx context.Context, dataDir string, exited <-chan struct{}) (cdp.Transport, error) {
	file := filepath.Join(dataDir, activePortFile)
	tick := time.NewTicker(activePortPoll)
	defer tick.Stop()
	for {
		port, path, err := readActivePort(file)
		if err == nil {
			return cdp.DialWebSocket(ctx, fmt.Sprintf("ws://127.0.0.1:%d%s", port, path), nil)
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, errPartial) {
			return nil, err
		}
		select {
		case <-tick.C:
		case <-exited:
			return nil, errors.New("the browser exited before it wrote " + activePortFile)
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %s: %w", file, ctx.Err())
		}
	}
}

// errPartial is a DevToolsActivePort caught while the browser writes it.
var errPartial = errors.New("incomplete " + activePortFile)

// readActivePort parses a DevToolsActivePort file. The path must be a
// browser target's, so that nothing in the file can point the connection
// at another host.
func readActivePort(file string) (port int, path string, err error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimSpace(sc.Text()))
	}
	if len(lines) < 2 || lines[1] == "" {
		return 0, "", errPartial
	}
	port, err = strconv.Atoi(lines[0])
	if err != nil || port <= 0 || port > 65535 {
		return 0, "", fmt.Errorf("%s: %q is not a port", file, lines[0])
	}
	if !strings.HasPrefix(lines[1], "/devtools/browser/") || strings.ContainsAny(lines[1], "?#@ ") {
		return 0, "", fmt.Errorf("%s: %q is not a browser target's path", file, lines[1])
	}
	return port, lines[1], nil
}
