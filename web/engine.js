// The page's side of the engine in the browser: a VierEngine owns a worker (web/worker.js),
// sends it requests and returns promises, streams a search's reports to a callback, and stops a
// search by ending the worker.
//
//   import { VierEngine } from "./engine.js";
//   const engine = new VierEngine();
//   await engine.ready;                        // {book: {size, depth, positions}}
//   const move = await engine.think({size: "7x6", moves: "44", movetime_ms: 1000},
//                                   (p) => show(p.depth, p.score, p.pv));
//   engine.stop();                             // the think answers with its last report
//
// Why stop ends the worker: a worker busy in a WebAssembly call reads no message until the call
// returns, and the engine's search is one call. So stop() terminates the worker, answers a
// think with the best move of its last report (`stopped: true`) and any other request with an
// error, and starts a fresh worker from the compiled module and the book bytes the first one
// handed back: no second download or compile, a few milliseconds. What the old worker's tables
// had learnt is lost (a stopped search is rare: a new game, a move taken back).
//
// The fresh worker starts only once the old one has ended: each worker holds a Web Lock named
// after it (navigator.locks) as long as it lives, so the lock's release is the old worker's
// report that it has ended, and no engine ever has two workers alive (nor their memory).
// Chromium ends a worker busy in WebAssembly only 2 s after terminate(), so this costs the next
// search up to 2 s.
//
// A cross-origin isolated page (every load after the first, through the folder's service
// worker, which adds the headers) stops a search without ending its worker: the page writes
// the id up to which requests are stopped into a SharedArrayBuffer the worker reads as the
// engine's clock ticks (web/worker.js); the search answers within its next poll of the clock,
// the worker reports the stopped search's end, and keeps its tables.

// Workers of this page so far: each gets its own lock name (locks are the origin's: the page's
// own mark tells them from another tab's).
let workers = 0;
const page = Math.random().toString(36).slice(2, 10);

export class VierEngine {
  constructor({
    worker = new URL("./worker.js", import.meta.url),
    wasm = new URL("./vier.wasm.gz", import.meta.url).href,
    book = new URL("./7x6.book.gz", import.meta.url).href,
    module = null,
    bookBytes = null,
    // the tables' megabytes (the engine's default if null)
    hashMb = null,
    // a name for this engine's workers' locks
    name = "vier",
  } = {}) {
    this.workerUrl = worker;
    this.source = { wasm, book };
    // the compiled module (given, or once the first worker has compiled it) and the book's
    // bytes (given, or once the first worker has them)
    this.module = module;
    this.bookBytes = bookBytes;
    this.hashMb = hashMb;
    this.name = name;
    this.lock = null;
    this.nextId = 1;
    this.pending = new Map();
    // workers ended by stop(), and searches stopped without (each reported by its worker)
    this.restarts = 0;
    this.stops = [];
    // bumped by every stop(): a request still waiting for the worker when it comes is never sent
    this.generation = 0;
    // a worker ended by stop() is being replaced (the next request waits for it)
    this.replacing = false;
    // the stop mark the worker reads, where memory can be shared with it
    this.stopMark = globalThis.crossOriginIsolated && typeof SharedArrayBuffer === "function"
      ? new Int32Array(new SharedArrayBuffer(4)) : null;
    this.stopping = null;
    this.ready = this.#start();
    // the compiled module: given, or once the first worker has compiled it
    this.compiled = module ? Promise.resolve(module) : Promise.race([
      new Promise((resolve) => { this.onCompiled = resolve; }),
      this.ready.then(() => this.module),
    ]);
  }

