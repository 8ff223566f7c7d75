// tables.js: the shape of data tables — <table> elements and ARIA tables and
// grids — with their caption, headers, size and a few sample rows. Tables
// used for page layout are skipped: those marked role=presentation/none,
// those holding other tables, forms or sectioning blocks, and those without
// header cells, caption or summary that are not a regular grid of short
// cells. Needs core.js. Installs tw.tableshape(root, {max, sel}).
(() => {
  'use strict';
  const TABLES_VERSION = 1;
  const tw = globalThis.__tabwright;
  if (tw.tablesVersion === TABLES_VERSION) return;
  const { dom, norm, cut } = tw;

  const SAMPLE_ROWS = 3;
  const MAX_COLS = 20;
  const CELL_CHARS = 60;

  const cellText = (c) => cut(norm(c.innerText || c.textContent), CELL_CHARS);
  const span = (c) => Math.max(1, Math.min(50, parseInt(dom.attr(c, 'colspan') || '1', 10) || 1));

  // ownRows lists a table's rows without those of nested tables.
  const ownRows = (t) => [...t.rows].filter((r) => r.closest('table') === t);

  const isLayout = (t, rows) => {
    const role = tw.explicitRole(t);
    if (role === 'presentation' || role === 'none') return true;
    if (role === 'table' || role === 'grid' || role === 'treegrid') return false;
    if (t.querySelector('table, form, nav, article, main, aside, header, footer, h1, h2')) return true;
    if (t.caption || t.tHead || dom.has(t, 'summary') || t.querySelector('th')) return false;
    // No explicit signal: a data table still shows a regular grid of short cells.
    if (rows.length < 3) return true;
    const width = rows[0].cells.length;
    if (width < 2) return true;
    let long = 0;
    for (const r of rows.slice(0, 20)) {
      if (r.cells.length !== width) return true;
      for (const c of r.cells) if ((c.textContent || '').length > 200) long++;
    }
    return long > 0;
  };

  const htmlTable = (t, sel) => {
    const rows = ownRows(t);
    if (!rows.length || isLayout(t, rows)) return null;
    let headerRows = 0;
    let headers = [];
    if (t.tHead && t.tHead.rows.length) {
      headerRows = ownRows(t).filter((r) => r.parentElement === t.tHead).length;
      headers = [...t.tHead.rows[headerRows - 1].cells].map(cellText);
    } else if ([...rows[0].cells].every((c) => dom.tag(c) === 'th')) {
      headerRows = 1;
      headers = [...rows[0].cells].map(cellText);
    }
    const body = rows.slice(headerRows).filter((r) => r.parentElement !== t.tFoot);
    let cols = 0;
    for (const r of rows) cols = Math.max(cols, [...r.cells].reduce((n, c) => n + span(c), 0));
    const out = { selector: sel(t) };
    const caption = t.caption ? cut(norm(t.caption.textContent), 120) : cut(norm(dom.attr(t, 'aria-label')), 120);
    if (caption) out.caption = caption;
    out.headers = headers.slice(0, MAX_COLS);
    out.rows = body.length;
    out.cols = cols;
    out.samples = body.slice(0, SAMPLE_ROWS).map((r) => [...r.cells].slice(0, MAX_COLS).map(cellText));
    return out;
  };

  // ARIA tables built from divs: role=row children with role=cell, gridcell,
  // columnheader or rowheader.
  const ariaTable = (t, sel) => {
    const rows = [...dom.all(t, '[role=row]')].filter((r) => r.closest('[role=table], [role=grid], [role=treegrid], table') === t);
    if (!rows.length) return null;
    const cellsOf = (r) => [...dom.all(r, '[role=cell], [role=gridcell], [role=columnheader], [role=rowheader]')]
      .filter((c) => c.closest('[role=row]') === r);
    const first = cellsOf(rows[0]);
    const headerRow = first.length && first.every((c) => tw.explicitRole(c) === 'columnheader');
    const body = headerRow ? rows.slice(1) : rows;
    let cols = 0;
    for (const r of rows) cols = Math.max(cols, cellsOf(r).length);
    const out = { selector: sel(t) };
    const caption = cut(tw.accName(t), 120);
    if (caption) out.caption = caption;
    out.headers = headerRow ? first.slice(0, MAX_COLS).map(cellText) : [];
    out.rows = body.length;
    out.cols = cols;
    out.samples = body.slice(0, SAMPLE_ROWS).map((r) => cellsOf(r).slice(0, MAX_COLS).map(cellText));
    return out;
  };

  // tableshape(root, {max, sel}) returns {tables, omitted}.
  tw.tableshape = (root, options) => {
    const opt = options || {};
    const max = opt.max > 0 ? opt.max : 10;
    const sel = opt.sel || ((el) => tw.selector(el));
    const tables = [];
    let omitted = 0;
    const candidates = [...dom.all(root, 'table, [role=table], [role=grid], [role=treegrid]')];
    if (root.nodeType === 1 && root.matches('table, [role=table], [role=grid], [role=treegrid]')) candidates.unshift(root);
    for (const t of candidates) {
      if (!t.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true })) continue;
      const shape = dom.tag(t) === 'table' ? htmlTable(t, sel) : ariaTable(t, sel);
      if (!shape) continue;
      if (tables.length >= max) { omitted++; continue; }
      tables.push(shape);
    }
    return { tables, omitted };
  };

  tw.tablesVersion = TABLES_VERSION;
})();
