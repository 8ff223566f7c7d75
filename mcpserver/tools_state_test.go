package mcpserver

import "reflect"

// The input structs and schema examples of the screenshot, logs, evaluate,
// pdf, emulation and storage tools (merged into schema_test.go's tables).

// allTools is every tool the server can list, gated ones included: what
// tools.json holds.
// defaultServer is a server with the default options, whose definitions
// tools.json lists.
func defaultServer() *server { return &server{actionMS: int(DefaultActionTimeout.Milliseconds())} }

func allTools() []tool { return defaultServer().tools() }

func stateInputTypes() map[string]reflect.Type {
	return map[string]reflect.Type{
		"browser_select_option": reflect.TypeFor[multiInput](),
	}
}

type toolExamples = struct {
	valid   []string
	invalid []string
}

func stateExamples() map[string]toolExamples {
	return map[string]toolExamples{
		"browser_screenshot": {
			valid: []string{`{"tab_handle":"h"}`, `{"tab_handle":"h","full_page":true,"format":"jpeg","quality":50,"max_long_side":800,"max_megapixels":0.5,"save_path":"/tmp/x.jpg","groundings":true}`,
				`{"tab_handle":"h","selector":"#a","frame":{"path":["iframe"]}}`, `{"tab_handle":"h","ref":"e1"}`},
			invalid: []string{`{}`, `{"tab_handle":"h","format":"gif"}`, `{"tab_handle":"h","quality":0}`, `{"tab_handle":"h","max_megapixels":50}`, `{"tab_handle":"h","extra":1}`},
		},
		"browser_logs": {
			valid: []string{`{"tab_handle":"h"}`, `{"tab_handle":"h","after_seq":12,"kind":["console","network"],"level":"warning","url_contains":"/api","limit":1000,"headers":true,"bodies":true,"max_body_chars":100,"timeout_ms":1000}`},
			invalid: []string{`{}`, `{"tab_handle":"h","kind":[]}`, `{"tab_handle":"h","kind":["dom"]}`, `{"tab_handle":"h","kind":["error","error"]}`, `{"tab_handle":"h","level":"fatal"}`,
				`{"tab_handle":"h","limit":0}`, `{"tab_handle":"h","after_seq":-1}`},
		},
		"browser_evaluate": {
			valid: []string{`{"tab_handle":"h","expression":"document.title"}`, `{"tab_handle":"h","cursor":"ev1:100","max_chars":100}`,
				`{"tab_handle":"h","expression":"() => 1","result_type":"element","timeout_ms":100}`, `{"tab_handle":"h","expression":"1","frame":{"url":"https://a.test/"}}`},
			invalid: []string{`{}`, `{"tab_handle":"h","expression":""}`, `{"tab_handle":"h","expression":"1","result_type":"node"}`, `{"tab_handle":"h","expression":"1","max_chars":99}`},
		},
		"browser_pdf": {
			valid:   []string{`{"tab_handle":"h"}`, `{"tab_handle":"h","path":"/tmp/a.pdf","landscape":true,"print_background":true,"scale":0.5,"paper":"a4","page_ranges":"1-2"}`},
			invalid: []string{`{}`, `{"tab_handle":"h","paper":"b5"}`, `{"tab_handle":"h","scale":3}`},
		},
		"browser_emulate": {
			valid:   []string{`{"tab_handle":"h","width":400,"height":700,"device_scale":2,"mobile":true,"media":"print","color_scheme":"dark"}`, `{"tab_handle":"h","reset":true}`},
			invalid: []string{`{}`, `{"tab_handle":"h","width":-1}`, `{"tab_handle":"h","color_scheme":"sepia"}`, `{"tab_handle":"h","device_scale":9}`},
		},
		"browser_storage_state": {
			valid:   []string{`{"tab_handle":"h","action":"export","path":"/tmp/s.json"}`},
			invalid: []string{`{}`, `{"tab_handle":"h","action":"export"}`, `{"tab_handle":"h","action":"save","path":"/tmp/s.json"}`},
		},
	}
}

func init() {
	fuzzSeeds = append(fuzzSeeds,
		`{"tab_handle":"h","full_page":true,"selector":"#a"}`, `{"tab_handle":"h","format":"png","quality":5}`, `{"tab_handle":"h","save_path":"rel.png"}`,
		`{"tab_handle":"h","frame":{"path":["iframe"]}}`, `{"tab_handle":"h","kind":["console","console"]}`, `{"tab_handle":"h","kind":"console"}`,
		`{"tab_handle":"h","max_body_chars":500}`, `{"tab_handle":"h","expression":"1","cursor":"ev1:0"}`, `{"tab_handle":"h","cursor":"ev1:-5"}`,
		`{"tab_handle":"h","cursor":"bogus"}`, `{"tab_handle":"h","path":"rel.pdf"}`, `{"tab_handle":"h","paper":"A4","scale":0}`,
		`{"tab_handle":"h","width":1e9}`, `{"tab_handle":"h","width":50}`, `{"tab_handle":"h","media":"tv"}`, `{"tab_handle":"h","action":"import","path":"x.json"}`, `{"tab_handle":"h","expression":"1","result_type":"element","frame_id":"F"}`, `{"tab_handle":"h","level":"warn","after_seq":1e20}`, `{"tab_handle":"h","ref":"e1","frame_id":"F"}`, `{"tab_handle":"h","max_megapixels":-1}`,
	)
}
