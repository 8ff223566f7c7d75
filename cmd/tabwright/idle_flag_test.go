package main

import (
	"testing"
	"time"
)

// --idle-timeout: 1 h by default headless; off by default headful (the
// user's window), unless given; 0 and below never close.
func TestIdleTimeoutFlag(t *testing.T) {
	for _, c := range []struct {
		args    []string
		headful bool
		want    time.Duration
	}{
		{nil, false, time.Hour},
		{nil, true, 0},
		{[]string{"--idle-timeout", "90s"}, true, 90 * time.Second},
		{[]string{"--idle-timeout", "5m"}, false, 5 * time.Minute},
		{[]string{"--idle-timeout", "0"}, false, 0},
		{[]string{"--idle-timeout", "-1s"}, false, 0},
	} {
		fs := newFlags("mcp")
		d := fs.Duration("idle-timeout", defaultIdleTimeout, "")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if got := idleFor(fs, *d, c.headful); got != c.want {
			t.Errorf("%v headful=%v: %v, want %v", c.args, c.headful, got, c.want)
		}
	}
}
