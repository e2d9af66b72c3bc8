// The web classes and `Intl` are defined on first use: most extensions never
// touch them, and an engine starts per extension. Each name is a getter until
// one of its group is read; then the group's script runs and defines them all.
// Evaluated once per realm, after Node's globals, with the host functions
// that compile and run pi's web.js and intl.js, and the realm's config.
(function (loadWeb, loadIntl, config) {
  "use strict";
  const WEB = [
    "Event", "CustomEvent", "EventTarget", "Headers", "Blob", "File", "ReadableStream", "WritableStream",
    "TransformStream", "TextDecoderStream", "TextEncoderStream", "Response", "Request", "fetch", "WebSocket",
    "MessageChannel", "BroadcastChannel", "navigator",
  ];
  function lazy(names, load) {
    const pending = names.filter((n) => globalThis[n] === undefined);
    let loaded = false;
    const run = () => {
      if (loaded) return;
      loaded = true;
      for (const n of pending) delete globalThis[n];
      load();
    };
    for (const name of pending) {
      Object.defineProperty(globalThis, name, {
        configurable: true,
        enumerable: false,
        get() {
          run();
          return globalThis[name];
        },
        set(value) {
          run();
          Object.defineProperty(globalThis, name, { value, configurable: true, enumerable: false, writable: true });
        },
      });
    }
  }
  lazy(WEB, () => loadWeb(config));
  lazy(["Intl"], loadIntl);
});
