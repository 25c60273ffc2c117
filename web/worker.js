// The engine in a Web Worker (a module worker), so that the page never freezes while it thinks.
//
// Messages in:  {id, op: "init", wasm, book, module?, bookBytes?, lock?, hash_mb?, stop?}: hold
//               the Web Lock `lock` for as long as this worker lives (the page waits for its
//               release before it starts another in its place), fetch and compile the engine
//               (vier.wasm.gz; or take the compiled `module`), fetch the book (7x6.book.gz; or
//               take its unpacked `bookBytes`), load it, size the tables (`hash_mb`); `stop`: a
//               SharedArrayBuffer (a cross-origin isolated page only) through which the page
//               stops searches (below);
//               {id, op: "think" | "analyse" | "solve" | "clear" | "info", ...}: one request
//               (docs/web.md).
// Messages out: {id, compiled}: the module, compiled here (off the page's thread), as soon as
//               it is, for the page's own instance;
//               {id, progress}: a finished depth of a search, as it happens;
//               {id, result} or {id, error}: the answer; the init's result also carries the
//               compiled `module` and the `bookBytes`, for the next worker.
//
// A call runs to its end: a busy worker reads no message. Where the page shares the `stop`
// buffer, it writes there the id up to which requests are stopped: the engine's clock (its
// `now`, which every search consults as it polls its deadlines) then reads as far past any
// deadline, so the search under way answers at once, and stopped requests still waiting are
// answered without running. Elsewhere the page ends the worker and starts another with the
// module and the book it got (web/engine.js does).

import { compile, gunzip, instantiate } from "./wasm.js";

let engine = null;
let module = null;
let bookBytes = null;
let bookInfo = null;
let hashMb = null;
// the page's stop mark: requests with an id up to it are stopped
let stop = null;
// the request a progress report belongs to
let current = null;
// requests wait for the ones before them (init fetches)
let queue = Promise.resolve();

const stopped = (id) => stop !== null && id !== null && Atomics.load(stop, 0) >= id;

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${response.statusText}`);
  return response.arrayBuffer();
}

async function start() {
  engine = await instantiate(module, {
    onProgress: (progress) => postMessage({ id: current, progress }),
    // a stopped search's deadlines have all passed
    now: () => performance.now() + (stopped(current) ? 1e9 : 0),
  });
  bookInfo = null;
  if (bookBytes) {
    bookInfo = engine.loadBook(new Uint8Array(bookBytes));
    if (bookInfo.error) throw new Error(`the book: ${bookInfo.error}`);
  }
  // the engine's tables are allocated now, not at the first move
  const cleared = engine.call({ op: "clear", hash_mb: hashMb });
  if (cleared.error) throw new Error(cleared.error);
}

// Holds the lock `name` until this worker ends; resolves once it is held.
function hold(name) {
  if (!name || !navigator.locks) return Promise.resolve();
  return new Promise((held) => {
    navigator.locks.request(name, () => {
      held();
      return new Promise(() => {});
    });
  });
}

async function init(msg) {
  await hold(msg.lock);
  hashMb = msg.hash_mb ?? null;
  stop = msg.stop ? new Int32Array(msg.stop) : null;
  if (msg.module) {
    module = msg.module;
  } else {
    module = await compile(await fetchBytes(msg.wasm ?? "vier.wasm.gz"));
    postMessage({ id: msg.id, compiled: module });
  }
  bookBytes = msg.bookBytes ?? (msg.book ? (await gunzip(await fetchBytes(msg.book))).buffer : null);
  await start();
  // the page keeps both for the next worker (a copy of the book: 2 MB, once); what the worker
  // fetched is in its own performance timeline, not the page's: it is listed for the page
  const fetched = performance.getEntriesByType("resource").map((e) => e.name);
  const memory = engine.memoryBytes();
  return { result: { book: bookInfo, fetched, memory }, module, bookBytes };
}

async function handle(msg) {
  if (msg.op === "init") return init(msg);
  if (!engine) throw new Error("the worker was not started: send init first");
  if (stopped(msg.id)) return { error: "stopped" };
  // a failed instance is replaced before the next request (its state may be half-changed)
  if (engine.broken) await start();
  current = msg.id;
  try {
    const { id, ...request } = msg;
    const answer = engine.call(request);
    return answer.error !== undefined ? { error: answer.error } : { result: answer };
  } finally {
    current = null;
  }
}

self.onmessage = ({ data }) => {
  queue = queue.then(async () => {
    try {
      postMessage({ id: data.id, ...(await handle(data)) });
    } catch (e) {
      postMessage({ id: data.id, error: String(e.message ?? e) });
    }
  });
};
