// The backend of `vier gui`: the page's session lives on the local server, which answers
// each change with a snapshot and streams every later one (server-sent events).
"use strict";

window.vierBackend = (() => {
  let events = null;
  const id = () => sessionStorage.getItem("vier-session");

  return {
    unreachable: "Cannot start a game: the server did not answer.",

    // The snapshot of this tab's session, or of a new one (`fresh: true`: the page may
    // restore the game it kept); null when the server is gone.
    async open(fresh) {
      if (!fresh && id()) {
        const res = await fetch(`api/session/${id()}`).catch(() => null);
        if (res && res.ok) return res.json();
      }
      const res = await fetch("api/session", { method: "POST" }).catch(() => null);
      if (!res || !res.ok) return null;
      const snap = await res.json();
      sessionStorage.setItem("vier-session", snap.id);
      return { ...snap, fresh: true };
    },

    // A change: {ok, snapshot} or {ok: false, error, lost} (lost: the server forgot the game).
    async post(path, body) {
      const opts = body === undefined ? { method: "POST" } : {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      };
      let res;
      try {
        res = await fetch(`api/session/${id()}/${path}`, opts);
      } catch (e) {
        return { ok: false, error: "The server cannot be reached: is vier gui still running?" };
      }
      const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
      if (!res.ok) {
        const lost = res.status === 404 && String(data.error).startsWith("no game");
        return { ok: false, error: data.error, lost };
      }
      return { ok: true, snapshot: data };
    },

    // Every later snapshot, as the server sends it.
    listen(onState) {
      if (events) events.close();
      events = new EventSource(`api/session/${id()}/events`);
      events.addEventListener("state", (e) => onState(JSON.parse(e.data)));
    },
  };
})();
