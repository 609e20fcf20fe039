/* The review page (/review): recorded sessions, their timeline, every camera's video synced to
   it with overlays drawn from what the run kept, the verdicts, the ask form, the comparison.
   Plain JavaScript; everything it shows comes from /api/review/... already in words. */
(function () {
  "use strict";

  const $ = (id) => document.getElementById(id);
  const state = { sid: null, data: null, t: 0, cams: [], master: null, playing: false, duration: 1 };
  const HAND = [[0,1],[1,2],[2,3],[3,4],[0,5],[5,6],[6,7],[7,8],[5,9],[9,10],[10,11],[11,12],[9,13],[13,14],[14,15],[15,16],[13,17],[17,18],[18,19],[19,20],[0,17]];
  const POSE = [[11,12],[11,13],[13,15],[12,14],[14,16],[11,23],[12,24],[23,24],[15,17],[15,19],[15,21],[16,18],[16,20],[16,22],[0,2],[0,5],[2,7],[5,8],[9,10]];
  const LANES = [
    ["calls", (e) => ["coccode", "caught", "chicchirichi", "call"].includes(e.kind), "call"],
    ["cards, awards", (e) => ["reveal", "draw_egg", "egg", "decision", "action"].includes(e.kind) || (!isKnown(e.kind)), null],
    ["corrections, questions", (e) => ["correction", "question", "flag"].includes(e.kind), null],
    ["cameras", (e) => e.kind.startsWith("camera"), "camera"],
  ];

  function isKnown(kind) {
    return ["coccode", "caught", "chicchirichi", "call", "correction", "question", "flag", "signal"].includes(kind) || kind.startsWith("camera");
  }

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children || []) node.append(c);
    return node;
  }

  async function api(path, body) {
    const init = { headers: { Accept: "application/json" } };
    if (body !== undefined) {
      init.method = "POST";
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(path, init);
    const data = await res.json();
    if (!res.ok) throw new Error((data.error && data.error.message) || "the server refused");
    return data;
  }

  function say(text) { $("status").textContent = text || ""; }

  // -- the sessions ------------------------------------------------------------------------------
  async function showSessions() {
    $("sessions-view").hidden = false;
    $("session-view").hidden = true;
    const data = await api("/api/review/sessions");
    const body = $("sessions");
    body.replaceChildren();
    for (const s of data.sessions) {
      const open = el("a", { href: "#s=" + encodeURIComponent(s.id), text: "open", "data-testid": "open-" + s.id });
      body.append(el("tr", {}, [
        el("td", { text: s.date }), el("td", { text: s.game || "" }), el("td", { text: s.players.join(", ") }),
        el("td", {}, s.result.map((line) => el("div", { text: line }))), el("td", {}, [open]),
      ]));
      for (const sel of [$("cmp-a"), $("cmp-b")]) sel.append(el("option", { value: s.id, text: s.name + " (" + s.date + ")" }));
    }
    if (data.sessions.length > 1) $("cmp-b").selectedIndex = 1;
    document.body.dataset.ready = "true";
  }

  async function compare(ev) {
    ev.preventDefault();
    try {
      const d = await api("/api/review/compare?a=" + encodeURIComponent($("cmp-a").value) + "&b=" + encodeURIComponent($("cmp-b").value));
      const list = (items) => el("ul", {}, items.length ? items.map((x) => el("li", { text: x })) : [el("li", { text: "none" })]);
      $("compare").replaceChildren(
        el("p", { text: d.same_actions ? "Both give the same actions (" + d.actions[0] + ")." : "The actions differ." }),
        el("p", { text: d.same_log ? "The logs are the same, entry for entry." : "The logs first differ at entry " + d.first_difference + " (" + d.entries[0] + " and " + d.entries[1] + " entries)." }),
        el("h3", { text: "Actions only in " + d.a }), list(d.only_a),
        el("h3", { text: "Actions only in " + d.b }), list(d.only_b),
        el("h3", { text: "Signals only in " + d.a }), list(d.observations.only_a),
        el("h3", { text: "Signals only in " + d.b }), list(d.observations.only_b),
      );
    } catch (err) { say(err.message); }
  }

  // -- one session ---------------------------------------------------------------------------------
  async function openSession(sid, t) {
    $("sessions-view").hidden = true;
    $("session-view").hidden = false;
    document.body.dataset.ready = "false";
    say("loading " + sid + "...");
    const d = await api("/api/review/sessions/" + encodeURIComponent(sid));
    state.sid = sid;
    state.data = d;
    state.duration = Math.max(d.duration || 0, ...d.events.map((e) => e.time), 1);
    $("session-name").textContent = d.name;
    $("session-info").textContent = d.date + ", " + (d.game || "") + ": " + d.players.join(", ") + ". " + d.result.join(" ");
    $("gaps").textContent = d.gaps.length ? "Gaps in the video: " + d.gaps.join("; ") : "";
    $("ask-player").replaceChildren(...d.players.map((p) => el("option", { value: p, text: p })));
    buildVideos(d);
    buildTimeline(d);
    buildVerdicts(d);
    await Promise.all(state.cams.map(loadTracks));
    await seek(t || 0);
    say("");
    document.body.dataset.ready = "true";
  }

  function buildVideos(d) {
    const box = $("videos");
    box.replaceChildren();
    state.cams = [];
    for (const c of d.cameras) {
      if (!c.segments.length) continue;
      const video = el("video", { muted: "", playsinline: "", preload: "auto", "data-testid": "video-" + c.name });
      video.muted = true;
      const canvas = el("canvas", { "data-testid": "overlay-" + c.name });
      const frames = [].concat(...c.segments.map((s) => s.frames));
      const cam = { name: c.name, video, canvas, segments: c.segments, frames, seg: null, tracks: null, shown: null };
      box.append(el("div", { class: "cam" }, [video, canvas, el("span", { class: "cam-name", text: c.name })]));
      state.cams.push(cam);
      watchFrames(cam);
      video.addEventListener("ended", () => onEnded(cam));
    }
    // the camera with the most frames sets the clock and the frame steps
    state.master = state.cams.reduce((a, b) => (b.frames.length > a.frames.length ? b : a), state.cams[0]);
  }

  async function loadTracks(cam) {
    cam.tracks = await api("/api/review/sessions/" + encodeURIComponent(state.sid) + "/tracks/" + encodeURIComponent(cam.name));
    const [w, h] = cam.tracks.size && cam.tracks.size[0] ? cam.tracks.size : [640, 360];
    cam.canvas.width = w;
    cam.canvas.height = h;
  }

  function segmentAt(cam, t) {
    let best = cam.segments[0];
    for (const s of cam.segments) if (s.start <= t + 1e-6) best = s;
    return best;
  }

  function loadSegment(cam, seg) {
    if (cam.seg === seg) return Promise.resolve();
    cam.seg = seg;
    return new Promise((resolve) => {
      cam.video.addEventListener("loadedmetadata", () => resolve(), { once: true });
      cam.video.addEventListener("error", () => resolve(), { once: true });
      cam.video.src = seg.url;
    });
  }

  // the frame shown at session time t: the last frame at or before it
  function frameIndex(frames, t) {
    let lo = 0, hi = frames.length - 1, ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (frames[mid] <= t + 1e-4) { ans = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return ans;
  }

  async function placeCamera(cam, t) {
    const seg = segmentAt(cam, t);
    await loadSegment(cam, seg);
    const i = frameIndex(seg.frames, t);
    const ft = i >= 0 ? seg.frames[i] : seg.start;
    const target = Math.max(0, ft - seg.start + 0.001);
    if (Math.abs(cam.video.currentTime - target) > 0.0005) {
      await new Promise((resolve) => {
        cam.video.addEventListener("seeked", () => resolve(), { once: true });
        cam.video.currentTime = target;
      });
    }
  }

  async function seek(t) {
    pause();
    state.t = Math.max(0, Math.min(t, state.duration));
    await Promise.all(state.cams.map((cam) => placeCamera(cam, state.t)));
    showTime();
    drawAll();
  }

  function watchFrames(cam) {
    const video = cam.video;
    if (!video.requestVideoFrameCallback) return;
    const onFrame = (_now, meta) => {
      if (cam.seg) {
        cam.shown = cam.seg.start + meta.mediaTime;
        if (state.playing && cam === state.master) {
          state.t = cam.shown;
          showTime();
          follow();
        }
        draw(cam, cam.shown);
      }
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  }

  function follow() {
    for (const cam of state.cams) {
      if (cam === state.master) continue;
      const seg = segmentAt(cam, state.t);
      const last = seg.frames[seg.frames.length - 1];
      if (state.t > last + 0.2) { if (!cam.video.paused) cam.video.pause(); continue; }  // its video has ended: hold
      if (cam.seg !== seg || Math.abs(cam.seg.start + cam.video.currentTime - state.t) > 0.15) {
        placeCamera(cam, state.t).then(() => { if (state.playing) cam.video.play().catch(() => {}); });
      } else if (cam.video.paused && state.playing) {
        cam.video.play().catch(() => {});
      }
    }
  }

  async function onEnded(cam) {
    if (cam !== state.master || !state.playing) return;
    const i = cam.segments.indexOf(cam.seg);
    if (i >= 0 && i + 1 < cam.segments.length) {
      await loadSegment(cam, cam.segments[i + 1]);
      cam.video.playbackRate = rate();
      cam.video.play().catch(() => {});
    } else {
      pause();
    }
  }

  function rate() { return parseFloat($("rate").value); }

  function play() {
    state.playing = true;
    $("play").textContent = "Pause";
    for (const cam of state.cams) {
      cam.video.playbackRate = rate();
      const seg = segmentAt(cam, state.t);
      if (state.t <= seg.frames[seg.frames.length - 1] + 0.05) cam.video.play().catch(() => {});
    }
  }

  function pause() {
    state.playing = false;
    $("play").textContent = "Play";
    for (const cam of state.cams) cam.video.pause();
  }

  async function step(direction) {
    const frames = state.master.frames;
    const i = frameIndex(frames, state.t);
    const j = Math.max(0, Math.min(frames.length - 1, i + direction));
    await seek(frames[j]);
  }

  function showTime() {
    $("now").textContent = state.t.toFixed(2) + " s";
    const m = state.master;
    if (m) {
      const i = frameIndex(m.frames, state.t);
      $("frame-info").textContent = m.name + " frame " + (i + 1) + " of " + m.frames.length + " at " + (i >= 0 ? m.frames[i].toFixed(3) : "-") + " s";
    }
    const cursor = $("cursor");
    if (cursor) cursor.style.left = "calc(7rem + (100% - 7.5rem) * " + state.t / state.duration + ")";
    location.replace("#s=" + encodeURIComponent(state.sid) + "&t=" + state.t.toFixed(3));
  }

  // -- overlays ------------------------------------------------------------------------------------
  function on(name) { return $("ov-" + name).checked; }

  function trackAt(list, t, within) {
    let best = null;
    for (const f of list) { if (f.t > t + 1e-4) break; best = f; }
    return best && t - best.t <= within ? best : null;
  }

  function drawAll() { for (const cam of state.cams) draw(cam, state.t); }

  function poly(ctx, pts, color, width) {
    ctx.strokeStyle = color; ctx.lineWidth = width;
    ctx.beginPath();
    pts.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath(); ctx.stroke();
  }

  function label(ctx, text, x, y, color, size) {
    ctx.font = "bold " + size + "px sans-serif";
    const w = ctx.measureText(text).width;
    ctx.fillStyle = "rgba(0,0,0,0.65)"; ctx.fillRect(x, y - size, w + 8, size + 6);
    ctx.fillStyle = color; ctx.fillText(text, x + 4, y);
  }

  function lines(ctx, pts, pairs, color, width) {
    ctx.strokeStyle = color; ctx.lineWidth = width;
    for (const [a, b] of pairs) {
      const p = pts[a], q = pts[b];
      if (!p || !q || (p.length > 2 && p[2] < 0.5) || (q.length > 2 && q[2] < 0.5)) continue;
      ctx.beginPath(); ctx.moveTo(p[0], p[1]); ctx.lineTo(q[0], q[1]); ctx.stroke();
    }
  }

  function draw(cam, t) {
    const ctx = cam.canvas.getContext("2d");
    const tr = cam.tracks;
    ctx.clearRect(0, 0, cam.canvas.width, cam.canvas.height);
    if (!tr) return;
    const size = Math.max(12, cam.canvas.width / 60);
    if (on("zones")) for (const z of tr.zones) { poly(ctx, z.polygon, "rgba(255,255,0,0.8)", 2); label(ctx, z.name, z.polygon[0][0] + 4, z.polygon[0][1] + size + 4, "#ff0", size * 0.8); }
    if (on("seats")) for (const s of tr.seats) { const [x0, y0, x1, y1] = s.box; poly(ctx, [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], "rgba(0,200,255,0.9)", 3); label(ctx, s.name, x0 + 6, y0 + 2.4 * size, "#0cf", size); }
    if (on("cards")) {
      const f = trackAt(tr.cards, t, 0.45);
      if (f) for (const c of f.cards) {
        if (c.corners.length !== 4) continue;
        poly(ctx, c.corners, c.face_up ? "#2ecc71" : "#e67e22", 3);
        const top = c.corners.reduce((a, b) => (b[1] < a[1] ? b : a));
        label(ctx, (c.card || "?").replace(/^.*:/, "") + " " + Math.round(c.confidence * 100) + "%", top[0], top[1] - 4, "#fff", size * 0.8);
      }
    }
    if (on("landmarks")) {
      const f = trackAt(tr.landmarks, t, 0.45);
      if (f) for (const p of f.persons) {
        if (p.face) { ctx.fillStyle = "rgba(0,255,180,0.9)"; for (const [x, y] of p.face) ctx.fillRect(x - 1.5, y - 1.5, 3, 3); }
        if (p.pose) { lines(ctx, p.pose, POSE, "rgba(255,80,80,0.95)", 4); }
        for (const [side, pts] of Object.entries(p.hands)) {
          lines(ctx, pts, HAND, side === "right" ? "#ff0" : "#0ff", 3);
          ctx.fillStyle = "#fff"; for (const [x, y] of pts) ctx.fillRect(x - 2, y - 2, 4, 4);
        }
      }
    }
  }

  // -- the timeline --------------------------------------------------------------------------------
  function evClass(e) {
    if (["coccode", "caught", "chicchirichi", "call"].includes(e.kind)) return "call";
    if (e.kind === "reveal") return "reveal";
    if (e.kind === "draw_egg" || e.kind === "award") return "award";
    if (e.kind === "correction") return "correction";
    if (e.kind === "question" || e.kind === "flag") return "question";
    if (e.kind.startsWith("camera")) return "camera";
    return "other";
  }

  function pct(t) { return (100 * t) / state.duration; }

  function buildTimeline(d) {
    const box = $("timeline");
    box.replaceChildren();
    const width = Math.max(300, box.clientWidth - 120);  // px of a lane's body
    const stack = (items) => {  // events that would overlap go on rows of their own
      const ends = [];
      for (const b of items) {
        const left = (parseFloat(b.style.left) / 100) * width;
        const w = b.style.width ? (parseFloat(b.style.width) / 100) * width : Math.min(220, 7 * b.textContent.length + 10);
        let row = ends.findIndex((end) => end <= left);
        if (row < 0) { row = ends.length; ends.push(0); }
        ends[row] = left + w + 4;
        b.style.top = 0.25 + 1.5 * row + "rem";
        b.style.maxWidth = Math.max(w, 40) + "px";
      }
      return Math.max(1, ends.length);
    };
    const lane = (name, items) => {
      const rows = stack(items);
      const body = el("div", { class: "lane-body", onclick: (ev) => {
        if (ev.target !== body) return;
        const r = body.getBoundingClientRect();
        seek(((ev.clientX - r.left) / r.width) * state.duration);
      } }, items);
      box.append(el("div", { class: "lane", style: "height:" + (0.4 + 1.5 * rows) + "rem" }, [el("span", { class: "lane-name", text: name }), body]));
    };
    const used = new Set();
    for (const [name, test] of LANES) {
      // a decision is told with the action it made (its verdict): not an event of its own here
      const items = d.events.filter((e) => !["signal", "decision"].includes(e.kind) && !used.has(e.entry) && test(e)).map((e) => {
        used.add(e.entry);
        return el("button", {
          class: "ev " + evClass(e), style: "left:" + pct(e.time) + "%", title: e.time.toFixed(2) + " s: " + e.text,
          text: e.text, "data-testid": "ev-" + e.entry, "data-kind": e.kind, onclick: () => select(e.entry, e.time),
        });
      });
      lane(name, items);
    }
    for (const [player, signals] of Object.entries(d.lanes)) {
      lane(player, signals.map((s) => el("button", {
        class: "ev signal" + (s.unsure ? " unsure" : ""),
        style: "left:" + pct(s.start) + "%;width:" + Math.max(0.6, pct(s.end - s.start)) + "%",
        title: s.text + " " + s.start.toFixed(2) + "-" + s.end.toFixed(2) + " s, confidence " + s.confidence + (s.unsure ? " (unsure)" : ""),
        text: s.text + " " + Math.round((s.confidence || 0) * 100) + "%" + (s.unsure ? " ?" : ""),
        "data-testid": "ev-" + s.entry, "data-kind": "signal", onclick: () => select(s.entry, s.start),
      })));
    }
    box.append(el("div", { class: "cursor", id: "cursor" }));
  }

  function buildVerdicts(d) {
    $("verdicts").replaceChildren(...d.verdicts.map((v) => el("li", {
      text: v.time.toFixed(2) + " s: " + v.lines.join(" "), onclick: () => select(v.entry, v.time),
    })));
  }

  async function select(entry, t) {
    for (const b of document.querySelectorAll(".ev.selected")) b.classList.remove("selected");
    const button = document.querySelector('[data-testid="ev-' + entry + '"]');
    if (button) button.classList.add("selected");
    const v = state.data.verdicts.find((x) => x.entry === entry);
    const ev = state.data.events.find((x) => x.entry === entry);
    const lines = v ? v.lines : [ev ? ev.text : "Entry " + entry + "."];
    $("verdict").replaceChildren(el("p", { text: "Entry " + entry + " at " + t.toFixed(2) + " s." }), ...lines.map((l) => el("p", { text: l })));
    $("evidence").replaceChildren();
    if (ev && ["reveal", "draw_egg"].includes(ev.kind)) {
      $("evidence").append(el("p", { text: "The cards as they were read (left) beside the template each matched (right):" }),
        el("img", { alt: "the cards read beside their templates", "data-testid": "evidence-cards",
          src: "/api/review/sessions/" + encodeURIComponent(state.sid) + "/cards/" + entry + ".jpg" }));
    }
    const secret = Object.values(state.data.lanes).flat().some((s) => s.entry === entry && s.signal === "hidden");
    if (ev && ev.kind === "signal" && secret) {
      $("evidence").append(el("p", { text: "A team's secret signal: its measure would name it. Ask about the signal you suspect below." }));
    } else if (ev && ev.kind === "signal") {
      $("evidence").append(el("img", { alt: "the measure of the signal over time", "data-testid": "evidence-plot",
        src: "/api/review/sessions/" + encodeURIComponent(state.sid) + "/evidence/" + entry + ".png" }));
    }
    await seek(t);
  }

  // -- asking --------------------------------------------------------------------------------------
  async function ask(ev) {
    ev.preventDefault();
    const box = $("answer");
    box.replaceChildren(el("p", { text: "looking at the stored landmarks..." }));
    try {
      const a = await api("/api/review/sessions/" + encodeURIComponent(state.sid) + "/ask", {
        player: $("ask-player").value, signal: $("ask-signal").value.trim(),
        from: parseFloat($("ask-from").value), to: parseFloat($("ask-to").value),
      });
      const parts = [el("div", { class: "word " + a.answer, text: a.answer, "data-testid": "answer-word" })];
      for (const line of a.lines.slice(1)) parts.push(el("p", { text: line }));
      if (a.picture) parts.push(el("img", { src: a.picture, alt: "the frame nearest the cue" }));
      if (a.plot) parts.push(el("img", { src: a.plot, alt: "the measure against its line" }));
      box.replaceChildren(...parts);
      if (a.closest && a.closest.t !== null) await seek(a.closest.t);
    } catch (err) {
      box.replaceChildren(el("p", { class: "gaps", text: err.message, "data-testid": "answer-error" }));
    }
  }

  // -- wiring --------------------------------------------------------------------------------------
  function route() {
    const params = new URLSearchParams(location.hash.slice(1));
    const sid = params.get("s");
    if (sid && sid !== state.sid) openSession(sid, parseFloat(params.get("t") || "0")).catch((err) => say(err.message));
    else if (!sid) { state.sid = null; showSessions().catch((err) => say(err.message)); }
  }

  document.addEventListener("keydown", (ev) => {
    if (!state.sid || ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName)) return;
    if (ev.key === "ArrowRight" || ev.key === ".") { ev.preventDefault(); step(1); }
    else if (ev.key === "ArrowLeft" || ev.key === ",") { ev.preventDefault(); step(-1); }
    else if (ev.key === " ") { ev.preventDefault(); state.playing ? pause() : play(); }
  });
  $("prev").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  $("play").addEventListener("click", () => (state.playing ? pause() : play()));
  $("rate").addEventListener("change", () => { for (const cam of state.cams) cam.video.playbackRate = rate(); });
  for (const name of ["landmarks", "cards", "seats", "zones"]) $("ov-" + name).addEventListener("change", drawAll);
  $("ask-form").addEventListener("submit", ask);
  $("compare-form").addEventListener("submit", compare);
  window.addEventListener("hashchange", route);
  window.review = { state, seek, step, shown: () => state.cams.map((c) => [c.name, c.shown]) };
  route();
})();
