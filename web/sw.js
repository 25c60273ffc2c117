// The page's service worker: it keeps the folder's files, so that a reload without the network
// still plays and analyses. tools/web.sh writes the build's files into it, each with its
// SHA-256, and the build's hash (of all of them): a new build is a new service worker with a
// cache of its own, filled whole and checked file by file before it takes over, and the old
// build's cache is deleted then. A build's cache never holds another build's file.
//
// Every answer it gives carries the headers that make the page cross-origin isolated (COOP
// same-origin, COEP require-corp; the folder loads nothing from elsewhere), which no static
// host needs to set: an isolated page shares memory with its workers, and so stops a search
// at once without ending its worker (web/engine.js).
"use strict";

const BUILD = "/*BUILD*/";
// [name, sha256] of every file of the folder but this one
const FILES = /*FILES*/ [];
const CACHE = `vier-${BUILD}`;

const hex = (buffer) =>
  [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    for (const [name, sha256] of FILES) {
      // past the browser's HTTP cache (revalidated), and checked against the build
      const response = await fetch(new Request(name, { cache: "no-cache" }));
      if (!response.ok) throw new Error(`${name}: ${response.status}`);
      const digest = hex(await crypto.subtle.digest("SHA-256", await response.clone().arrayBuffer()));
      if (digest !== sha256) throw new Error(`${name} is not this build's (${digest})`);
      await cache.put(name, response);
    }
    // the folder's address itself is its page
    await cache.put("./", await cache.match("index.html"));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith("vier-") && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

// `response` with the headers of a cross-origin isolated page.
function isolated(response) {
  if (response.type === "opaque" || response.status === 0) return response;
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    // the folder's own files, whatever the query (`?pos=4453`, `?workers=2`)
    const kept = await cache.match(request, { ignoreSearch: true });
    return isolated(kept || (await fetch(request)));
  })());
});
