package hub

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/tabwright/tabwright/engine/cdp"
	"github.com/tabwright/tabwright/engine/errs"
)

// Reading and rewriting the ids, sessions and methods of relayed messages
// without decoding them whole.

// refusalReply answers a command with one of our coded errors, which the
// engine's connection passes on as it is (cdp.RelayErrorPrefix).
func refusalReply(id int64, sid string, e *errs.Error) []byte {
	coded, _ := json.Marshal(e)
	out := map[string]any{"id": id, "error": map[string]any{"code": -32000, "message": e.Message, "data": cdp.RelayErrorPrefix + string(coded)}}
	if sid != "" {
		out["sessionId"] = sid
	}
	data, _ := json.Marshal(out)
	return data
}

// withID returns the message with its id replaced; both the engine and the
// extension write "id" first.
func withID(data []byte, id int64) []byte {
	rest, ok := bytes.CutPrefix(data, []byte(`{"id":`))
	if ok {
		if end := bytes.IndexAny(rest, ",}"); end > 0 {
			return bytes.Join([][]byte{[]byte(`{"id":`), strconv.AppendInt(nil, id, 10), rest[end:]}, nil)
		}
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return data
	}
	m["id"], _ = json.Marshal(id)
	out, _ := json.Marshal(m)
	return out
}

// eventHead reads the method and session id of an event the extension
// wrote as {"method":…,"sessionId":…,"params":…} (session optional).
func eventHead(data []byte) (method, sid string, ok bool) {
	rest, found := bytes.CutPrefix(data, []byte(`{"method":"`))
	if !found {
		return "", "", false
	}
	q := bytes.IndexByte(rest, '"')
	if q < 0 {
		return "", "", false
	}
	method, rest = string(rest[:q]), rest[q+1:]
	if s, found := bytes.CutPrefix(rest, []byte(`,"sessionId":"`)); found {
		q := bytes.IndexByte(s, '"')
		if q < 0 {
			return "", "", false
		}
		return method, string(s[:q]), true
	}
	if !bytes.HasPrefix(rest, []byte(`,"params":`)) && !bytes.HasPrefix(rest, []byte(`}`)) {
		return "", "", false
	}
	return method, "", true
}

// commandID reads the id and session id of a command the engine wrote. The
// engine writes "id" first and "sessionId" second, so this never scans a
// big params object; anything else is decoded in full.
func commandID(data []byte) (int64, string) {
	rest, ok := bytes.CutPrefix(data, []byte(`{"id":`))
	if !ok {
		return decodeIDs(data)
	}
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return decodeIDs(data)
	}
	id, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	if err != nil {
		return decodeIDs(data)
	}
	rest = rest[end:]
	if s, ok := bytes.CutPrefix(rest, []byte(`,"sessionId":"`)); ok {
		if q := bytes.IndexByte(s, '"'); q >= 0 {
			return id, string(s[:q])
		}
		return decodeIDs(data)
	}
	return id, ""
}

// replyID reads the id of a reply from the extension, which writes "id"
// first; events carry none.
func replyID(data []byte) (int64, string) {
	if !bytes.HasPrefix(data, []byte(`{"id":`)) {
		return 0, ""
	}
	return commandID(data)
}

func decodeIDs(data []byte) (int64, string) {
	var m struct {
		ID        int64  `json:"id"`
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(data, &m)
	return m.ID, m.SessionID
}
