// watch.js: the change journal of a watched document. A MutationObserver
// counts DOM changes (nodes, attributes, text) and input/change listeners
// count what users type and pick, which the DOM does not record. The journal
// lives in the isolated world, so a new document starts without one: the
// engine reads that as "navigated" and sends a full observation. Needs
// core.js. Installs tw.journal() (and tw.watchedObserve, below): start the journal if needed and return
// {fresh, changes} — fresh when it was just started, changes since the last
// call — then reset the count.
(() => {
  'use strict';
  const WATCH_VERSION = 2;
  const tw = globalThis.__tabwright;
  if (tw.watchVersion === WATCH_VERSION) return;

  tw.journal = () => {
    if (!tw.watching) {
      const w = { changes: 0 };
      w.observer = new MutationObserver((records) => { w.changes += records.length; });
      w.observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      const bump = () => { w.changes++; };
      document.addEventListener('input', bump, true);
      document.addEventListener('change', bump, true);
      tw.watching = w;
      return { fresh: true, changes: 0 };
    }
    const w = tw.watching;
    w.changes += w.observer.takeRecords().length;
    const out = { fresh: false, changes: w.changes };
    w.changes = 0;
    return out;
  };

  // tw.watchedObserve(opts): the journal first, then the observation with
  // the journal on it; a quiet document since the last call is not read at
  // all. Needs observe.js.
  tw.watchedObserve = (opts) => {
    const j = tw.journal();
    if (!j.fresh && j.changes === 0) return { quiet: true, journal: j };
    const r = tw.observe(opts);
    r.journal = j;
    return r;
  };

  tw.watchVersion = WATCH_VERSION;
})();
