package act

import (
	"strings"
	"testing"

	"github.com/tabwright/tabwright/engine/errs"
)

func TestLookupKeyNamed(t *testing.T) {
	tests := []struct {
		name string
		want Key
	}{
		{"Enter", Key{Key: "Enter", Code: "Enter", KeyCode: 13, Text: "\r"}},
		{"Tab", Key{Key: "Tab", Code: "Tab", KeyCode: 9}},
		{"Backspace", Key{Key: "Backspace", Code: "Backspace", KeyCode: 8}},
		{"Delete", Key{Key: "Delete", Code: "Delete", KeyCode: 46}},
		{"Escape", Key{Key: "Escape", Code: "Escape", KeyCode: 27}},
		{"Insert", Key{Key: "Insert", Code: "Insert", KeyCode: 45}},
		{"Home", Key{Key: "Home", Code: "Home", KeyCode: 36}},
		{"End", Key{Key: "End", Code: "End", KeyCode: 35}},
		{"PageUp", Key{Key: "PageUp", Code: "PageUp", KeyCode: 33}},
		{"PageDown", Key{Key: "PageDown", Code: "PageDown", KeyCode: 34}},
		{"ArrowLeft", Key{Key: "ArrowLeft", Code: "ArrowLeft", KeyCode: 37}},
		{"ArrowUp", Key{Key: "ArrowUp", Code: "ArrowUp", KeyCode: 38}},
		{"ArrowRight", Key{Key: "ArrowRight", Code: "ArrowRight", KeyCode: 39}},
		{"ArrowDown", Key{Key: "ArrowDown", Code: "ArrowDown", KeyCode: 40}},
		{"F1", Key{Key: "F1", Code: "F1", KeyCode: 112}},
		{"F5", Key{Key: "F5", Code: "F5", KeyCode: 116}},
		{"F12", Key{Key: "F12", Code: "F12", KeyCode: 123}},
		{"Shift", Key{Key: "Shift", Code: "ShiftLeft", KeyCode: 16, Location: 1}},
		{"Control", Key{Key: "Control", Code: "ControlLeft", KeyCode: 17, Location: 1}},
		{"Alt", Key{Key: "Alt", Code: "AltLeft", KeyCode: 18, Location: 1}},
		{"Meta", Key{Key: "Meta", Code: "MetaLeft", KeyCode: 91, Location: 1}},
		{" ", Key{Key: " ", Code: "Space", KeyCode: 32, Text: " "}},
		{"Space", Key{Key: " ", Code: "Space", KeyCode: 32, Text: " "}},
		// Multi-character names ignore case.
		{"enter", Key{Key: "Enter", Code: "Enter", KeyCode: 13, Text: "\r"}},
		{"ARROWDOWN", Key{Key: "ArrowDown", Code: "ArrowDown", KeyCode: 40}},
		{"f3", Key{Key: "F3", Code: "F3", KeyCode: 114}},
		{"pageup", Key{Key: "PageUp", Code: "PageUp", KeyCode: 33}},
	}
	for _, tt := range tests {
		got, ok := LookupKey(tt.name)
		if !ok || got != tt.want {
			t.Errorf("LookupKey(%q) = %+v, %v; want %+v, true", tt.name, got, ok, tt.want)
		}
	}
}

func TestLookupKeyFunctionKeys(t *testing.T) {
	for i, name := range []string{"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12"} {
		k, ok := LookupKey(name)
		if !ok || k.Key != name || k.Code != name || k.KeyCode != int64(112+i) || k.Text != "" {
			t.Errorf("LookupKey(%q) = %+v, %v", name, k, ok)
		}
	}
}

