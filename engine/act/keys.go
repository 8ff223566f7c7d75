package act

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tabwright/tabwright/engine/errs"
)

// Modifier bits as CDP's Input domain counts them.
const (
	ModAlt     = 1
	ModControl = 2
	ModMeta    = 4
	ModShift   = 8
)

// Key is one physical key on a US layout, in the terms
// Input.dispatchKeyEvent wants.
type Key struct {
	Key      string // DOM KeyboardEvent.key, e.g. "a", "A", "Enter", "ArrowLeft", "Control"
	Code     string // DOM KeyboardEvent.code, e.g. "KeyA", "Enter", "ControlLeft"
	KeyCode  int64  // windowsVirtualKeyCode, e.g. 65, 13
	Text     string // what the key types with at most Shift held; "" for non-printing keys, "\r" for Enter as Chromium sends it
	Location int64  // 0 standard, 1 left, 2 right, 3 numpad
	Shift    bool   // this key value needs Shift held on a US layout ("A", "!", "?")
}

// punctuation lists the US punctuation keys. Chromium reports them with
// the Windows OEM virtual key codes, so pages that read keyCode see what a
// real keyboard would give them.
var punctuation = []struct {
	code           string
	keyCode        int64
	plain, shifted rune
}{
	{"Semicolon", 186, ';', ':'},
	{"Equal", 187, '=', '+'},
	{"Comma", 188, ',', '<'},
	{"Minus", 189, '-', '_'},
	{"Period", 190, '.', '>'},
	{"Slash", 191, '/', '?'},
	{"Backquote", 192, '`', '~'},
	{"BracketLeft", 219, '[', '{'},
	{"Backslash", 220, '\\', '|'},
	{"BracketRight", 221, ']', '}'},
	{"Quote", 222, '\'', '"'},
}

// digitShifted is what Shift makes of Digit0..Digit9 on a US layout.
const digitShifted = ")!@#$%^&*("

// namedKeys are the keys that type nothing (Enter aside); their DOM key and
// code are spelled the same except for the modifiers, which are the left
// ones because a chord names no side.
var namedKeys = []Key{
	{Key: "Enter", Code: "Enter", KeyCode: 13, Text: "\r"},
	{Key: "Tab", Code: "Tab", KeyCode: 9},
	{Key: "Backspace", Code: "Backspace", KeyCode: 8},
	{Key: "Delete", Code: "Delete", KeyCode: 46},
	{Key: "Escape", Code: "Escape", KeyCode: 27},
	{Key: "Insert", Code: "Insert", KeyCode: 45},
	{Key: "Home", Code: "Home", KeyCode: 36},
	{Key: "End", Code: "End", KeyCode: 35},
	{Key: "PageUp", Code: "PageUp", KeyCode: 33},
	{Key: "PageDown", Code: "PageDown", KeyCode: 34},
	{Key: "ArrowLeft", Code: "ArrowLeft", KeyCode: 37},
	{Key: "ArrowUp", Code: "ArrowUp", KeyCode: 38},
	{Key: "ArrowRight", Code: "ArrowRight", KeyCode: 39},
	{Key: "ArrowDown", Code: "ArrowDown", KeyCode: 40},
	{Key: "Shift", Code: "ShiftLeft", KeyCode: 16, Location: 1},
	{Key: "Control", Code: "ControlLeft", KeyCode: 17, Location: 1},
	{Key: "Alt", Code: "AltLeft", KeyCode: 18, Location: 1},
	{Key: "Meta", Code: "MetaLeft", KeyCode: 91, Location: 1},
}

// keyAliases maps the names agents write from habit (other tools, macOS
// and Windows key caps) to the DOM key value they mean.
var keyAliases = map[string]string{
	"ctrl":     "Control",
	"cmd":      "Meta",
	"command":  "Meta",
	"super":    "Meta",
	"option":   "Alt",
	"esc":      "Escape",
	"return":   "Enter",
	"del":      "Delete",
	"up":       "ArrowUp",
	"down":     "ArrowDown",
	"left":     "ArrowLeft",
	"right":    "ArrowRight",
	"spacebar": " ",
}

// modifierBits gives the CDP bit of each modifier key, by DOM key value.
var modifierBits = map[string]int64{
	"Alt":     ModAlt,
	"Control": ModControl,
	"Meta":    ModMeta,
	"Shift":   ModShift,
}

var (
	runeKeys    = map[rune]Key{}   // character → the key that types it
	nameKeys    = map[string]Key{} // lowercased key value, code or alias → key
	shiftedKeys = map[string]Key{} // code → the key Shift makes of it
)

