package observe

// Scoped is a Page whose element refs belong to it: Refs returns how the
// page-side refs of the document marked doc read as refs of this page's
// tab and frame (see tabs.Tab.ScopeRefs). *tabs.Tab is one, for its main
// frame. A Page that is not Scoped keeps the page's own refs (e1, e2, ...),
// unique within one document only.
type Scoped interface {
	Refs(doc string) func(pageRef string) string
}

// scopeRefs rewrites every page-side ref of res as p's ref, before anything
// (digest, history, diff, folding) reads it.
func scopeRefs(p Page, res *pageResult) {
	s, ok := p.(Scoped)
	if !ok || res == nil || res.Doc == "" {
		return
	}
	ref := s.Refs(res.Doc)
	for i := range res.Interactive {
		res.Interactive[i].Ref = ref(res.Interactive[i].Ref)
	}
	for i := range res.Forms {
		for k := range res.Forms[i].Fields {
			fd := &res.Forms[i].Fields[k]
			fd.Ref = ref(fd.Ref)
			for j := range fd.Options {
				fd.Options[j].Ref = ref(fd.Options[j].Ref)
			}
		}
	}
	if g := res.Groundings; g != nil {
		boxes := make(map[string][4]int, len(g.Boxes))
		for r, box := range g.Boxes {
			boxes[ref(r)] = box
		}
		g.Boxes = boxes
	}
	if len(res.Cards) > 0 {
		cards := make(map[string]cardPos, len(res.Cards))
		for r, at := range res.Cards {
			cards[ref(r)] = at
		}
		res.Cards = cards
	}
}