func TestLookupKeyPrintable(t *testing.T) {
	tests := []struct {
		name string
		want Key
	}{
		{"a", Key{Key: "a", Code: "KeyA", KeyCode: 65, Text: "a"}},
		{"A", Key{Key: "A", Code: "KeyA", KeyCode: 65, Text: "A", Shift: true}},
		{"z", Key{Key: "z", Code: "KeyZ", KeyCode: 90, Text: "z"}},
		{"Z", Key{Key: "Z", Code: "KeyZ", KeyCode: 90, Text: "Z", Shift: true}},
		{"0", Key{Key: "0", Code: "Digit0", KeyCode: 48, Text: "0"}},
		{"1", Key{Key: "1", Code: "Digit1", KeyCode: 49, Text: "1"}},
		{"9", Key{Key: "9", Code: "Digit9", KeyCode: 57, Text: "9"}},
		{"!", Key{Key: "!", Code: "Digit1", KeyCode: 49, Text: "!", Shift: true}},
		{"@", Key{Key: "@", Code: "Digit2", KeyCode: 50, Text: "@", Shift: true}},
		{")", Key{Key: ")", Code: "Digit0", KeyCode: 48, Text: ")", Shift: true}},
		{"(", Key{Key: "(", Code: "Digit9", KeyCode: 57, Text: "(", Shift: true}},
		{";", Key{Key: ";", Code: "Semicolon", KeyCode: 186, Text: ";"}},
		{":", Key{Key: ":", Code: "Semicolon", KeyCode: 186, Text: ":", Shift: true}},
		{"=", Key{Key: "=", Code: "Equal", KeyCode: 187, Text: "="}},
		{"+", Key{Key: "+", Code: "Equal", KeyCode: 187, Text: "+", Shift: true}},
		{",", Key{Key: ",", Code: "Comma", KeyCode: 188, Text: ","}},
		{"<", Key{Key: "<", Code: "Comma", KeyCode: 188, Text: "<", Shift: true}},
		{"-", Key{Key: "-", Code: "Minus", KeyCode: 189, Text: "-"}},
		{"_", Key{Key: "_", Code: "Minus", KeyCode: 189, Text: "_", Shift: true}},
		{".", Key{Key: ".", Code: "Period", KeyCode: 190, Text: "."}},
		{">", Key{Key: ">", Code: "Period", KeyCode: 190, Text: ">", Shift: true}},
		{"/", Key{Key: "/", Code: "Slash", KeyCode: 191, Text: "/"}},
		{"?", Key{Key: "?", Code: "Slash", KeyCode: 191, Text: "?", Shift: true}},
		{"`", Key{Key: "`", Code: "Backquote", KeyCode: 192, Text: "`"}},
		{"~", Key{Key: "~", Code: "Backquote", KeyCode: 192, Text: "~", Shift: true}},
		{"[", Key{Key: "[", Code: "BracketLeft", KeyCode: 219, Text: "["}},
		{"{", Key{Key: "{", Code: "BracketLeft", KeyCode: 219, Text: "{", Shift: true}},
		{`\`, Key{Key: `\`, Code: "Backslash", KeyCode: 220, Text: `\`}},
		{"|", Key{Key: "|", Code: "Backslash", KeyCode: 220, Text: "|", Shift: true}},
		{"]", Key{Key: "]", Code: "BracketRight", KeyCode: 221, Text: "]"}},
		{"}", Key{Key: "}", Code: "BracketRight", KeyCode: 221, Text: "}", Shift: true}},
		{"'", Key{Key: "'", Code: "Quote", KeyCode: 222, Text: "'"}},
		{`"`, Key{Key: `"`, Code: "Quote", KeyCode: 222, Text: `"`, Shift: true}},
	}
	for _, tt := range tests {
		got, ok := LookupKey(tt.name)
		if !ok || got != tt.want {
			t.Errorf("LookupKey(%q) = %+v, %v; want %+v, true", tt.name, got, ok, tt.want)
		}
	}
}

func TestLookupKeyCodes(t *testing.T) {
	tests := []struct{ name, key, code string }{
		{"KeyA", "a", "KeyA"},
		{"KeyZ", "z", "KeyZ"},
		{"keyq", "q", "KeyQ"},
		{"Digit0", "0", "Digit0"},
		{"Digit1", "1", "Digit1"},
		{"Semicolon", ";", "Semicolon"},
		{"Equal", "=", "Equal"},
		{"Comma", ",", "Comma"},
		{"Minus", "-", "Minus"},
		{"Period", ".", "Period"},
		{"Slash", "/", "Slash"},
		{"Backquote", "`", "Backquote"},
		{"BracketLeft", "[", "BracketLeft"},
		{"Backslash", `\`, "Backslash"},
		{"BracketRight", "]", "BracketRight"},
		{"Quote", "'", "Quote"},
		{"Space", " ", "Space"},
		{"ShiftLeft", "Shift", "ShiftLeft"},
		{"ControlLeft", "Control", "ControlLeft"},
		{"AltLeft", "Alt", "AltLeft"},
		{"MetaLeft", "Meta", "MetaLeft"},
	}
	for _, tt := range tests {
		got, ok := LookupKey(tt.name)
		if !ok || got.Key != tt.key || got.Code != tt.code || got.Shift {
			t.Errorf("LookupKey(%q) = %+v, %v; want key %q code %q unshifted", tt.name, got, ok, tt.key, tt.code)
		}
	}
}

func TestLookupKeyAliases(t *testing.T) {
	tests := []struct{ alias, key string }{
		{"Ctrl", "Control"},
		{"Cmd", "Meta"},
		{"Command", "Meta"},
		{"Super", "Meta"},
		{"Option", "Alt"},
		{"Esc", "Escape"},
		{"Return", "Enter"},
		{"Del", "Delete"},
		{"Up", "ArrowUp"},
		{"Down", "ArrowDown"},
		{"Left", "ArrowLeft"},
		{"Right", "ArrowRight"},
		{"Spacebar", " "},
	}
	for _, tt := range tests {
		want, ok := LookupKey(tt.key)
		if !ok {
			t.Fatalf("LookupKey(%q) failed", tt.key)
		}
		for _, name := range []string{tt.alias, strings.ToLower(tt.alias), strings.ToUpper(tt.alias)} {
			got, ok := LookupKey(name)
			if !ok || got != want {
				t.Errorf("LookupKey(%q) = %+v, %v; want %+v", name, got, ok, want)
			}
		}
	}
}

func TestLookupKeyCase(t *testing.T) {
	lower, ok1 := LookupKey("a")
	upper, ok2 := LookupKey("A")
	if !ok1 || !ok2 {
		t.Fatal("a or A not found")
	}
	if lower.Code != "KeyA" || upper.Code != "KeyA" {
		t.Errorf("codes %q, %q; want KeyA for both", lower.Code, upper.Code)
	}
	if lower.KeyCode != 65 || upper.KeyCode != 65 {
		t.Errorf("key codes %d, %d; want 65 for both", lower.KeyCode, upper.KeyCode)
	}
	if lower.Shift || !upper.Shift {
		t.Errorf("Shift a=%v A=%v; want false, true", lower.Shift, upper.Shift)
	}
	if lower.Key != "a" || upper.Key != "A" || lower.Text != "a" || upper.Text != "A" {
		t.Errorf("a = %+v, A = %+v", lower, upper)
	}
}

func TestLookupKeyUnknown(t *testing.T) {
	for _, name := range []string{"", "Foo", "Key", "KeyAA", "F0", "F13", "aa", "é", "\x00", "\xff", "\r", "Control ", "Arrow", "Digit10", "ShiftRight"} {
		if k, ok := LookupKey(name); ok {
			t.Errorf("LookupKey(%q) = %+v, true; want false", name, k)
		}
	}
}

func TestKeyForRuneASCII(t *testing.T) {
	const shifted = `~!@#$%^&*()_+{}|:"<>?`
	codes := map[string][]rune{} // code → the runes that share it
	for r := rune(0x20); r <= 0x7E; r++ {
		k, ok := KeyForRune(r)
		if !ok {
			t.Errorf("KeyForRune(%q) not found", r)
			continue
		}
		if k.Key != string(r) || k.Text != string(r) || k.Code == "" || k.KeyCode == 0 || k.Location != 0 {
			t.Errorf("KeyForRune(%q) = %+v", r, k)
		}
		wantShift := r >= 'A' && r <= 'Z' || strings.ContainsRune(shifted, r)
		if k.Shift != wantShift {
			t.Errorf("KeyForRune(%q).Shift = %v; want %v", r, k.Shift, wantShift)
		}
		switch {
		case r >= 'a' && r <= 'z':
			if k.KeyCode != int64(r-'a'+'A') || k.Code != "Key"+string(r-'a'+'A') {
				t.Errorf("KeyForRune(%q) = %+v; want uppercase ASCII key code", r, k)
			}
		case r >= 'A' && r <= 'Z':
			if k.KeyCode != int64(r) || k.Code != "Key"+string(r) {
				t.Errorf("KeyForRune(%q) = %+v", r, k)
			}
		case r >= '0' && r <= '9':
			if k.KeyCode != int64(r) || k.Code != "Digit"+string(r) {
				t.Errorf("KeyForRune(%q) = %+v", r, k)
			}
		}
		codes[k.Code] = append(codes[k.Code], r)
		// The code names the same physical key whatever Shift does.
		if byCode, ok := LookupKey(k.Code); !ok || byCode.KeyCode != k.KeyCode || byCode.Code != k.Code {
			t.Errorf("LookupKey(%q) = %+v, %v; want key code %d", k.Code, byCode, ok, k.KeyCode)
		}
	}
	// 26 letters + 10 digits + 11 punctuation keys + space: every key but
	// Space types two characters.
	if len(codes) != 48 {
		t.Errorf("%d distinct codes; want 48", len(codes))
	}
	for code, rs := range codes {
		want := 2
		if code == "Space" {
			want = 1
		}
		if len(rs) != want {
			t.Errorf("code %s types %q; want %d characters", code, string(rs), want)
		}
	}
}

func TestKeyForRuneControl(t *testing.T) {
	if k, ok := KeyForRune('\n'); !ok || k.Key != "Enter" || k.KeyCode != 13 || k.Text != "\r" {
		t.Errorf(`KeyForRune('\n') = %+v, %v; want Enter`, k, ok)
	}
	if k, ok := KeyForRune('\t'); !ok || k.Key != "Tab" || k.KeyCode != 9 || k.Text != "" {
		t.Errorf(`KeyForRune('\t') = %+v, %v; want Tab`, k, ok)
	}
	for _, r := range []rune{'\r', 0, 0x7F, 0x1F, 'é', '€', '\u00a0', 0xFFFD, -1} {
		if k, ok := KeyForRune(r); ok {
			t.Errorf("KeyForRune(%q) = %+v, true; want false", r, k)
		}
	}
}

func TestParseChord(t *testing.T) {
	tests := []struct {
		in   string
		mods []string // DOM key values of the modifiers, in order
		key  string
		code string
		mask int64
	}{
		{"Enter", nil, "Enter", "Enter", 0},
		{"a", nil, "a", "KeyA", 0},
		{"A", nil, "A", "KeyA", 0},
		{" ", nil, " ", "Space", 0},
		{"Space", nil, " ", "Space", 0},
		{"+", nil, "+", "Equal", 0},
		{"Shift", nil, "Shift", "ShiftLeft", 0},
		{"Control", nil, "Control", "ControlLeft", 0},
		{"\n", nil, "Enter", "Enter", 0},
		{"Control+A", []string{"Control"}, "A", "KeyA", ModControl},
		{"Control+a", []string{"Control"}, "a", "KeyA", ModControl},
		{"Shift+Tab", []string{"Shift"}, "Tab", "Tab", ModShift},
		{"Meta+Shift+z", []string{"Meta", "Shift"}, "Z", "KeyZ", ModMeta | ModShift},
		{"Control+Shift+A", []string{"Control", "Shift"}, "A", "KeyA", ModControl | ModShift},
		{"Shift+1", []string{"Shift"}, "!", "Digit1", ModShift},
		{"Shift+/", []string{"Shift"}, "?", "Slash", ModShift},
		{"Shift+?", []string{"Shift"}, "?", "Slash", ModShift},
		{"Shift+Space", []string{"Shift"}, " ", "Space", ModShift},
		{"Shift+KeyA", []string{"Shift"}, "A", "KeyA", ModShift},
		{"Control++", []string{"Control"}, "+", "Equal", ModControl},
		{"Control+Shift++", []string{"Control", "Shift"}, "+", "Equal", ModControl | ModShift},
		{"Control+ ", []string{"Control"}, " ", "Space", ModControl},
		{"Control+-", []string{"Control"}, "-", "Minus", ModControl},
		{"Alt+Control+Meta+Shift+F5", []string{"Alt", "Control", "Meta", "Shift"}, "F5", "F5", ModAlt | ModControl | ModMeta | ModShift},
		{"Ctrl+Cmd+Option+Delete", []string{"Control", "Meta", "Alt"}, "Delete", "Delete", ModControl | ModMeta | ModAlt},
		{"ctrl+c", []string{"Control"}, "c", "KeyC", ModControl},
		{"Control + A", []string{"Control"}, "A", "KeyA", ModControl},
		{"Control+Shift", []string{"Control"}, "Shift", "ShiftLeft", ModControl},
		{"Alt+ArrowLeft", []string{"Alt"}, "ArrowLeft", "ArrowLeft", ModAlt},
		{"Meta+Left", []string{"Meta"}, "ArrowLeft", "ArrowLeft", ModMeta},
		{"ShiftLeft+Esc", []string{"Shift"}, "Escape", "Escape", ModShift},
	}
	for _, tt := range tests {
		c, err := ParseChord("key", tt.in)
		if err != nil {
			t.Errorf("ParseChord(%q): %v", tt.in, err)
			continue
		}
		var mods []string
		for _, m := range c.Modifiers {
			mods = append(mods, m.Key)
		}
		if strings.Join(mods, ",") != strings.Join(tt.mods, ",") || c.Key.Key != tt.key || c.Key.Code != tt.code || c.Mask != tt.mask {
			t.Errorf("ParseChord(%q) = mods %v key %q code %q mask %d; want mods %v key %q code %q mask %d",
				tt.in, mods, c.Key.Key, c.Key.Code, c.Mask, tt.mods, tt.key, tt.code, tt.mask)
		}
	}
}

func TestParseChordShiftedText(t *testing.T) {
	c, err := ParseChord("key", "Shift+a")
	if err != nil {
		t.Fatal(err)
	}
	want := Key{Key: "A", Code: "KeyA", KeyCode: 65, Text: "A", Shift: true}
	if c.Key != want {
		t.Errorf("Shift+a key = %+v; want %+v", c.Key, want)
	}
	if len(c.Modifiers) != 1 || c.Modifiers[0] != (Key{Key: "Shift", Code: "ShiftLeft", KeyCode: 16, Location: 1}) {
		t.Errorf("Shift+a modifiers = %+v", c.Modifiers)
	}
}

func TestParseChordErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string // a fragment of the message
	}{
		{"", "key chord is empty"},
		{"Control+", `"Control+" has no key after the last "+"`},
		{"Foo", `unknown key "Foo"`},
		{"Control+Foo", `unknown key "Foo" in key chord "Control+Foo"`},
		{"Foo+A", `unknown modifier "Foo"`},
		{"Control+Control+A", `modifier "Control" appears more than once`},
		{"Ctrl+Control+A", `modifier "Control" appears more than once`},
		{"Shift+Shift", `modifier "Shift" appears more than once`},
		{"A+B", `"A" in key chord "A+B" is not a modifier`},
		{"Enter+A", `"Enter" in key chord "Enter+A" is not a modifier`},
		{"Control++A", `empty part`},
		{"++", `empty part`},
		{"+A", `empty part`},
		{"Control+  +A", `unknown modifier "  "`},
		{"Control+é", `unknown key "é"`},
		{"Control+\r", `unknown key "\r"`},
	}
	for _, tt := range tests {
		_, err := ParseChord("steps[2].key", tt.in)
		if err == nil {
			t.Errorf("ParseChord(%q) succeeded; want error", tt.in)
			continue
		}
		e, ok := err.(*errs.Error)
		if !ok {
			t.Errorf("ParseChord(%q) error %T; want *errs.Error", tt.in, err)
			continue
		}
		if e.Code != errs.InvalidInput || e.Path != "steps[2].key" {
			t.Errorf("ParseChord(%q) code %q path %q", tt.in, e.Code, e.Path)
		}
		if !strings.Contains(e.Message, tt.want) {
			t.Errorf("ParseChord(%q) message %q; want it to contain %q", tt.in, e.Message, tt.want)
		}
		if !strings.Contains(e.Hint, `"Control+A"`) || !strings.Contains(e.Hint, `"Control++"`) {
			t.Errorf("ParseChord(%q) hint %q lacks examples", tt.in, e.Hint)
		}
	}
}

func FuzzParseChord(f *testing.F) {
	for _, s := range []string{"", "+", "++", "+++", "Control++", "Control+", "Control+A", "Meta+Shift+z",
		" ", " + ", "Shift", "A+B", "Control+Control+A", "ctrl+shift+KeyA", "\xff+\x00", "Alt+Control+Meta+Shift+F12"} {
		f.Add("key", s)
	}
	f.Fuzz(func(t *testing.T, path, s string) {
		c, err := ParseChord(path, s)
		if err != nil {
			e, ok := err.(*errs.Error)
			if !ok {
				t.Fatalf("ParseChord(%q) error %T %v; want *errs.Error", s, err, err)
			}
			if e.Code != errs.InvalidInput || e.Path != path || e.Message == "" {
				t.Fatalf("ParseChord(%q) = %+v; want invalid_input at %q", s, e, path)
			}
			return
		}
		if c.Key.Key == "" || c.Key.Code == "" || c.Key.KeyCode == 0 {
			t.Fatalf("ParseChord(%q) key %+v", s, c.Key)
		}
		var mask int64
		for _, m := range c.Modifiers {
			bit := modifierBits[m.Key]
			if bit == 0 || mask&bit != 0 {
				t.Fatalf("ParseChord(%q) modifiers %+v", s, c.Modifiers)
			}
			mask |= bit
		}
		if mask != c.Mask || mask&modifierBits[c.Key.Key] != 0 {
			t.Fatalf("ParseChord(%q) mask %d, modifiers %+v, key %q", s, c.Mask, c.Modifiers, c.Key.Key)
		}
	})
}