  #start() {
    this.worker = new Worker(this.workerUrl, { type: "module" });
    this.worker.onmessage = ({ data }) => this.#receive(data);
    this.worker.onerror = (e) => this.#fail(new Error(`the engine's worker failed: ${e.message ?? e}`));
    this.lock = `vier-worker ${page} ${this.name} ${++workers}`;
    const init = {
      ...(this.module ? { module: this.module } : { wasm: this.source.wasm }),
      ...(this.bookBytes ? { bookBytes: this.bookBytes } : { book: this.source.book }),
      lock: this.lock,
      hash_mb: this.hashMb,
      stop: this.stopMark ? this.stopMark.buffer : null,
    };
    return this.#send("init", init);
  }

  // Waits until the worker that held `lock` has ended (at once where there are no Web Locks).
  static async ended(lock) {
    if (lock && globalThis.navigator?.locks) await navigator.locks.request(lock, () => {});
  }

  #send(op, params, onProgress) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { op, resolve, reject, onProgress, last: null });
      this.worker.postMessage({ ...params, id, op });
    });
  }

  #receive(data) {
    if (data.compiled) {
      this.module = data.compiled;
      if (this.onCompiled) this.onCompiled(data.compiled);
      return;
    }
    const p = this.pending.get(data.id);
    if (!p) {
      // the answer of a search stopped without ending the worker: its end, reported
      const s = this.stopping;
      if (s && data.id === s.busy && data.progress === undefined) {
        this.stops.push({ id: data.id, ms: performance.now() - s.at });
        this.stopping = null;
      }
      return;
    }
    if (data.progress) {
      p.last = data.progress;
      if (p.onProgress) p.onProgress(data.progress);
      return;
    }
    this.pending.delete(data.id);
    if (data.module) {
      this.module = data.module;
      this.bookBytes = data.bookBytes;
    }
    if (data.error !== undefined) p.reject(new Error(data.error));
    else p.resolve(data.result);
  }

  #fail(error) {
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }

  // A request: {op, ...}; `onProgress` gets the reports of a search. One that a stop() overtakes
  // while it waits for the worker is answered as stopped and never sent (issue 76: a stopped
  // analysis, sent once its replaced worker was up, held the engine's next move for 30 s).
  async request(op, params = {}, onProgress = null) {
    const generation = this.generation;
    await this.ready;
    if (generation !== this.generation) {
      if (op === "think") return { column: null, move: null, stopped: true };
      throw new Error("stopped");
    }
    return this.#send(op, params, onProgress);
  }

  // The engine's move: {column, move, score, exact, depth, nodes, time_ms, pv, ...}.
  think(params, onProgress) {
    return this.request("think", params, onProgress);
  }

  // The exact score of every column ({columns, legal, complete, time_ms}).
  analyse(params) {
    return this.request("analyse", params);
  }

  // One position's exact score without the book ({score, nodes, time_ms}).
  solve(params) {
    return this.request("solve", params);
  }

  // Forget what earlier searches learnt (a new game).
  clear() {
    return this.request("clear");
  }

  // The sizes, the levels and their Elo, the book.
  info() {
    return this.request("info");
  }

  // Stops whatever runs (see above): a think answers with its last report's move, anything
  // else fails with "stopped". The promise is the engine's readiness for the next request. An
  // idle worker is kept, with what its tables learnt.
  stop() {
    this.generation++;
    if (this.pending.size === 0) return this.ready;
    const ids = [...this.pending.keys()];
    const cooperative = this.stopMark !== null &&
      [...this.pending.values()].every((p) => p.op !== "init");
    for (const p of this.pending.values()) {
      if (p.op === "think" && p.last) {
        p.resolve({ ...p.last, stopped: true });
      } else if (p.op === "think") {
        p.resolve({ column: null, move: null, stopped: true });
      } else {
        p.reject(new Error("stopped"));
      }
    }
    this.pending.clear();
    if (cooperative) {
      // the request running is the oldest pending one; those after it are skipped
      Atomics.store(this.stopMark, 0, Math.max(...ids));
      this.stopping = { busy: Math.min(...ids), at: performance.now() };
      return this.ready;
    }
    this.worker.terminate();
    const old = this.lock;
    this.restarts++;
    this.replacing = true;
    this.ready = VierEngine.ended(old).then(() => this.#start());
    this.ready.then(() => { this.replacing = false; }, () => { this.replacing = false; });
    return this.ready;
  }

  // Ends the worker for good.
  terminate() {
    this.worker.terminate();
    this.#fail(new Error("the engine was terminated"));
  }
}
