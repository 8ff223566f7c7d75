package agent

// KeyForTest is the key an agent resolved (tests only).
func KeyForTest(a Agent) string {
	if m, ok := a.(*modelAgent); ok {
		return m.cc.key
	}
	return ""
}
