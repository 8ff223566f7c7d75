// forms.js: the forms section of an observation, and the facts of a control
// that the interactive list says the same way. Needs core.js first.
// Installs tw.forms once per document.
(() => {
  'use strict';
  const FORMS_VERSION = 1;
  const tw = globalThis.__tabwright;
  if (tw.forms?.version === FORMS_VERSION) return;
  const { dom, norm, cut, rendered } = tw;

  const MAX_FORMS = 50;
  const MAX_FIELDS = 100;
  const MAX_OPTIONS = 50;
  // A form's value is cut at this length unless the observation is scoped
  // (see putValue).
  const MAX_VALUE = 200;

  // One observation's reading, set by section: sel (its selector cache),
  // valueCap (the scope's bound, or null), inForms (the controls listed as
  // fields, for the interactive list) and shortHref.
  let read = null;
  const sel = (el) => read.sel(el);

  const formGet = (f, prop) => Reflect.get(HTMLFormElement.prototype, prop, f);
  const BUTTON_TYPES = new Set(['submit', 'reset', 'button', 'image']);
  const NOT_FIELDS = new Set(['fieldset', 'output', 'object']);
  const isSecret = tw.secret;
  const isDisabled = (el) => el.matches(':disabled') || dom.attr(el, 'aria-disabled') === 'true';
  const isRequired = (el) => !!el.required || dom.attr(el, 'aria-required') === 'true';

  const fieldType = (el) => {
    const tag = dom.tag(el);
    if (tag === 'select') return el.multiple ? 'select-multiple' : 'select';
    if (tag === 'input' || tag === 'button') return el.type;
    return tag; // textarea, or a form-associated custom element
  };

  // addOptions lists a select's options or a datalist's suggestions on the
  // field f, bounded. A label equal to its value is not repeated, and only a
  // multiple select marks its chosen options: a single one says its choice
  // in the field's value.
  const addOptions = (f, list, multiple) => {
    const opts = [];
    let omitted = 0;
    for (const o of list) {
      if (opts.length >= MAX_OPTIONS) { omitted++; continue; }
      const item = { value: o.value };
      const label = norm(o.label || o.text);
      if (label && label !== o.value) item.label = cut(label, 80);
      if (o.selected && multiple) item.selected = true;
      if (o.disabled) item.disabled = true;
      opts.push(item);
    }
    f.options = opts;
    if (omitted) { f.truncated = true; f.omitted = omitted; }
  };

  // fieldSelector names a control by its name attribute, [name=email], when
  // that alone is unique, as a form submits it: the shortest stable selector.
  const fieldSelector = (el, name) => {
    if (name && name.length <= 100 && dom.root(el) === document) {
      const s = `[name=${tw.cssString(name)}]`;
      if (tw.uniqueIn(document, s, el)) return s;
    }
    return sel(el);
  };

  // putValue sets o.value, cut at max (or at cap, the scope's bound, when
  // set), and its whole length when cut.
  const putValue = (o, value, max, cap) => {
    const n = cap || max;
    o.value = cut(value, n);
    if (value.length > n) o.valuelength = value.length;
  };

  const describeField = (el) => {
    const tag = dom.tag(el);
    const f = {};
    const label = cut(tw.accName(el), 120);
    if (label) f.label = label;
    // The contract's forms say each field's label, type and name (a
    // consumer of forms alone reads them there, text included).
    const type = fieldType(el);
    f.type = type;
    const name = dom.attr(el, 'name');
    if (name) f.name = name;
    const selector = fieldSelector(el, name);
    f.selector = selector;
    if (rendered(el)) {
      f.ref = tw.ref(el);
      read.inForms?.set(el, selector);
    }
    if (tag === 'select') {
      if (!el.multiple && el.value) putValue(f, el.value, MAX_VALUE, read.valueCap);
      addOptions(f, el.options, el.multiple);
    } else if (type === 'checkbox') {
      if (el.checked) f.checked = true;
      if (dom.has(el, 'value')) f.value = el.value;
    } else if (!BUTTON_TYPES.has(type) && type !== 'file' && !isSecret(el) && typeof el.value === 'string' && el.value) {
      putValue(f, el.value, MAX_VALUE, read.valueCap);
    }
    if (tag === 'input' && el.list) addOptions(f, el.list.options, false);
    if (isRequired(el)) f.required = true;
    if (isDisabled(el)) f.disabled = true;
    if (el.readOnly) f.readonly = true;
    if (!tw.rendered(el)) f.hidden = true;
    return f;
  };

  // A radio group is one field whose options are its radios. Its label comes
  // from the fieldset or radiogroup that holds just this group.
  const radioGroup = (first) => {
    const name = dom.attr(first, 'name') || '';
    const box = first.closest('fieldset, [role=radiogroup]');
    const own = box && [...dom.all(box, 'input[type=radio]')].every((r) => (dom.attr(r, 'name') || '') === name);
    const f = {};
    const label = own ? cut(tw.accName(box), 120) : '';
    if (label) f.label = label;
    f.type = 'radio';
    if (name) f.name = name;
    f.selector = sel(own ? box : first);
    f.options = [];
    f.radios = 0;
    f.visible = false;
    return f;
  };

  const addRadio = (f, el) => {
    f.radios++;
    if (el.checked) f.value = el.value;
    if (isRequired(el)) f.required = true;
    if (rendered(el)) f.visible = true;
    if (f.options.length >= MAX_OPTIONS) { f.truncated = true; f.omitted = (f.omitted || 0) + 1; return; }
    const o = { value: el.value };
    const label = cut(tw.accName(el), 80);
    if (label && label !== el.value) o.label = label;
    if (isDisabled(el)) o.disabled = true;
    // A radio's own selector is left out when it is the one anyone would
    // write from the group's name and the option's value.
    const own = sel(el);
    if (own !== `input[name=${tw.cssString(f.name || '')}][value=${tw.cssString(el.value)}]`) o.selector = own;
    if (rendered(el)) {
      o.ref = tw.ref(el);
      read.inForms?.set(el, own);
    }
    f.options.push(o);
  };

  // fieldsOf describes controls in order, one field per radio group, at most
  // MAX_FIELDS of them.
  const fieldsOf = (controls) => {
    const fields = [];
    const groups = new Map();
    let omitted = 0;
    for (const el of controls) {
      const tag = dom.tag(el);
      if (NOT_FIELDS.has(tag) || (tag === 'input' && el.type === 'hidden')) continue;
      if (tag === 'input' && el.type === 'radio') {
        const name = dom.attr(el, 'name');
        const g = name && groups.get(name);
        if (g) { addRadio(g, el); continue; }
        if (fields.length >= MAX_FIELDS) { omitted++; continue; }
        const ng = radioGroup(el);
        if (name) groups.set(name, ng);
        addRadio(ng, el);
        fields.push(ng);
        continue;
      }
      if (fields.length >= MAX_FIELDS) { omitted++; continue; }
      fields.push(describeField(el));
    }
    // Settle the bookkeeping of radio groups into plain field keys.
    for (const f of fields) {
      if (f.type !== 'radio') continue;
      if (!f.visible) f.hidden = true;
      if (f.options.length && f.options.every((o) => o.disabled)) f.disabled = true;
      delete f.visible;
      delete f.radios;
    }
    return { fields, omitted };
  };

  const describeForm = (form) => {
    const out = { selector: sel(form) };
    const name = dom.attr(form, 'name') || norm(dom.attr(form, 'aria-label'));
    if (name) out.name = name;
    out.action = read.shortHref(formGet(form, 'action'));
    const method = (formGet(form, 'method') || 'get').toLowerCase();
    if (method !== 'get') out.method = method;
    const { fields, omitted } = fieldsOf(formGet(form, 'elements'));
    out.fields = fields;
    if (omitted) { out.truncated = true; out.omitted = omitted; }
    return out;
  };

  // commonAncestor of elements in the same tree (never one of the controls
  // themselves); across trees, the body.
  const commonAncestor = (els) => {
    let anc = els.length === 1 ? dom.parent(els[0]) : els[0];
    for (const el of els.slice(1)) {
      while (anc && !anc.contains(el)) anc = dom.parent(anc);
      if (!anc) return dom.body();
    }
    return anc || dom.body();
  };

  // Controls outside any <form> still make forms in practice. Those under an
  // explicit form-like container (role=form, role=search, <search>, a
  // fieldset) are grouped by it; the rest make one group whose selector is
  // their common ancestor. A group is reported only when one of its fields
  // is drawn, so templates and closed dialogs do not pile up.
  const orphanGroups = (roots, scope) => {
    const byBox = new Map();
    for (const root of roots) {
      for (const el of dom.all(root, 'input, select, textarea')) {
        if ((el.form && (!scope || scope.contains(el.form))) || el.type === 'hidden' || (dom.tag(el) === 'input' && BUTTON_TYPES.has(el.type))) continue;
        const box = el.closest('[role=form], [role=search], search, fieldset') || null;
        if (!byBox.has(box)) byBox.set(box, []);
        byBox.get(box).push(el);
      }
    }
    const out = [];
    for (const [box, els] of byBox) {
      if (!els.some(rendered)) continue;
      const container = box || commonAncestor(els);
      const g = { selector: sel(container), synthetic: true };
      const name = box ? tw.accName(box) : '';
      if (name) g.name = cut(name, 80);
      const { fields, omitted } = fieldsOf(els);
      g.fields = fields;
      if (omitted) { g.truncated = true; g.omitted = omitted; }
      out.push(g);
    }
    return out;
  };

  const formsSection = (roots, scope) => {
    const forms = [];
    let omitted = 0;
    // A scope that is itself a form reads as that form.
    const own = scope && dom.tag(scope) === 'form' ? [scope] : [];
    for (const root of roots) {
      for (const form of [...(root === scope ? own : []), ...dom.all(root, 'form')]) {
        if (forms.length >= MAX_FORMS) { omitted++; continue; }
        forms.push(describeForm(form));
      }
    }
    for (const g of orphanGroups(roots, scope)) {
      if (forms.length >= MAX_FORMS) { omitted++; continue; }
      forms.push(g);
    }
    return { forms, omitted };
  };

  tw.forms = {
    version: FORMS_VERSION,
    section: (roots, scope, reading) => {
      read = reading;
      try {
        return formsSection(roots, scope);
      } finally {
        read = null;
      }
    },
    BUTTON_TYPES, isDisabled, putValue,
  };
})();
