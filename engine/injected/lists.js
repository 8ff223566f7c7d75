// lists.js: repeated sibling structures — product cards, search results,
// feed items. Children of one parent are grouped by tag and sorted class
// list; a group of at least MIN_ITEMS drawn siblings that carry text is a
// pattern. A pattern's items are not searched again (a card's own repeated
// badges are part of the card), and table internals are left to tables.js.
// Each pattern says which fields its items carry (title, price, link, image,
// or a class name), how many items there are, and shows up to three.
// Needs core.js. Installs tw.listpattern(root, {max, sel}).
(() => {
  'use strict';
  const LISTS_VERSION = 1;
  const tw = globalThis.__tabwright;
  if (tw.listsVersion === LISTS_VERSION) return;
  const { dom, norm, cut } = tw;

  const MIN_ITEMS = 3;
  const SAMPLE_ITEMS = 3;
  const FIELD_SCAN = 40; // items read to find the fields they carry
  const MAX_FIELDS = 8;
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'select', 'datalist', 'svg',
    'table', 'thead', 'tbody', 'tfoot', 'tr', 'colgroup', 'option', 'optgroup', 'br', 'hr']);
  const PRICE = /(?:[$€£¥₹]\s?\d[\d.,]*|\d[\d.,]*\s?(?:[$€£¥₹]|USD|EUR|GBP))/;

  const signature = (el) => {
    const cls = [...el.classList].filter((c) => !/\d{2,}|active|selected|hover|focus|open/i.test(c)).sort();
    return dom.tag(el) + (cls.length ? '.' + cls.map((c) => CSS.escape(c)).join('.') : '');
  };

  const visible = (el) => el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });

  // fieldsOf names the parts of one item: the heading or first link text is
  // its title; a currency amount its price; the first link its link; the
  // first image its image; other leaf text by its class or tag.
  const fieldsOf = (item) => {
    const f = {};
    const heading = item.querySelector('h1, h2, h3, h4, h5, h6, [role=heading], [class*=title i], [class*=name i]');
    const link = dom.tag(item) === 'a' && dom.has(item, 'href') ? item : item.querySelector('a[href]');
    if (heading) f.title = cut(norm(heading.textContent), 80);
    else if (link) f.title = cut(norm(link.textContent), 80);
    if (link) f.link = cut(link.href, 200);
    const img = item.querySelector('img');
    if (img) {
      const src = img.currentSrc || img.src;
      if (src) f.image = cut(src, 200);
    }
    const m = PRICE.exec(item.textContent || '');
    if (m) f.price = norm(m[0]);
    // Leaf text elements not already taken, named by class or tag.
    for (const el of dom.all(item, '*')) {
      if (Object.keys(f).length >= MAX_FIELDS) break;
      if (dom.children(el).length || el === heading || el === link || (heading && heading.contains(el)) || (link && link.contains(el) && link !== item)) continue;
      const text = norm(el.textContent);
      if (!text || (m && text === norm(m[0]))) continue;
      const key = el.classList[0] || dom.tag(el);
      if (!/^[A-Za-z][\w-]{0,30}$/.test(key) || key in f) continue;
      f[key] = cut(text, 80);
    }
    if (!Object.keys(f).length) {
      const text = norm(item.textContent);
      if (text) f.text = cut(text, 120);
    }
    return f;
  };

  // listpattern(root, {max, sel}) returns {patterns, omitted}. sel makes
  // unique selectors (shared with the observation's cache).
  tw.listpattern = (root, options) => {
    const opt = options || {};
    const max = opt.max > 0 ? opt.max : 10;
    const sel = opt.sel || ((el) => tw.selector(el));
    const found = [];
    const walk = (el) => {
      const kids = dom.children(el);
      if (kids.length >= MIN_ITEMS) {
        const groups = new Map();
        for (const k of kids) {
          if (SKIP.has(dom.tag(k))) continue;
          const s = signature(k);
          if (!groups.has(s)) groups.set(s, []);
          groups.get(s).push(k);
        }
        let best = null;
        for (const [s, items] of groups) {
          if (items.length < MIN_ITEMS || (best && items.length <= best.items.length)) continue;
          best = { sig: s, items };
        }
        if (best) {
          const drawn = best.items.filter((i) => visible(i) && norm(i.textContent));
          // Bare text blocks (paragraphs of an article) are prose, not a list.
          const structured = drawn.filter((i) => dom.children(i).length > 0 || dom.tag(i) === 'a').length;
          if (drawn.length >= MIN_ITEMS && structured * 2 >= drawn.length && !['p', 'span', 'br'].includes(dom.tag(drawn[0]))) {
            found.push({ container: el, sig: best.sig, items: drawn });
            // Siblings outside the pattern may hold patterns of their own.
            for (const k of kids) if (!best.items.includes(k) && !SKIP.has(dom.tag(k))) walk(k);
            return;
          }
        }
      }
      for (const k of kids) if (!SKIP.has(dom.tag(k))) walk(k);
    };
    const start = root.nodeType === 9 ? dom.body() : root;
    if (start) walk(start);
    // Larger patterns first; ties in document order.
    found.sort((a, b) => b.items.length - a.items.length);
    const patterns = [];
    for (const p of found.slice(0, max)) {
      const counts = new Map();
      const scanned = p.items.slice(0, FIELD_SCAN).map(fieldsOf);
      for (const f of scanned) for (const k of Object.keys(f)) counts.set(k, (counts.get(k) || 0) + 1);
      const fields = [...counts].filter(([, n]) => n * 2 >= scanned.length).map(([k]) => k);
      const samples = scanned.slice(0, SAMPLE_ITEMS).map((f) => {
        const s = {};
        for (const k of fields) if (k in f) s[k] = f[k];
        return s;
      });
      const container = sel(p.container);
      patterns.push({ container, item: container + ' > ' + p.sig, count: p.items.length, fields, samples });
    }
    return { patterns, omitted: Math.max(0, found.length - max) };
  };

  tw.listsVersion = LISTS_VERSION;
})();
