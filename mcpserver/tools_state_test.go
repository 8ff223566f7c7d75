package mcpserver

import "reflect"

// The input structs and schema examples of the screenshot, logs, evaluate,
// pdf, emulation and storage tools (merged into schema_test.go's tables).

func stateInputTypes() map[string]reflect.Type {
	return map[string]reflect.Type{
		"browser_screenshot": reflect.TypeFor[screenshotInput](),
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
	}
}

func init() {
	fuzzSeeds = append(fuzzSeeds,
		`{"tab_handle":"h","full_page":true,"selector":"#a"}`, `{"tab_handle":"h","format":"png","quality":5}`, `{"tab_handle":"h","save_path":"rel.png"}`,
		`{"tab_handle":"h","frame":{"path":["iframe"]}}`, `{"tab_handle":"h","ref":"e1","frame_id":"F"}`, `{"tab_handle":"h","max_megapixels":-1}`,
	)
}
