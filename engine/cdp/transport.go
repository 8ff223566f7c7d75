package cdp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"

	"github.com/coder/websocket"
)

// maxMessage bounds one CDP message; screenshots and DOM snapshots of big
// pages run to tens of megabytes.
const maxMessage = 512 << 20

// wsTransport carries CDP over a DevTools WebSocket.
type wsTransport struct {
	conn *websocket.Conn
	ctx  context.Context
	stop context.CancelFunc
}

// DialWebSocket opens a DevTools WebSocket (ws://host:port/devtools/browser/…).
// header may carry an Origin or credentials; it may be nil.
func DialWebSocket(ctx context.Context, url string, header http.Header) (Transport, error) {
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: header, CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(maxMessage)
	life, stop := context.WithCancel(context.Background())
	return &wsTransport{conn: conn, ctx: life, stop: stop}, nil
}

func (t *wsTransport) ReadMessage() ([]byte, error) {
	_, data, err := t.conn.Read(t.ctx)
	return data, err
}

func (t *wsTransport) WriteMessage(data []byte) error {
	return t.conn.Write(t.ctx, websocket.MessageText, data)
}

func (t *wsTransport) Close() error {
	defer t.stop()
	return t.conn.CloseNow()
}

// pipeTransport carries CDP over --remote-debugging-pipe: each message is
// JSON followed by a NUL byte. The browser reads fd 3 and writes fd 4.
type pipeTransport struct {
	r    *bufio.Reader
	w    io.WriteCloser
	rc   io.Closer
	once sync.Once
}

// NewPipe returns a transport over the two pipe ends: w is the browser's fd 3
// (we write), r its fd 4 (we read).
func NewPipe(w io.WriteCloser, r io.ReadCloser) Transport {
	return &pipeTransport{r: bufio.NewReaderSize(r, 1<<16), w: w, rc: r}
}

func (t *pipeTransport) ReadMessage() ([]byte, error) {
	data, err := t.r.ReadBytes(0)
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(data, []byte{0}), nil
}

func (t *pipeTransport) WriteMessage(data []byte) error {
	buf := make([]byte, len(data)+1)
	copy(buf, data)
	_, err := t.w.Write(buf)
	return err
}

func (t *pipeTransport) Close() error {
	var err error
	t.once.Do(func() {
		err = t.w.Close()
		t.rc.Close()
	})
	return err
}
