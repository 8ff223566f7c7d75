package main

import (
	"io"
	"strconv"
)

// What the CLI prints often comes from a task, a page or a model: a
// failing check's message, a command's output, a page's title and text.
// Printed raw, their control characters reach the user's terminal, where
// an escape sequence sets the window title, writes the clipboard (OSC 52),
// moves the cursor or clears the screen. Every command but mcp (whose
// stdout is JSON-RPC for a program) writes through terminalSafe, which
// shows each control character as visible text instead: ^[ for ESC, ^M
// for a carriage return, <9b> for a C1 control. Newlines and tabs pass.

type terminalSafe struct {
	w       io.Writer
	pending bool // the last write ended in 0xC2, the first byte of a C1 control's UTF-8
}

func newTerminalSafe(w io.Writer) io.Writer { return &terminalSafe{w: w} }

func (t *terminalSafe) Write(p []byte) (int, error) {
	out := make([]byte, 0, len(p)+8)
	i := 0
	if t.pending {
		t.pending = false
		if len(p) > 0 && p[0] >= 0x80 && p[0] <= 0x9f {
			out = append(out, c1(p[0])...)
			i = 1
		} else {
			out = append(out, 0xC2)
		}
	}
	for ; i < len(p); i++ {
		b := p[i]
		switch {
		case b == '\n' || b == '\t':
			out = append(out, b)
		case b < 0x20:
			out = append(out, '^', b+'@')
		case b == 0x7f:
			out = append(out, '^', '?')
		case b == 0xC2 && i+1 == len(p):
			t.pending = true
		case b == 0xC2 && p[i+1] >= 0x80 && p[i+1] <= 0x9f:
			out = append(out, c1(p[i+1])...)
			i++
		default:
			out = append(out, b)
		}
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// c1 writes a C1 control (U+0080 to U+009F; 0x9b is a CSI some terminals
// obey) as visible text.
func c1(b byte) []byte {
	return []byte("<" + strconv.FormatUint(uint64(b), 16) + ">")
}
