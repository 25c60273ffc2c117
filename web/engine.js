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

export class VierEngine {
  constructor({
    worker = new URL("./worker.js", import.meta.url),
    wasm = new URL("./vier.wasm.gz", import.meta.url).href,
    book = new URL("./7x6.book.gz", import.meta.url).href,
    module = null,
  } = {}) {
    this.workerUrl = worker;
    this.source = { wasm, book };
    // the compiled module (given, or once the first worker has compiled it) and the book's
    // bytes, once the first worker has them
    this.module = module;
    this.bookBytes = null;
    this.nextId = 1;
    this.pending = new Map();
    this.restarts = 0;
    this.ready = this.#start();
  }

  #start() {
    this.worker = new Worker(this.workerUrl, { type: "module" });
    this.worker.onmessage = ({ data }) => this.#receive(data);
    this.worker.onerror = (e) => this.#fail(new Error(`the engine's worker failed: ${e.message ?? e}`));
    const init = {
      ...(this.module ? { module: this.module } : { wasm: this.source.wasm }),
      ...(this.bookBytes ? { bookBytes: this.bookBytes } : { book: this.source.book }),
    };
    return this.#send("init", init);
  }

  #send(op, params, onProgress) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { op, resolve, reject, onProgress, last: null });
      this.worker.postMessage({ ...params, id, op });
    });
  }

  #receive(data) {
    const p = this.pending.get(data.id);
    if (!p) return;
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

  // A request: {op, ...}; `onProgress` gets the reports of a search.
  async request(op, params = {}, onProgress = null) {
    await this.ready;
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

  // Ends whatever runs (see above) and starts a fresh worker; the promise is the new
  // worker's readiness. An idle worker is kept, with what its tables learnt.
  stop() {
    if (this.pending.size === 0) return this.ready;
    this.worker.terminate();
    this.restarts++;
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
    this.ready = this.#start();
    return this.ready;
  }

  // Ends the worker for good.
  terminate() {
    this.worker.terminate();
    this.#fail(new Error("the engine was terminated"));
  }
}
