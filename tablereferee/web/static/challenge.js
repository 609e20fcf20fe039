/* The challenge page (/challenge#n=N, or the newest): every camera's last seconds played at
   normal speed, then slowed down around the accused's strongest cue. The frames come drawn
   from the server (overlays included); this page only times them. */
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  let current = null, run = 0;

  async function get(path) {
    const res = await fetch(path, { headers: { Accept: "application/json" } });
    const data = await res.json();
    if (!res.ok) { const e = new Error((data.error && data.error.message) || "refused"); e.name = (data.error && data.error.name) || ""; throw e; }
    return data;
  }

  // every frame is asked for at once; play starts once each camera's first frame is in (the
  // server draws the rest meanwhile), and a frame not loaded yet is skipped
  function preload(ch) {
    return Promise.all(ch.cameras.map((cam) => Promise.all(cam.frames.map((f, i) => new Promise((resolve) => {
      const img = new Image();
      img.onload = () => { f.loaded = true; resolve(); };
      img.onerror = () => resolve();
      img.src = f.url;
      f.image = img;
      if (i > 0) resolve();
    })))));
  }

  function frameAt(frames, t) {
    let best = frames[0];
    for (const f of frames) { if (f.t > t + 1e-4) break; if (f.loaded) best = f; }
    return best;
  }

  function show(ch, t) {
    for (const cam of ch.cameras) {
      const img = document.querySelector('[data-cam="' + cam.name + '"]');
      const f = frameAt(cam.frames, t);
      if (img && f && img.getAttribute("src") !== f.url) img.src = f.url;
    }
    $("clock").textContent = t.toFixed(2) + " s";
  }

  function playPhase(ch, phase, token) {
    return new Promise((resolve) => {
      $("phase").textContent = phase.text.charAt(0).toUpperCase() + phase.text.slice(1) + ".";
      document.body.dataset.state = phase.name;
      const began = performance.now();
      const tick = (now) => {
        if (token !== run) return resolve(false);
        const t = phase.from + ((now - began) / 1000) * phase.rate;
        show(ch, Math.min(t, phase.to));
        if (t >= phase.to) return resolve(true);
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
  }

  async function play(phases) {
    const token = ++run;
    for (const phase of phases) if (!(await playPhase(current, phase, token))) return;
    $("phase").textContent = "Done: " + current.cue.text + ".";
    document.body.dataset.state = "done";
  }

  async function load(number) {
    const ch = await get(number ? "/api/challenges/" + number : "/api/challenges/latest");
    if (current && current.number === ch.number) return;
    current = ch;
    $("headline").textContent = ch.headline;
    $("cue").textContent = "Slowed down around: " + ch.cue.text + " (" + ch.cue.t.toFixed(2) + " s).";
    $("cams").replaceChildren(...ch.cameras.map((cam) => {
      const fig = document.createElement("figure");
      const img = document.createElement("img");
      img.dataset.cam = cam.name;
      img.alt = "camera " + cam.name;
      const cap = document.createElement("figcaption");
      cap.textContent = cam.name + " (" + cam.frames.length + " frames)";
      fig.append(img, cap);
      return fig;
    }));
    document.body.dataset.state = "loading";
    await preload(ch);
    try { const list = await get("/api/challenges"); $("left").textContent = "Challenges left: " + Object.entries(list.left).map(([t, n]) => t + " " + n).join(", "); } catch (e) { /* shown without */ }
    play(ch.phases);
  }

  function wanted() { const n = new URLSearchParams(location.hash.slice(1)).get("n"); return n ? parseInt(n, 10) : null; }

  async function watch() {
    try {
      let number = wanted();
      if (!number) {  // the newest: asked of the list, which answers even before the first challenge
        const list = await get("/api/challenges");
        number = list.challenges.length ? Math.max(...list.challenges.map((c) => c.number)) : null;
      }
      if (number) await load(number);
    } catch (err) { $("phase").textContent = err.message; }
    if (!wanted()) setTimeout(watch, 1000);  // the newest: a new challenge replaces this one
  }

  $("replay").addEventListener("click", () => current && play(current.phases));
  $("slow").addEventListener("click", () => current && play(current.phases.filter((p) => p.name === "slow")));
  window.addEventListener("hashchange", () => { current = null; watch(); });
  watch();
})();