func init() {
	pair := func(code string, keyCode int64, plain, shifted rune) {
		p := Key{Key: string(plain), Code: code, KeyCode: keyCode, Text: string(plain)}
		runeKeys[plain] = p
		// A code names the physical key, so it resolves to the unshifted value.
		nameKeys[strings.ToLower(code)] = p
		if shifted != 0 {
			s := Key{Key: string(shifted), Code: code, KeyCode: keyCode, Text: string(shifted), Shift: true}
			runeKeys[shifted] = s
			shiftedKeys[code] = s
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		upper := c - 'a' + 'A'
		pair("Key"+string(upper), int64(upper), c, upper)
	}
	for i, s := range digitShifted {
		d := rune('0' + i)
		pair("Digit"+string(d), int64(d), d, s)
	}
	for _, p := range punctuation {
		pair(p.code, p.keyCode, p.plain, p.shifted)
	}
	pair("Space", 32, ' ', 0)

	named := append([]Key(nil), namedKeys...)
	for i := 1; i <= 12; i++ {
		f := "F" + strconv.Itoa(i)
		named = append(named, Key{Key: f, Code: f, KeyCode: int64(111 + i)})
	}
	for _, k := range named {
		nameKeys[strings.ToLower(k.Key)] = k
		nameKeys[strings.ToLower(k.Code)] = k
	}
	for alias, name := range keyAliases {
		k, ok := LookupKey(name)
		if !ok {
			panic("act: key alias " + alias + " names unknown key " + name)
		}
		nameKeys[alias] = k
	}
	runeKeys['\n'] = nameKeys["enter"]
	runeKeys['\t'] = nameKeys["tab"]
}

// LookupKey resolves a key name as an agent writes it: a DOM key value
// ("Enter", "ArrowLeft", "F5", "Shift", " "), a single character ("a", "A",
// "!", "/"), a DOM code ("KeyA", "Digit1", "Space") or a common alias
// ("Ctrl", "Cmd", "Command", "Super", "Option", "Esc", "Return", "Del",
// "Up", "Down", "Left", "Right", "Spacebar"). A single character is taken
// exactly, since "a" and "A" are different keys to the page; longer names
// match case-insensitively, since "enter" can only mean Enter.
func LookupKey(name string) (Key, bool) {
	if r, size := utf8.DecodeRuneInString(name); size > 0 && size == len(name) {
		return KeyForRune(r)
	}
	k, ok := nameKeys[strings.ToLower(name)]
	return k, ok
}

// KeyForRune returns the key that types r on a US layout: letters, digits,
// punctuation, space, '\n' (Enter) and '\t' (Tab). For anything else it
// returns ok=false, and the caller inserts the text without key events.
func KeyForRune(r rune) (Key, bool) {
	k, ok := runeKeys[r]
	return k, ok
}

// Chord is a key pressed while modifiers are held, e.g. "Control+Shift+A".
// Modifiers are in the order written and Mask is their CDP bits. Key.Shift
// is not folded into Mask: "A" alone is sent as the key value "A", the way
// Chromium's own automation does, and the dispatcher decides whether to hold
// Shift for it. Chromium types nothing when Control, Alt or Meta is held, so
// the dispatcher should drop Key.Text then.
type Chord struct {
	Modifiers []Key
	Key       Key
	Mask      int64
}

// chordHint is the hint every chord error carries, so an agent that got one
// wrong sees the accepted shapes.
const chordHint = `write a key such as "Enter", "Tab", "ArrowLeft", "F5", "a" or "/", ` +
	`optionally after modifiers joined by "+": "Control+A", "Shift+Tab", "Meta+Shift+z", "Control++"; ` +
	`modifiers are Alt (Option), Control (Ctrl), Meta (Cmd), Shift`

// ParseChord parses a key chord such as "Control+A", "Shift+Tab", "Enter",
// "Meta+Shift+z", "Control++" (the plus key) or " " (space). Every part
// before the last must be a modifier (Alt, Control, Meta, Shift or an alias)
// named at most once; the last part is the key, which may itself be a
// modifier ("Shift" presses Shift alone). With Shift held, a printable key
// becomes its shifted value ("Shift+a" is "A"), as the page would see it.
// Spaces around a part are ignored, so "Control + A" works and " " is Space.
// Errors are invalid_input at path.
func ParseChord(path, s string) (Chord, error) {
	fail := func(format string, args ...any) (Chord, error) {
		return Chord{}, errs.Input(path, format, args...).WithHint(chordHint)
	}
	if s == "" {
		return fail("key chord is empty")
	}

	// The plus key can only come last, so a trailing "++" (or "+" alone)
	// is the separator followed by the plus key.
	var mods []string
	last := s
	switch {
	case s == "+":
	case strings.HasSuffix(s, "++"):
		mods, last = strings.Split(s[:len(s)-2], "+"), "+"
	default:
		if i := strings.LastIndexByte(s, '+'); i >= 0 {
			mods, last = strings.Split(s[:i], "+"), s[i+1:]
		}
	}
	if last == "" {
		return fail("key chord %q has no key after the last \"+\"", s)
	}

	var c Chord
	for _, part := range mods {
		name := trimPart(part)
		if name == "" {
			return fail("key chord %q has an empty part between \"+\" signs", s)
		}
		k, ok := LookupKey(name)
		if !ok {
			return fail("unknown modifier %q in key chord %q", name, s)
		}
		bit, ok := modifierBits[k.Key]
		if !ok {
			return fail("%q in key chord %q is not a modifier; only the last part may be another key", name, s)
		}
		if c.Mask&bit != 0 {
			return fail("modifier %q appears more than once in key chord %q", k.Key, s)
		}
		c.Modifiers = append(c.Modifiers, k)
		c.Mask |= bit
	}

	name := trimPart(last)
	k, ok := LookupKey(name)
	if !ok {
		return fail("unknown key %q in key chord %q", name, s)
	}
	if c.Mask&modifierBits[k.Key] != 0 {
		return fail("modifier %q appears more than once in key chord %q", k.Key, s)
	}
	if c.Mask&ModShift != 0 && !k.Shift {
		if shifted, ok := shiftedKeys[k.Code]; ok {
			k = shifted
		}
	}
	c.Key = k
	return c, nil
}

// trimPart drops spaces around a chord part unless the part is nothing
// but whitespace, which must stay as written so " " still means Space.
func trimPart(p string) string {
	if t := strings.TrimSpace(p); t != "" {
		return t
	}
	return p
}
