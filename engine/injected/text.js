// text.js: the text of an observation: a document's visible text as a reader
// sees it (marked, then previewed and measured) and its rendered HTML for
// the reader view. Needs core.js first. Installs tw.text once per document.
(() => {
  'use strict';
  const TEXT_VERSION = 1;
  const tw = globalThis.__tabwright;
  if (tw.text?.version === TEXT_VERSION) return;
  const { dom, norm, rendered } = tw;

  // Elements whose content is never page text: code, embedded documents,
  // replaced content and the option lists of controls (forms report those).
  const SKIP_TEXT = new Set([
    'script', 'style', 'noscript', 'template', 'head', 'select', 'textarea', 'datalist',
    'svg', 'iframe', 'frame', 'object', 'embed', 'canvas', 'video', 'audio', 'img', 'input',
  ]);

  const isInline = (d) => d.startsWith('inline') || d === 'contents' || d.startsWith('ruby');
  const preserves = (cs) => /^(preserve|break-spaces)/.test(cs.whiteSpaceCollapse || '') || cs.whiteSpace.startsWith('pre');

  // Marks in the walked text, none of them white space: a listed element's
  // own text (its label already says it), table rows folded away, and the
  // line that says so.
  const LABEL_ON = '\u0001', LABEL_OFF = '\u0002';
  const FOLD_ON = '\u0003', FOLD_OFF = '\u0004';
  const NOTE_ON = '\u0005', NOTE_OFF = '\u0006';
  // A table of more than TABLE_ROWS_FOLD rows shows its first TABLE_ROWS_KEEP
  // in the preview and says how to read the rest.
  const TABLE_ROWS_FOLD = 12;
  const TABLE_ROWS_KEEP = 3;

  // visibleText walks the rendered (flat) tree in document order and
  // returns its text the way a reader sees it: one line per block, runs of
  // white space collapsed, hidden content left out. Optional: said(el), an
  // element whose text the observation already says (its label), and
  // foldTable(el), whether a long table's rows may fold. It returns the
  // text marked (see preview).
  const visibleText = (root, said, foldTable, sel) => {
    const out = [];
    let rowsLeft = Infinity; // rows the table being walked may still show
    const walk = (node, cs, kids, sight) => {
      for (const c of kids || tw.flatChildren(node)) {
        if (c.nodeType === 3) {
          // Visibility, size and colour are inherited but can be undone by
          // a descendant, so they are decided per text node, by the style
          // of its parent.
          if (tw.sight.unseenText(cs, sight)) continue;
          out.push(preserves(cs) ? c.data.replace(/[^\S\n]+/g, ' ') : c.data.replace(/\s+/g, ' '));
          continue;
        }
        if (c.nodeType !== 1) continue;
        const tag = dom.tag(c);
        if (SKIP_TEXT.has(tag)) continue;
        if (tag === 'br') { out.push('\n'); continue; }
        const ccs = getComputedStyle(c);
        if (tw.unseen(c, ccs) || tw.sight.unseenBox(c, ccs)) continue;
        const csight = tw.sight.of(c, ccs, sight);
        const d = ccs.display;
        const sep = isInline(d) ? '' : d === 'table-cell' ? ' ' : '\n';
        // A closed <details> shows only its summary.
        const only = tag === 'details' && !c.open ? [...c.children].filter((k) => dom.tag(k) === 'summary').slice(0, 1) : null;
        const [on, off] = tag === 'tr' && rowsLeft-- <= 0 ? [FOLD_ON, FOLD_OFF] : said?.(c) ? [LABEL_ON, LABEL_OFF] : ['', ''];
        out.push(sep, on);
        if (tag === 'table' && c.rows.length > TABLE_ROWS_FOLD && foldTable?.(c)) walkTable(c, ccs, csight);
        else walk(c, ccs, only, csight);
        out.push(off, sep);
      }
    };
    const walkTable = (table, cs, sight) => {
      const outer = rowsLeft;
      rowsLeft = TABLE_ROWS_KEEP;
      walk(table, cs, null, sight);
      const folded = -rowsLeft;
      rowsLeft = outer;
      if (folded > 0) out.push('\n', NOTE_ON, `[${folded} more rows of table ${sel(table)}: scope on it reads them]`, NOTE_OFF, '\n');
    };
    const body = root || dom.body();
    if (!body) return '';
    walk(body, getComputedStyle(body), null, tw.sight.at(body));
    return out.join('').replace(/[^\S\n]+/g, ' ').replace(/\s*\n\s*/g, '\n').trim();
  };

  // seenHTML writes root's rendered (flat) tree as HTML for the reader
  // view, leaving out what no person sees by the same rules as the text
  // (the readability pass reads markup, not style): hidden and unseen
  // boxes, unseen text, light children no slot shows. Content under
  // aria-hidden that is drawn stays, and loses the attribute, since the
  // reader drops what it marks. <head> is kept as it is (title, language).
  // Written by hand, not cloned: a clone would run the page's custom
  // element constructors.
  const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
  const NOT_DRAWN = new Set(['script', 'style', 'template', 'noscript']);
  const escText = (t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\u00a0/g, '&nbsp;');
  const escAttr = (t) => t.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const seenHTML = (root) => {
    const out = [];
    const open = (el) => {
      out.push('<', dom.tag(el));
      for (const a of el.attributes) {
        if (a.name === 'aria-hidden' || !/^[^\s"'>/=]+$/.test(a.name)) continue;
        out.push(' ', a.name, '="', escAttr(a.value), '"');
      }
      out.push('>');
    };
    const walk = (node, cs, sight) => {
      for (const c of tw.flatChildren(node)) {
        if (c.nodeType === 3) {
          if (!tw.sight.unseenText(cs, sight) || !c.data.trim()) out.push(escText(c.data));
          continue;
        }
        if (c.nodeType !== 1) continue;
        const tag = dom.tag(c);
        if (tag === 'head') { out.push(c.outerHTML); continue; }
        if (NOT_DRAWN.has(tag)) continue;
        const ccs = getComputedStyle(c);
        if (tw.unseen(c, ccs) || tw.sight.unseenBox(c, ccs)) continue;
        if (tag === 'slot') { walk(c, ccs, tw.sight.of(c, ccs, sight)); continue; }
        open(c);
        if (VOID.has(tag)) continue;
        if (tag === 'textarea') out.push(escText(c.value));
        else walk(c, ccs, tw.sight.of(c, ccs, sight));
        out.push('</', tag, '>');
      }
    };
    if (root === document.documentElement) {
      open(root);
      walk(root, getComputedStyle(root), tw.sight.at(root));
      out.push('</html>');
    } else {
      const cs = getComputedStyle(root);
      open(root);
      walk(root, cs, tw.sight.at(root));
      out.push('</', dom.tag(root), '>');
    }
    return out.join('');
  };

  // plainText is marked text without its marks: all the visible text.
  const plainText = (marked) => marked.replace(/\u0005[^\u0006]*\u0006/g, '').replace(/[\u0001-\u0004\u0006]/g, '').replace(/\n{2,}/g, '\n').trim();

  // preview is the marked text as the preview shows it: folded rows out,
  // their note in, and a line made only of listed elements' own text left
  // out (a line that has other text keeps them: "Read the guide today").
  const preview = (marked) => {
    const kept = [];
    let inLabel = false; // a label's text may span lines
    for (let line of marked.replace(/\u0003[^\u0004]*\u0004/g, '').split('\n')) {
      if (inLabel) line = LABEL_ON + line;
      inLabel = line.lastIndexOf(LABEL_ON) > line.lastIndexOf(LABEL_OFF);
      const other = line.replace(/\u0001[^\u0002]*(\u0002|$)/g, '').replace(/[\u0002-\u0006]/g, '');
      if (other.trim() === '') continue;
      kept.push(line.replace(/[\u0001-\u0006]/g, '').trim());
    }
    return kept.filter((l) => l !== '').join('\n');
  };

  // saidBy returns said for visibleText: a listed element whose visible
  // text its label holds (an icon's one glyph too), and a <label> whose
  // control is listed.
  const saidBy = (labels) => (el) => {
    if (dom.tag(el) === 'label' && el.control) return labels.has(el.control);
    const label = labels.get(el);
    if (label === undefined) return false;
    // Compared without white space: textContent runs blocks together
    // ("Title(1)site") where the name has a space.
    const bare = (t) => t.replace(/\s+/g, '');
    const text = bare(el.textContent || '');
    return text.length <= 2 || bare(label).includes(text);
  };

  tw.text = { version: TEXT_VERSION, visibleText, seenHTML, plainText, preview, saidBy };
})();
