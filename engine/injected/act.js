// act.js: the page-side half of every action (the trusted input itself
// comes from the browser through CDP), scrolling, waits and the control read.
// Needs core.js, find.js and check.js.
(() => {
  'use strict';
  const tw = globalThis.__tabwright;
  if (tw.actVersion === 11) return;
  const { dom, norm, byHandle, describe, css, check, disabled, no } = tw;

  // --- page-side halves of actions -----------------------------------------
  const need = (h) => {
    const el = byHandle(h);
    if (!el || !el.isConnected) throw tw.refusal('not_actionable', 'detached');
    return el;
  };

  tw.domClick = (h) => { need(h).click(); return true; };

  // The border box of a held element, for a screenshot of it; OK false once
  // it left the document.
  tw.borderBox = (h) => {
    const el = byHandle(h);
    if (!el) return { OK: false };
    const r = el.getBoundingClientRect();
    return { OK: true, X: r.x, Y: r.y, W: r.width, H: r.height };
  };

  tw.focus = (h) => {
    const el = need(h);
    el.focus({ preventScroll: true });
    return deepActive() === el;
  };

  const deepActive = () => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  };
  tw.isFocused = (h) => deepActive() === byHandle(h);

  // focusedEditable holds the element that has focus, if it takes text.
  tw.focusedEditable = () => {
    const a = deepActive();
    if (!a || a === document.body || !tw.editable(a)) return null;
    return { handle: tw.hold(a), target: describe(a) };
  };

  tw.selectAll = (h) => {
    const el = need(h);
    el.focus({ preventScroll: true });
    if (typeof el.select === 'function') {
      el.select();
    } else {
      const range = document.createRange();
      range.selectNodeContents(el);
      const sel = getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
    }
    return true;
  };

  // readValue is what an action reads back; a secret's value is compared
  // in the page and never returned.
  tw.readValue = (h, want) => {
    const el = need(h);
    const value = valueOf(el);
    return tw.secret(el) ? { secret: true, equal: value === want, length: value.length } : { value };
  };
  // valueIs is fill's read-back as a check that rides the next call.
  tw.valueIs = (h, want) => {
    const v = tw.readValue(h, want);
    return { ...v, ok: v.secret ? v.equal : v.value === want };
  };
  const valueOf = (el) => {
    const tag = dom.tag(el);
    if (tag === 'input' || tag === 'textarea') return el.value;
    if (tag === 'select') return el.value;
    if (el.isContentEditable) return el.innerText.replace(/\n$/, '');
    return el.textContent;
  };

  // setValue is fill's dom mode: the value through the element's own setter
  // (so frameworks that wrap it notice), then input and change events.
  tw.setValue = (h, text) => {
    const el = need(h);
    if (tw.valueInput(el)) return fillValue(el, text);
    const tag = dom.tag(el);
    if (tag === 'input' || tag === 'textarea') {
      const proto = tag === 'input' ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
      Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, text);
    } else if (el.isContentEditable) {
      el.innerText = text;
    } else {
      throw tw.refusal('not_actionable', 'not_editable');
    }
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { done: true };
  };

  // fillValue sets a date, time, color or range input's value whole, as
  // its picker would, and leaves the field as it was when the browser
  // refuses the text (a malformed date, a number off the range's step).
  const inputValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  const fillValue = (el, text) => {
    let v = text.trim();
    if (el.type === 'color') v = v.toLowerCase(); // the browser writes colours in lower case
    const before = el.value;
    el.focus({ preventScroll: true });
    inputValue.call(el, v);
    const got = el.value;
    if (got !== v) {
      inputValue.call(el, before);
      return { refused: true, type: el.type, value: v, got };
    }
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { done: true, value: got };
  };

  // fillStart begins a native fill: a value input is set whole (done), any
  // other field gets focus and its content selected, for the browser to
  // replace with the inserted text.
  tw.fillStart = (h, text) => {
    const el = need(h);
    if (tw.valueInput(el)) return fillValue(el, text);
    tw.selectAll(h);
    return { done: false };
  };

  // selectOption picks one option of a native <select> without opening its
  // popup, as a person's choice would: input and change events follow.
  // resolve already waited for the option to be there and enabled.
  tw.selectOption = (h, want) => {
    const el = need(h);
    if (dom.tag(el) !== 'select') return no('not_actionable', 'not_select', '<' + dom.tag(el) + '>');
    const opts = [...el.options];
    const i = tw.pickOption(opts, want);
    if (i < 0) return { ...no('not_found', 'no_option'), options: tw.optionList(opts) };
    if (opts[i].matches(':disabled')) return no('not_actionable', 'option_disabled', 'the option is disabled');
    el.selectedIndex = i;
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    const o = el.options[el.selectedIndex];
    return { ok: el.selectedIndex === i, selected: { value: o.value, label: norm(o.label || o.textContent), index: el.selectedIndex } };
  };

  // --- scroll ----------------------------------------------------------------
  // scrollStep scrolls the held container (or the page) by dx, dy and says
  // where it ended and whether anything moved.
  tw.scrollStep = (h, dx, dy) => {
    const box = h ? need(h) : (document.scrollingElement || document.documentElement);
    const before = [box.scrollLeft, box.scrollTop];
    box.scrollBy({ left: dx, top: dy, behavior: 'instant' });
    return { x: box.scrollLeft, y: box.scrollTop, moved: box.scrollLeft !== before[0] || box.scrollTop !== before[1] };
  };
  tw.scrollPos = (h) => {
    const box = h ? need(h) : (document.scrollingElement || document.documentElement);
    return { x: box.scrollLeft, y: box.scrollTop, height: box.scrollHeight, view: box === document.scrollingElement ? innerHeight : box.clientHeight };
  };

  const intersectsViewport = (el) => {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth && r.width > 0 && r.height > 0;
  };

  // textInView: some element (matching selector, when given) whose text
  // contains text is drawn inside the viewport.
  tw.textInView = (text, selector) => {
    if (selector) return css(selector).some((el) => (el.textContent || '').includes(text) && tw.rendered(el) && intersectsViewport(el));
    const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.nodeValue.includes(text)) continue;
      const el = n.parentElement;
      if (el && tw.rendered(el) && intersectsViewport(el)) return true;
    }
    return false;
  };

  // --- wait ------------------------------------------------------------------
  const checkedState = (el) => {
    if (el.indeterminate) return 'mixed';
    if (typeof el.checked === 'boolean' && dom.tag(el) === 'input') return el.checked;
    const a = dom.attr(el, 'aria-checked') ?? dom.attr(el, 'aria-pressed');
    if (a === 'mixed') return 'mixed';
    return a === 'true';
  };
  const selectedState = (el) => (dom.tag(el) === 'option' ? el.selected : dom.attr(el, 'aria-selected') === 'true');
  const expandedState = (el) => (dom.tag(el) === 'details' ? el.open : dom.attr(el, 'aria-expanded') === 'true');
  const innerText = (el) => (el.innerText ?? el.textContent ?? '');

  // state reads what a wait condition looks at, for the answer and for the
  // last observed state on a timeout.
  const state = async (loc, cond, deadline) => {
    const els = tw.find(loc);
    if (cond === 'attached') return { count: els.length, met: els.length > 0 };
    if (cond === 'absent') return { count: els.length, met: els.length === 0 };
    if (els.length > 1 && loc.nth == null && !loc.handle && !loc.ref) {
      return { count: els.length, ambiguous: els.slice(0, 5).map(describe) };
    }
    const el = els[loc.nth ?? 0];
    if (!el) return { count: els.length, found: false };
    switch (cond) {
      case 'visible': return { visible: tw.rendered(el) };
      case 'actionable': {
        const r = await check(el, { visible: true, enabled: true, stable: true, pointer: true }, { tries: 0 }, deadline);
        return r.ok ? { actionable: true } : { actionable: false, reason: r.reason, detail: r.detail };
      }
      case 'text': return { text: innerText(el) };
      case 'value': return { value: valueOf(el) };
      case 'checked': return { checked: checkedState(el) };
      case 'selected': return { selected: selectedState(el) };
      case 'expanded': return { expanded: expandedState(el) };
    }
    return {};
  };
  const met = (cond, st, w) => {
    switch (cond) {
      case 'attached': case 'absent': return st.met;
      case 'visible': return st.visible === true;
      case 'actionable': return st.actionable === true;
      case 'text': return st.text != null && (w.previous != null ? st.text !== w.previous : st.text.includes(w.expected));
      case 'value': return st.value === w.expected;
      case 'checked': return st.checked === w.expected;
      case 'selected': return st.selected === w.expected;
      case 'expanded': return st.expanded === w.expected;
    }
    return false;
  };

  // frameOrChange resolves at the next frame, or sooner when the document
  // changes (a DOM mutation, an input or change event): a condition a
  // script's change made true holds from that moment, not from the next
  // frame, which is up to 16 ms later. Frames still wake it for what no
  // mutation announces (layout, CSS, shadow trees).
  const frameOrChange = (deadline) => new Promise((resolve) => {
    let done = false;
    const obs = new MutationObserver(() => finish(true));
    const onEvent = () => finish(true);
    const finish = (changed) => {
      if (done) return;
      done = true;
      obs.disconnect();
      document.removeEventListener('input', onEvent, true);
      document.removeEventListener('change', onEvent, true);
      resolve(changed);
    };
    obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    document.addEventListener('input', onEvent, true);
    document.addEventListener('change', onEvent, true);
    tw.nextFrame(deadline).then(() => finish(false));
  });

  // waitFor reads an element condition each time the document changes or
  // a frame passes until it holds or the time is up; either way it returns
  // the last state it saw. After a wake by a change the next read waits for
  // a frame, so a page that mutates nonstop costs at most two reads a frame.
  tw.waitFor = async (loc, w, timeoutMs) => {
    if (tw.staleRef(loc)) return { ok: false, code: 'stale_ref', state: {} };
    const deadline = performance.now() + timeoutMs;
    let changed = false;
    for (;;) {
      const st = await state(loc, w.condition, deadline);
      if (st.ambiguous) return { ok: false, code: 'ambiguous', state: st };
      if (met(w.condition, st, w)) return { ok: true, state: st };
      if (performance.now() >= deadline) return { ok: false, code: 'timeout', state: st };
      if (changed) {
        await tw.nextFrame(deadline);
        changed = false;
      } else {
        changed = await frameOrChange(deadline);
      }
    }
  };

  // --- control read ------------------------------------------------------------
  // readControl describes one control after an action: what a person would
  // check to see that the action took (its value, state, and for lists the
  // options on offer).
  tw.readControl = (h, o) => {
    const el = need(h);
    const out = { role: tw.role(el) || dom.tag(el), name: tw.cut(tw.accName(el), 200) };
    const tag = dom.tag(el);
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      if (!tw.secret(el)) out.value = el.value;
    } else if (el.isContentEditable) {
      out.value = tw.cut(innerText(el), o.maxChars);
    }
    const c = checkedState(el);
    if (c !== false || dom.has(el, 'aria-checked') || (tag === 'input' && /checkbox|radio/.test(el.type))) out.checked = c;
    if (dom.has(el, 'aria-selected') || tag === 'option') out.selected = selectedState(el);
    if (dom.has(el, 'aria-expanded') || tag === 'details') out.expanded = expandedState(el);
    if (disabled(el)) out.disabled = true;
    let options = [];
    if (tag === 'select') {
      options = [...el.options].map((op) => ({ label: norm(op.label || op.textContent), value: op.value, selected: op.selected }));
    } else {
      let popups = [];
      if (o.popup) popups = css(o.popup);
      else {
        for (const attr of ['aria-controls', 'aria-owns']) {
          for (const id of (dom.attr(el, attr) || '').split(/\s+/).filter(Boolean)) {
            const p = el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : document.getElementById(id);
            if (p) popups.push(p);
          }
        }
        if (!popups.length && /listbox|menu|combobox|tree|grid|radiogroup/.test(out.role)) popups = [el];
      }
      for (const p of popups) {
        for (const op of dom.all(p, '[role=option],[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],[role=treeitem],option')) {
          if (!tw.rendered(op) && dom.tag(op) !== 'option') continue;
          const item = { label: tw.cut(norm(op.textContent), 120) };
          const v = dom.attr(op, 'data-value') ?? dom.attr(op, 'value');
          if (v != null) item.value = v;
          item.selected = selectedState(op) || dom.attr(op, 'aria-checked') === 'true';
          options.push(item);
        }
      }
    }
    if (options.length) {
      out.options = options.slice(0, o.maxOptions);
      if (options.length > o.maxOptions) out.options_omitted = options.length - o.maxOptions;
    }
    const text = norm(innerText(el));
    if (text && text !== out.name && tag !== 'select') out.text = tw.cut(text, o.maxChars);
    return out;
  };

  // tw.selectMany(h, want): the page side of SelectMany, on the held
  // control h. A native <select multiple> gets exactly the wanted options
  // ({values} or {labels}) selected (input and change fire); a listbox
  // reports the next wanted option not yet selected, scrolled into view,
  // with the point to click it at.
  tw.selectMany = (h, want) => {
    const el = byHandle(h);
    if (!el) return {code: 'gone'};
    const match = (v, l) => want.values ? want.values.includes(v) : want.labels.includes(norm(l));
    const r = el.getBoundingClientRect();
    if (tw.dom.tag(el) === 'select') {
      if (!el.multiple) return {code: 'single'};
      const opts = [...el.options];
      const hit = opts.filter((o) => match(o.value, o.label || o.textContent));
      if (hit.some((o) => o.disabled)) return {code: 'disabled'};
      opts.forEach((o) => { o.selected = hit.includes(o); });
      el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
      el.dispatchEvent(new Event('change', {bubbles: true}));
      return {native: true, rect: [r.x, r.y], selected: opts.filter((o) => o.selected).map((o) => ({value: o.value, label: norm(o.label || o.textContent)})),
        options: opts.slice(0, 20).map((o) => ({value: o.value, label: norm(o.label || o.textContent)}))};
    }
    if (tw.role(el) !== 'listbox') return {code: 'kind'};
    const opts = [...el.querySelectorAll('[role=option]')];
    const info = (o) => ({value: o.getAttribute('data-value') || o.id || '', label: norm(tw.accName(o))});
    const selected = opts.filter((o) => o.getAttribute('aria-selected') === 'true').map(info);
    const next = opts.find((o) => match(info(o).value, info(o).label) && o.getAttribute('aria-selected') !== 'true');
    let point = null;
    if (next) {
      next.scrollIntoView({block: 'nearest', inline: 'nearest', behavior: 'instant'});
      const b = next.getBoundingClientRect();
      const x = b.x + b.width / 2, y = b.y + b.height / 2;
      const at = document.elementFromPoint(x, y);
      point = {x, y, covered: !(at && (at === next || next.contains(at))) ? (at ? at.tagName.toLowerCase() : 'nothing') : ''};
    }
    return {rect: [r.x, r.y], selected, point, options: opts.slice(0, 20).map(info)};
  };

  // A native (HTML5) drag: the engine asks Chromium to hand it the drag
  // instead of starting one (Input.setInterceptDrags), and must know
  // whether the page started one at all. watchDragStart listens for the
  // next dragstart, dragStarted says whether it came and was not
  // prevented (read after the move that may start it has been handled).
  tw.watchDragStart = () => {
    const seen = { started: false };
    const on = (ev) => { seen.started = true; seen.ev = ev; };
    addEventListener('dragstart', on, { capture: true, once: true });
    tw.dragSeen = () => {
      removeEventListener('dragstart', on, { capture: true });
      return seen.started && !seen.ev.defaultPrevented;
    };
    return true;
  };
  tw.dragStarted = () => (tw.dragSeen ? tw.dragSeen() : false);

  tw.actVersion = 11;
})();
