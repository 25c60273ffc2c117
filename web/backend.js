// The backend of the page without a server (tools/web.sh puts it in the folder as backend.js,
// where `vier gui` serves src/gui/web/server.js): the same `window.vierBackend` for the same
// page (src/gui/web/app.js), with everything in this browser.
//
// The game is `vier gui`'s own state machine (vier::gui::state), in an instance of the engine's
// WebAssembly module on this thread: it takes the page's changes and answers the snapshots the
// page draws, and it says which search the engine should run (web/engine/src/game.rs). It never
// searches here, so the page never freezes. The searches run in a Web Worker (web/engine.js,
// web/worker.js); a search no longer wanted (the person took a move back, changed a setting)
// is stopped by ending the worker, and a fresh one takes the next.
"use strict";

window.vierBackend = (() => {
  const here = document.currentScript.src;
  let game = null; // the game's instance: {call(request)}
  let engine = null; // the VierEngine
  let onState = () => {};
  let latest = null; // the latest snapshot, for a listener that comes late
  let loading = null;

  function call(op, params = {}) {
    const out = game.call({ ...params, op });
    if (out.error !== undefined) throw new Error(out.error);
    return out;
  }

  // An outcome of the game: draw it, stop the search that is no longer wanted, start the next.
  function apply(out) {
    if (out.stop) engine.stop();
    if (out.search) search(out.key, out.search);
    latest = out.snapshot;
    onState(out.snapshot);
    return out.snapshot;
  }

  function search(key, request) {
    const report = (progress) => apply(call("game_report", { key, report: progress }));
    engine.think(request, report).then(
      (answer) => {
        // a stopped search's answer is the game's no more: it asked for the stop
        if (!answer.stopped) apply(call("game_searched", { key, answer }));
      },
      (e) => {
        if (String(e.message) === "stopped") return;
        apply(call("game_failed", { key, message: String(e.message ?? e) }));
        // the worker replaces a failed instance itself; the job is tried again in a second
        setTimeout(() => apply(call("game_engine", { state: "ready" })), 1000);
      },
    );
  }

  async function load() {
    const { compile, instantiate } = await import(new URL("wasm.js", here).href);
    const { VierEngine } = await import(new URL("engine.js", here).href);
    const response = await fetch(new URL("vier.wasm.gz", here));
    if (!response.ok) throw new Error(`vier.wasm.gz: ${response.status}`);
    // compiled once: this thread's instance and every worker share it
    const module = await compile(await response.arrayBuffer());
    game = await instantiate(module);
    const seed = crypto.getRandomValues(new Uint32Array(1))[0];
    const first = call("game_new", { seed });
    latest = first.snapshot;
    engine = new VierEngine({ module });
    // for the browser tests and the curious: the engine, and what its worker fetched
    window.vierEngine = engine;
    engine.ready.then(
      (info) => {
        window.vierWorkerFetched = info.fetched;
        apply(call("game_engine", { state: "ready" }));
      },
      (e) => apply(call("game_engine", { state: "error", message: String(e.message ?? e) })),
    );
    return first.snapshot;
  }

  return {
    unreachable: "Cannot start a game: the engine did not load in this browser.",

    // The game's snapshot, or a new game's; null when the engine cannot load.
    async open(fresh) {
      if (!loading) loading = load();
      let snapshot;
      try {
        snapshot = await loading;
      } catch (e) {
        console.error(e);
        loading = null;
        return null;
      }
      return fresh ? apply(call("game_request", { what: "new", body: "" })) : snapshot;
    },

    // A change: {ok, snapshot} or {ok: false, error}.
    async post(path, body) {
      const out = game.call({
        op: "game_request",
        what: path,
        body: body === undefined ? "" : JSON.stringify(body),
      });
      if (out.error !== undefined) return { ok: false, error: out.error };
      return { ok: true, snapshot: apply(out) };
    },

    // Every later snapshot: the engine's reports and moves.
    listen(callback) {
      onState = callback;
      if (latest) callback(latest);
    },
  };
})();
