// The vier engine's WebAssembly module (web/engine, built by tools/web.sh) seen from
// JavaScript: no wasm-bindgen, no generated glue. The module exports alloc/dealloc, load_book
// and call (JSON in, JSON out); it imports env.now_ms (the clock) and env.progress (a JSON
// report during a search). docs/web.md lists the requests. Used by web/worker.js in the
// browser and by node scripts (tools/wasm_bench.mjs, tests/web/check.mjs) as it is.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// The compiled module from the bytes of vier.wasm or vier.wasm.gz.
export async function compile(bytes) {
  return WebAssembly.compile(await gunzip(bytes));
}

// The bytes of a file that may be gzipped (the folder holds vier.wasm.gz and 7x6.book.gz:
// half the size). A server that sent it with Content-Encoding: gzip has already unpacked it,
// so the bytes are unpacked only if they start as gzip does.
export async function gunzip(bytes) {
  const view = new Uint8Array(bytes);
  if (view[0] !== 0x1f || view[1] !== 0x8b) return view;
  if (typeof DecompressionStream === "undefined") {
    throw new Error("this browser cannot unpack gzip (DecompressionStream): Chrome 80, Firefox 113, Safari 16.4 or later can");
  }
  const stream = new Blob([view]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// An instance of the compiled `module`: `{call(request), loadBook(bytes)}`. `onProgress` gets
// every report of a search as an object; `now` is the clock in milliseconds.
export async function instantiate(module, { onProgress = () => {}, now = () => performance.now() } = {}) {
  let memory = null;
  // a panic's message, reported by the module just before it traps
  let panic = null;
  const text = (ptr, len) => decoder.decode(new Uint8Array(memory.buffer, ptr, len));
  const instance = await WebAssembly.instantiate(module, {
    env: {
      now_ms: now,
      progress(ptr, len) {
        const report = JSON.parse(text(ptr, len));
        if (report.panic !== undefined) {
          panic = report.panic;
        } else {
          onProgress(report);
        }
      },
    },
  });
  const x = instance.exports;
  memory = x.memory;
  // bytes into the module's memory (the view is made after alloc: memory may have grown)
  const put = (bytes) => {
    const ptr = x.alloc(bytes.length);
    new Uint8Array(memory.buffer, ptr, bytes.length).set(bytes);
    return ptr;
  };
  // an answer packed as ptr << 32 | len, read and handed back
  const take = (packed) => {
    const ptr = Number(packed >> 32n);
    const len = Number(packed & 0xffffffffn);
    const answer = text(ptr, len);
    x.dealloc(ptr, len);
    return JSON.parse(answer);
  };
  // a trap is a bug in the engine, never bad input: say so, with the panic's message
  let broken = null;
  const guarded = (run) => {
    if (broken) throw new Error(`the engine stopped working earlier: ${broken}`);
    try {
      return run();
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) {
        broken = panic ?? e.message;
        throw new Error(`the engine failed: ${broken}`);
      }
      throw e;
    }
  };
  return {
    // One request (an object with `op`); its answer, `{error}` for a bad request.
    call(request) {
      return guarded(() => {
        const bytes = encoder.encode(JSON.stringify(request));
        return take(x.call(put(bytes), bytes.length));
      });
    },
    // An opening book file's bytes (a Uint8Array): what it holds, or `{error}`.
    loadBook(bytes) {
      return guarded(() => take(x.load_book(put(bytes), bytes.length)));
    },
    // True once a call has trapped: the instance must be replaced.
    get broken() {
      return broken !== null;
    },
    // The instance's memory now, in bytes (its tables, the book, the game).
    memoryBytes() {
      return memory.buffer.byteLength;
    },
  };
}
