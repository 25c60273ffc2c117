// The backend of the page without a server (tools/web.sh puts it in the folder as backend.js,
// where `vier gui` serves src/gui/web/server.js): the same `window.vierBackend` for the same
// page (src/gui/web/app.js), with everything in this browser.
//
// The game is `vier gui`'s own state machine (vier::gui::game), in an instance of the engine's
// WebAssembly module on this thread: it takes the page's changes and answers the snapshots the
// page draws, and it says which searches the engine should run (web/engine/src/game.rs). It
// never searches here, so the page never freezes. The searches run in Web Workers
// (web/engine.js, web/worker.js), one search a worker: the engine's moves in the first, the
// columns of an analysis and the positions of a review in as many as the machine has cores
// (and memory: see `lanes`). Searches no longer wanted (the person took a move back, changed a
// setting) are stopped (VierEngine.stop: at once through shared memory where the page is
// cross-origin isolated, else by ending the worker); the next searches take the free workers.
//
// Once the engine is ready, a service worker (sw.js) keeps the folder's files for a reload
// without the network.
"use strict";

window.vierBackend = (() => {
  const here = document.currentScript.src;
  let game = null; // the game's instance: {call(request)}
  let module = null; // the compiled engine, for every worker
  let VierEngine = null;
  // the workers: {engine, key, memory} (key: the search it runs, null when free; memory: its
  // instance's bytes once started)
  const lanes = [];
  let onState = () => {};
  let latest = null; // the latest snapshot, for a listener that comes late
  let loading = null;
  let failure = "";

  // How many workers may search at once: one a core, within a sixteenth of the device's
  // memory (navigator.deviceMemory, Chrome's; 4 GB where the browser does not say), at most 8.
  // The first worker's tables take 32 MB (the engine's default), each other's HELPER_MB; each
  // worker holds the book (2.4 MB) and a few MB more. `?workers=N` asks for N (measurements).
  const HELPER_MB = 16;
  const laneCount = (() => {
    const asked = Number(new URLSearchParams(location.search).get("workers"));
    if (asked >= 1) return Math.min(Math.floor(asked), 8);
    const cores = navigator.hardwareConcurrency || 1;
    const budgetMb = ((navigator.deviceMemory || 4) * 1024) / 16;
    const byMemory = 1 + Math.floor((budgetMb - 40) / (HELPER_MB + 8));
    return Math.max(1, Math.min(cores, byMemory, 8));
  })();

  function call(op, params = {}) {
    const out = game.call({ ...params, op });
    if (out.error !== undefined) throw new Error(out.error);
    return out;
  }

  // An outcome of the game: draw it, stop the searches no longer wanted, start the next ones.
  function apply(out) {
    if (out.stop) {
      for (const lane of lanes) {
        if (lane.key !== null) {
          lane.engine.stop();
          lane.key = null;
        }
      }
    }
    for (const { key, request } of out.searches) search(key, request);
    latest = out.snapshot;
    onState(out.snapshot);
    return out.snapshot;
  }

  // Where a stop ends the worker (the page is not cross-origin isolated: the first visit,
  // before the service worker serves it), the next search of that worker waits until the old
  // one has ended, up to 2 s in Chromium. So there, with two workers or more, the first is kept
  // for the engine's moves: a move never waits for the end of an analysis it stopped (issue 76:
  // each move of 12x4 and 5x13 took 3 s at a thinking time of 1 s).
  const keepFirst = !(globalThis.crossOriginIsolated && typeof SharedArrayBuffer === "function") &&
    laneCount > 1;

  // A free worker for a search: the first for the engine's moves (its tables are the largest
  // and learn from move to move; another free one while the first is being replaced), else any
  // free one (not the first where it is kept for moves), else a new one.
  function lane(request) {
    const move = request.multipv === 1 && !request.searchmoves;
    const up = (l) => l.key === null && !l.engine.replacing;
    if (move && up(lanes[0])) return lanes[0];
    if (move) {
      const other = lanes.find(up);
      if (other) return other;
      if (lanes[0].key === null) return lanes[0];
    }
    const free = lanes.find((l, i) => l.key === null && !(keepFirst && i === 0 && !move));
    if (free) return free;
    const l = {
      engine: new VierEngine({
        module,
        bookBytes: lanes[0].engine.bookBytes,
        hashMb: HELPER_MB,
        name: `lane ${lanes.length}`,
      }),
      key: null,
      memory: null,
    };
    l.engine.ready.then((info) => { l.memory = info.memory; }, () => {});
    lanes.push(l);
    return l;
  }

  function search(key, request) {
    const l = lane(request);
    l.key = key;
    const report = (progress) => {
      if (l.key === key) apply(call("game_report", { key, report: progress }));
    };
    l.engine.think(request, report).then(
      (answer) => {
        // a stopped search's answer is the game's no more: it asked for the stop
        if (answer.stopped || l.key !== key) return;
        l.key = null;
        apply(call("game_searched", { key, answer }));
      },
      (e) => {
        if (String(e.message) === "stopped" || l.key !== key) return;
        l.key = null;
        apply(call("game_failed", { key, message: String(e.message ?? e) }));
        // the worker replaces a failed instance itself; the job is tried again in a second
        setTimeout(() => apply(call("game_engine", { state: "ready" })), 1000);
      },
    );
  }

  // The service worker that keeps the folder's files for a reload without the network; a
  // newer build that takes over reloads the page (the game is kept), so that no page runs
  // files of two builds.
  function offline() {
    if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
    const controlled = !!navigator.serviceWorker.controller;
    navigator.serviceWorker.addEventListener("controllerchange", () => {
      if (controlled) location.reload();
    });
    navigator.serviceWorker.register(new URL("sw.js", here)).catch((e) => {
      console.warn("no service worker, so no reload without the network:", e);
    });
  }

  // Lets the browser run whatever waits (a paint, an event) before the next step.
  const breathe = () => new Promise((resolve) => setTimeout(resolve, 0));

  async function load() {
    if (location.protocol === "file:") {
      throw new Error("opened as a file");
    }
    const { instantiate } = await import(new URL("wasm.js", here).href);
    ({ VierEngine } = await import(new URL("engine.js", here).href));
    // the first worker fetches, unpacks and compiles the module (none of it on this thread)
    // and hands it back; this thread's instance and every other worker share it
    const engine = new VierEngine({ name: "lane 0" });
    lanes.push({ engine, key: null, memory: null });
    module = await engine.compiled;
    await breathe();
    game = await instantiate(module);
    await breathe();
    const seed = crypto.getRandomValues(new Uint32Array(1))[0];
    // the game runs as many searches at once as there are workers for them
    const first = call("game_new", { seed, lanes: keepFirst ? laneCount - 1 : laneCount });
    latest = first.snapshot;
    // for the browser tests and the curious: the engine, its workers, what the first fetched
    window.vierEngine = lanes[0].engine;
    window.vierLanes = lanes;
    lanes[0].engine.ready.then(
      (info) => {
        window.vierWorkerFetched = info.fetched;
        lanes[0].memory = info.memory;
        apply(call("game_engine", { state: "ready" }));
        offline();
      },
      (e) => apply(call("game_engine", { state: "error", message: String(e.message ?? e) })),
    );
    return first.snapshot;
  }

  return {
    // Why there is no game, for the page to say.
    get unreachable() {
      if (location.protocol === "file:") {
        return "This page must be served, not opened as a file: browsers start the engine's " +
          "worker only for pages from a server. In its folder run `python3 -m http.server`, " +
          "then open http://localhost:8000/ (any static file server will do).";
      }
      return `Cannot start a game: the engine did not load in this browser (${failure}).`;
    },

    // The game's snapshot (a new game's: `fresh`, the page may restore the one it kept); null
    // when the engine cannot load.
    async open(fresh) {
      if (!loading) loading = load();
      let snapshot;
      try {
        snapshot = await loading;
        // the page draws it in a task of its own
        await breathe();
      } catch (e) {
        console.error(e);
        failure = String(e.message ?? e);
        loading = null;
        return null;
      }
      const snap = fresh ? apply(call("game_request", { what: "new", body: "" })) : snapshot;
      return { ...snap, fresh: true };
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
