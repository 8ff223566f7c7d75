package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// The extension's WebSocket: its hello, writes, heartbeat and read loop.

// hello is the extension's first message on a connection.
type hello struct {
	Type    string `json:"type"`
	Profile struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"profile"`
	Product    string `json:"product"`
	Booted     int64  `json:"booted"` // when the service worker started, ms since the epoch
	UserAgent  string `json:"userAgent"`
	FileAccess bool   `json:"fileAccess"` // the user allowed the extension file:// URLs
	Claims     []struct {
		TabID     int    `json:"tabId"`
		SessionID string `json:"sessionId"`
	} `json:"claims"`
}

func parseHello(data []byte) (*hello, error) {
	var m hello
	if err := json.Unmarshal(data, &m); err != nil || m.Type != "hello" {
		return nil, errors.New("the first message was not a hello")
	}
	if m.Profile.ID == "" || len(m.Profile.ID) > 64 {
		return nil, errors.New("the hello names no profile id")
	}
	if m.Profile.Name == "" {
		m.Profile.Name = "Chrome profile"
	}
	if len(m.Profile.Name) > 200 {
		m.Profile.Name = m.Profile.Name[:200]
	}
	return &m, nil
}

// socket is one WebSocket from the extension.
type socket struct {
	conn    *websocket.Conn
	ctx     context.Context
	writeMu sync.Mutex
}

func (s *socket) write(data []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	return s.conn.Write(ctx, websocket.MessageText, data)
}

var pingMsg = []byte(`{"type":"ping"}`)

// heartbeat pings the extension; the traffic also keeps its service worker
// from being stopped as idle.
func (s *socket) heartbeat(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if s.write(pingMsg) != nil {
				return
			}
		case <-s.ctx.Done():
			return
		}
	}
}

// readLoop relays the extension's messages to the profile until the
// connection ends or stays silent longer than silence.
func (s *socket) readLoop(p *Profile, silence time.Duration) error {
	for {
		ctx, cancel := context.WithTimeout(s.ctx, silence)
		_, data, err := s.conn.Read(ctx)
		cancel()
		if err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				s.conn.Close(websocket.StatusPolicyViolation, "no heartbeat")
				return fmt.Errorf("silent for %v", silence)
			}
			s.conn.CloseNow()
			return err
		}
		if isControl(data) {
			p.control(data)
			continue
		}
		p.fromExtension(data)
	}
}

// isControl tells the extension's own messages, whose first key is "type",
// from relayed CDP without decoding a possibly huge CDP message.
func isControl(data []byte) bool { return bytes.HasPrefix(data, []byte(`{"type":`)) }
