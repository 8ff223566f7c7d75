package task

import (
	"encoding/json"
	"fmt"

	"github.com/tabwright/tabwright/schemas"
)

// OwnSchemaID is the $id of the task schema as tabwright's loader reads
// it; the contract's schema keeps quickstarted's $id.
const OwnSchemaID = "https://github.com/tabwright/tabwright/schemas/qs-task.schema.json"

// OwnSchema is what `qs schema` prints: the contract's task schema with the
// differences the loader keeps on purpose (docs/qs.md, "Differences"), so
// an editor or a CI step validating against it gives the loader's verdict:
//   - success needs script, file, wait_http or expect_output (not both
//     script and file), where the contract needs script or file;
//   - budgets are at least 1, max_tokens at least 0 (0: unlimited);
//   - script and serve hold more than blanks.
//
// The loader still checks what no schema can say: that success.file
// exists, and the lint rules.
func OwnSchema() ([]byte, error) {
	var s map[string]any
	if err := json.Unmarshal(schemas.Task, &s); err != nil {
		return nil, fmt.Errorf("qs.schema: the embedded task schema: %v", err)
	}
	s["$id"] = OwnSchemaID
	s["title"] = "tabwright quickstart task"
	s["description"] = "A quickstart task file as tabwright qs loads it: the quickstarted task format, with the differences docs/qs.md lists."
	props, _ := s["properties"].(map[string]any)
	success, _ := props["success"].(map[string]any)
	budgets, _ := props["budgets"].(map[string]any)
	if success == nil || budgets == nil {
		return nil, fmt.Errorf("qs.schema: the embedded task schema has no success or budgets block")
	}
	success["anyOf"] = []any{req("script"), req("file"), req("wait_http"), req("expect_output")}
	success["not"] = req("script", "file")
	sp, _ := success["properties"].(map[string]any)
	for _, k := range []string{"script", "serve"} {
		if p, ok := sp[k].(map[string]any); ok {
			p["pattern"] = `\S`
		}
	}
	bp, _ := budgets["properties"].(map[string]any)
	for k, v := range bp {
		if p, ok := v.(map[string]any); ok {
			p["minimum"] = 1
			if k == "max_tokens" {
				p["minimum"] = 0
			}
		}
	}
	return json.MarshalIndent(s, "", "  ")
}

func req(names ...string) map[string]any { return map[string]any{"required": names} }
