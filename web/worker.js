// The engine in a Web Worker (a module worker), so that the page never freezes while it thinks.
//
// Messages in:  {id, op: "init", wasm, book, module?, bookBytes?}: fetch and compile the engine
//               (vier.wasm.gz; or take the compiled `module`), fetch the book (7x6.book.gz; or
//               take its unpacked `bookBytes`), load it;
//               {id, op: "think" | "analyse" | "solve" | "clear" | "info", ...}: one request
//               (docs/web.md).
// Messages out: {id, progress}: a finished depth of a search, as it happens;
//               {id, result} or {id, error}: the answer; the init's result also carries the
//               compiled `module` and the `bookBytes`, for the next worker.
//
// A call runs to its end: a busy worker reads no message. To stop a search, the page ends the
// worker and starts another with the module and the book it got (web/engine.js does).

import { compile, gunzip, instantiate } from "./wasm.js";

let engine = null;
let module = null;
let bookBytes = null;
let bookInfo = null;
// the request a progress report belongs to
let current = null;
// requests wait for the ones before them (init fetches)
let queue = Promise.resolve();

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${response.statusText}`);
  return response.arrayBuffer();
}

async function start() {
  engine = await instantiate(module, {
    onProgress: (progress) => postMessage({ id: current, progress }),
  });
  bookInfo = null;
  if (bookBytes) {
    bookInfo = engine.loadBook(new Uint8Array(bookBytes));
    if (bookInfo.error) throw new Error(`the book: ${bookInfo.error}`);
  }
  // the engine's tables are allocated now, not at the first move
  engine.call({ op: "clear" });
}

async function init(msg) {
  module = msg.module ?? (await compile(await fetchBytes(msg.wasm ?? "vier.wasm.gz")));
  bookBytes = msg.bookBytes ?? (msg.book ? (await gunzip(await fetchBytes(msg.book))).buffer : null);
  await start();
  // the page keeps both for the next worker (a copy of the book: 2 MB, once); what the worker
  // fetched is in its own performance timeline, not the page's: it is listed for the page
  const fetched = performance.getEntriesByType("resource").map((e) => e.name);
  return { result: { book: bookInfo, fetched }, module, bookBytes };
}

async function handle(msg) {
  if (msg.op === "init") return init(msg);
  if (!engine) throw new Error("the worker was not started: send init first");
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
