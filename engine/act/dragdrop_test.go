package act

import "testing"

// An HTML5 drag (a kanban board's cards, SortableJS's default): the page's
// dragstart data reaches its drop handler, over the card dropped on
// (issue 47's real apps: SortableJS reorder).
func TestHTML5DragAndDrop(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	const path = "/real-web/kanban.html"
	suitePages.Store(path, `<style>.col { display: inline-block; vertical-align: top; width: 160px; min-height: 200px; border: 1px solid #999; margin: 8px; }
.card { height: 30px; margin: 6px; border: 1px solid #333; background: #eef; }</style>
<div class="col" id="todo"><div class="card" draggable="true" id="a">Write spec</div><div class="card" draggable="true" id="b">Review PR</div></div>
<div class="col" id="done"><div class="card" draggable="true" id="c">Ship it</div></div>
<script>
let dragged = null;
document.addEventListener('dragstart', (e) => { dragged = e.target; e.dataTransfer.setData('text/plain', e.target.id); note('start ' + e.target.id); });
for (const col of document.querySelectorAll('.col')) {
  col.addEventListener('dragover', (e) => e.preventDefault());
  col.addEventListener('drop', (e) => {
    e.preventDefault();
    const id = e.dataTransfer.getData('text/plain');
    const over = e.target.closest('.card');
    col.insertBefore(document.getElementById(id), over && over !== dragged ? over : null);
    note('drop ' + id + ' in ' + col.id + ' order ' + [...col.children].map((k) => k.id).join(','));
  });
}
</script>`)
	to := css("#a")
	runCase(t, tab, suiteSite().URL+path, suiteCase{
		steps:    steps(&Step{Action: Drag, Locator: css("#c"), To: &to}),
		log:      "start c;drop c in todo order c,a,b;",
		verified: "HTML5 drag"})
}

// SortableJS's shape: a dragover over an item moves the dragged one next
// to it, and the list then ignores dragovers for 30 ms. Dragging the last
// item onto the first puts it first, as a person's drag does.
func TestHTML5DragReordersASortableList(t *testing.T) {
	t.Parallel()
	tab := page(t, "basics.html")
	const path = "/real-web/sortable-list.html"
	suitePages.Store(path, `<style>li { height: 30px; margin: 4px; background: #eee; } ul { list-style: none; width: 200px; }</style>
<ul id="list"><li draggable="true" id="report">Write report</li><li draggable="true" id="email">Answer email</li><li draggable="true" id="review">Review</li><li draggable="true" id="plan">Plan sprint</li></ul>
<script>
let dragged = null, silent = false;
list.addEventListener('dragstart', (e) => { dragged = e.target; e.dataTransfer.setData('text/plain', e.target.id); });
list.addEventListener('dragover', (e) => {
  e.preventDefault();
  const over = e.target.closest('li');
  if (silent || !over || over === dragged) return;
  const after = [...list.children].indexOf(over) > [...list.children].indexOf(dragged);
  list.insertBefore(dragged, after ? over.nextSibling : over);
  silent = true; setTimeout(() => { silent = false; }, 30);
});
list.addEventListener('drop', (e) => { e.preventDefault(); note('order ' + [...list.children].map((k) => k.id).join(',')); });
</script>`)
	to := css("#report")
	runCase(t, tab, suiteSite().URL+path, suiteCase{
		steps: steps(&Step{Action: Drag, Locator: css("#plan"), To: &to}),
		log:   "order plan,report,email,review;"})
}
