package task

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkQSTaskSchema weighs the schema walker against compiling the task
// schema with santhosh-tekuri/jsonschema (the reference of
// schema_ref_test.go, which reports every problem too): the first check in a
// process (prepare or compile, then validate) and each later one, on a
// bundled task and on a broken one. What the benchmark cannot show is the
// reference's package init, which compiles every draft's metaschema at the
// start of any binary that links it; GODEBUG=inittrace=1 on this test
// binary prints it.
func BenchmarkQSTaskSchema(b *testing.B) {
	good, err := os.ReadFile(filepath.Join(corpus, "httpx-quickstart.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"valid", good}, {"invalid", []byte(schemaCases[2])}} {
		doc, err := decode("t.yaml", c.data)
		if err != nil {
			b.Fatal(err)
		}
		top := doc.(map[string]any)
		b.Run(c.name+"/walker-first", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				root, err := loadTaskSchema()
				if err != nil {
					b.Fatal(err)
				}
				root.walk(numbers(top), nil)
			}
		})
		b.Run(c.name+"/walker", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var ps problems
				schemaProblems(top, &ps)
			}
		})
		b.Run(c.name+"/santhosh-first", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, err := compileRef()
				if err != nil {
					b.Fatal(err)
				}
				s.Validate(top)
			}
		})
		b.Run(c.name+"/santhosh", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				refProblems(b, top)
			}
		})
	}
}
