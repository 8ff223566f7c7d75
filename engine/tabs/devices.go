package tabs

import (
	"sort"
	"strings"
)

// Device is a phone, tablet or desktop a tab can pretend to be.
type Device struct {
	Screen    Screen
	UserAgent string
}

// The user agents of the devices below, shared by several.
const (
	uaIOS12    = "Mozilla/5.0 (iPhone; CPU iPhone OS 12_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.4 Mobile/15E148 Safari/604.1"
	uaIOS14    = "Mozilla/5.0 (iPhone; CPU iPhone OS 14_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.4 Mobile/15E148 Safari/604.1"
	uaIOS15    = "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.4 Mobile/15E148 Safari/604.1"
	uaIPad     = "Mozilla/5.0 (iPad; CPU OS 12_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.4 Mobile/15E148 Safari/604.1"
	uaIPhoneSE = "Mozilla/5.0 (iPhone; CPU iPhone OS 10_3_1 like Mac OS X) AppleWebKit/603.1.30 (KHTML, like Gecko) Version/16.4 Mobile/14E304 Safari/602.1"
	uaDesktop  = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/113.0.5672.53 Safari/537.36"
)

// android is the user agent of an Android phone (or tablet, without
// "Mobile") running Chrome 113.
func android(model string, mobile bool) string {
	m := " Mobile"
	if !mobile {
		m = ""
	}
	return "Mozilla/5.0 (Linux; " + model + ") AppleWebKit/537.36 (KHTML, like Gecko) Chrome/113.0.5672.53" + m + " Safari/537.36"
}

// devices are the common phones, tablets and desktops. The figures are
// facts taken from Playwright's device descriptors (deviceDescriptorsSource
// .json, 2023 edition): CSS viewport, device pixel ratio and user agent.
// Each also has a "<name> landscape" (LookupDevice).
var devices = map[string]Device{
	"iPhone SE":            {phone(320, 568, 2), uaIPhoneSE},
	"iPhone 11":            {phone(414, 715, 2), uaIOS12},
	"iPhone 12":            {phone(390, 664, 3), uaIOS14},
	"iPhone 12 Pro Max":    {phone(428, 746, 3), uaIOS14},
	"iPhone 13":            {phone(390, 664, 3), uaIOS15},
	"iPhone 13 Mini":       {phone(375, 629, 3), uaIOS15},
	"iPhone 13 Pro Max":    {phone(428, 746, 3), uaIOS15},
	"iPad Mini":            {phone(768, 1024, 2), uaIPad},
	"iPad Pro 11":          {phone(834, 1194, 2), uaIPad},
	"Pixel 5":              {phone(393, 727, 2.75), android("Android 11; Pixel 5", true)},
	"Pixel 4":              {phone(353, 745, 3), android("Android 10; Pixel 4", true)},
	"Galaxy S8":            {phone(360, 740, 3), android("Android 7.0; SM-G950U Build/NRD90M", true)},
	"Galaxy S9+":           {phone(320, 658, 4.5), android("Android 8.0.0; SM-G965U Build/R16NW", true)},
	"Galaxy Tab S4":        {phone(712, 1138, 2.25), android("Android 8.1.0; SM-T837A", false)},
	"Nexus 5X":             {phone(412, 732, 2.625), android("Android 8.0.0; Nexus 5X Build/OPR4.170623.006", true)},
	"Desktop Chrome":       {Screen{Width: 1280, Height: 720, Scale: 1}, uaDesktop},
	"Desktop Chrome HiDPI": {Screen{Width: 1280, Height: 720, Scale: 2}, uaDesktop},
}

// phone is the screen of a touch device held upright.
func phone(w, h int, scale float64) Screen {
	return Screen{Width: w, Height: h, Scale: scale, Mobile: true, Touch: true}
}

// LookupDevice finds a device by name, case and spaces aside; "<name>
// landscape" turns it sideways, width and height swapped (a real phone's
// browser bars make its landscape viewport a little smaller).
func LookupDevice(name string) (Device, bool) {
	key := normalDevice(name)
	base, sideways := strings.CutSuffix(key, " landscape")
	for n, d := range devices {
		if normalDevice(n) != base {
			continue
		}
		if sideways {
			d.Screen.Width, d.Screen.Height = d.Screen.Height, d.Screen.Width
		}
		return d, true
	}
	return Device{}, false
}

func normalDevice(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// DeviceNames are the devices LookupDevice knows upright, sorted.
func DeviceNames() []string {
	names := make([]string, 0, len(devices))
	for n := range devices {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
