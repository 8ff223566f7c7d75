// a11y.js: a compact accessibility outline of the rendered tree, one line per
// node that matters to a screen-reader user — landmarks, headings, lists,
// tables, controls, named images — written as
//
//   role "name" [state]
//
// and indented two spaces per level of outline nesting. Plain text and
// wrappers without a role are skipped, so the outline stays short. Needs
// core.js. Installs tw.a11y(root, {maxLines, maxChars}).
(() => {
  'use strict';
  const A11Y_VERSION = 2;
  const tw = globalThis.__tabwright;
  if (tw.a11yVersion === A11Y_VERSION) return;
  const { dom, norm, cut } = tw;

  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'datalist', 'option']);
  const SECTIONING = 'article, aside, main, nav, section';

  // Roles that earn an outline line; others are walked through.
  const SHOWN = new Set([
    'banner', 'navigation', 'main', 'complementary', 'contentinfo', 'region', 'form', 'search',
    'dialog', 'alertdialog', 'alert', 'status', 'article', 'heading', 'list', 'table', 'grid',
    'treegrid', 'tablist', 'tabpanel', 'menu', 'menubar', 'tree', 'toolbar', 'img', 'figure',
    'link', 'button', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton',
    'listbox', 'treeitem', 'radiogroup', 'group', 'progressbar', 'separator',
  ]);
  // Roles whose name is their content: the line already says it all, so the
  // walk does not descend for more.
  const LEAF = new Set([
    'heading', 'link', 'button', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'combobox', 'textbox', 'searchbox', 'slider',
    'spinbutton', 'img', 'treeitem', 'progressbar', 'separator',
  ]);

  // outlineRole adds the implicit roles core's role() leaves as generic.
  const outlineRole = (el) => {
    const explicit = tw.explicitRole(el);
    if (explicit === 'none' || explicit === 'presentation') return '';
    if (explicit) return explicit;
    const tag = dom.tag(el);
    switch (tag) {
      case 'header': return el.parentElement && el.parentElement.closest(SECTIONING) ? '' : 'banner';
      case 'footer': return el.parentElement && el.parentElement.closest(SECTIONING) ? '' : 'contentinfo';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'aside': return 'complementary';
      case 'article': return 'article';
      case 'section': return dom.has(el, 'aria-label') || dom.has(el, 'aria-labelledby') ? 'region' : '';
      case 'search': return 'search';
      case 'dialog': return 'dialog';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'ul': case 'ol': case 'menu': return 'list';
      case 'table': return 'table';
      case 'figure': return 'figure';
      case 'fieldset': return 'group';
      case 'hr': return 'separator';
      case 'progress': return 'progressbar';
      case 'img': return dom.attr(el, 'alt') === '' ? '' : 'img';
      case 'form': return 'form';
    }
    return tw.role(el);
  };

  const nameOf = (el, role) => {
    if (role === 'list') return '';
    if (role === 'heading') return norm(dom.attr(el, 'aria-label')) || tw.nameText(el, null, 160);
    if (role === 'table' || role === 'grid') {
      const cap = el.querySelector && el.querySelector(':scope > caption');
      if (cap) return tw.nameText(cap, null, 120);
    }
    return tw.accName(el);
  };

  const stateOf = (el, role) => {
    const s = [];
    if (role === 'heading') {
      const m = /^h([1-6])$/.exec(dom.tag(el));
      s.push('level=' + (dom.attr(el, 'aria-level') || (m ? m[1] : '2')));
    }
    if (role === 'list') s.push(dom.all(el, ':scope > li, :scope > [role=listitem]').length + ' items');
    if (role === 'table' || role === 'grid') {
      const rows = el.rows ? el.rows.length : dom.all(el, '[role=row]').length;
      s.push(rows + ' rows');
    }
    const tag = dom.tag(el);
    if (el.matches(':disabled') || dom.attr(el, 'aria-disabled') === 'true') s.push('disabled');
    if ((tag === 'input' && (el.type === 'checkbox' || el.type === 'radio') && el.checked) || dom.attr(el, 'aria-checked') === 'true') s.push('checked');
    const exp = dom.attr(el, 'aria-expanded');
    if (exp === 'true') s.push('expanded');
    if (exp === 'false') s.push('collapsed');
    if (dom.attr(el, 'aria-selected') === 'true') s.push('selected');
    if (dom.attr(el, 'aria-pressed') === 'true') s.push('pressed');
    if (el.required || dom.attr(el, 'aria-required') === 'true') s.push('required');
    if (dom.attr(el, 'aria-current') && dom.attr(el, 'aria-current') !== 'false') s.push('current');
    if ((role === 'textbox' || role === 'searchbox' || role === 'combobox' || role === 'spinbutton') && el.type !== 'password' && typeof el.value === 'string' && el.value) {
      s.push('value=' + JSON.stringify(cut(el.value, 40)) + (el.value.length > 40 ? ` (cut: ${el.value.length} chars; observe with this element as scope reads it whole)` : ''));
    }
    return s;
  };

  // a11y(root, {maxLines, maxChars}) returns {outline, lines, truncated,
  // omitted}: omitted counts the lines past the bounds.
  tw.a11y = (root, options) => {
    const opt = options || {};
    const maxLines = opt.maxLines > 0 ? opt.maxLines : 200;
    const maxChars = opt.maxChars > 0 ? opt.maxChars : 8000;
    const lines = [];
    let chars = 0;
    let omitted = 0;
    const walk = (node, depth) => {
      for (const c of tw.flatChildren(node)) {
        if (c.nodeType !== 1) continue;
        const tag = dom.tag(c);
        if (SKIP.has(tag)) continue;
        const cs = getComputedStyle(c);
        if (tw.hiddenSubtree(c, cs)) continue;
        const role = outlineRole(c);
        if (SHOWN.has(role) && cs.visibility !== 'hidden') {
          if (LEAF.has(role) || role === 'img' || tag === 'select') {
            // Controls and leaves must be drawn to count.
            if (!tw.rendered(c)) continue;
          }
          const name = cut(nameOf(c, role), 100);
          const st = stateOf(c, role);
          const line = '  '.repeat(depth) + role + (name ? ' ' + JSON.stringify(name) : '') + (st.length ? ' [' + st.join(', ') + ']' : '');
          if (lines.length < maxLines && chars + line.length + 1 <= maxChars) {
            lines.push(line);
            chars += line.length + 1;
          } else {
            omitted++;
          }
          if (!LEAF.has(role) && tag !== 'select') walk(c, depth + 1);
          continue;
        }
        walk(c, depth);
      }
    };
    walk(root, 0);
    const out = { outline: lines.join('\n'), lines: lines.length };
    if (omitted) { out.truncated = true; out.omitted = omitted; }
    return out;
  };

  tw.a11yVersion = A11Y_VERSION;
})();
