// Signal practice: drills from the browser's camera, Free Signal enrolment, the spotter's quiz.
// Frames are JPEGs posted one at a time (the next once the verdict so far is back), each with
// its time since capture began; the server reads them with the live table's perception.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const state = { stream: null, drill: null, demos: [], quiz: null, latencies: [] };
const FRAME_WIDTH = 640;

async function api(method, path, body, type) {
  const opts = { method, headers: {} };
  const token = localStorage.getItem("token");
  if (token) opts.headers.Authorization = "Bearer " + token;
  if (body !== undefined) {
    if (type) { opts.headers["Content-Type"] = type; opts.body = body; }
    else { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  }
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({ error: { name: "BadAnswer", message: "the server answered something unreadable" } }));
  if (!r.ok) { const e = new Error((data.error && data.error.message) || r.statusText); e.name = (data.error && data.error.name) || "Error"; throw e; }
  return data;
}

function player() {
  const p = $("player").value.trim();
  if (!p) throw new Error("write your name first");
  return p;
}

async function camera() {
  if (!state.stream) {
    state.stream = await navigator.mediaDevices.getUserMedia({ video: { width: 1280, height: 720 }, audio: false });
    $("camera").srcObject = state.stream;
    await new Promise((ok) => { if ($("camera").readyState >= 2) ok(); else $("camera").onloadeddata = ok; });
  }
  return $("camera");
}

function grab(video, type) {
  const c = document.createElement("canvas");
  const k = FRAME_WIDTH / video.videoWidth;
  c.width = FRAME_WIDTH; c.height = Math.round(video.videoHeight * k);
  c.getContext("2d").drawImage(video, 0, 0, c.width, c.height);
  if (type === "data") return Promise.resolve(c.toDataURL("image/jpeg", 0.8));
  return new Promise((ok) => c.toBlob(ok, "image/jpeg", 0.8));
}

const wait = (ms) => new Promise((ok) => setTimeout(ok, ms));

// -- the drill -------------------------------------------------------------------------------

async function startDrill() {
  const btn = $("start");
  btn.disabled = true;
  $("verdict").hidden = true;
  try {
    const body = { player: player() };
    const team = $("team").value.trim();
    if ($("use-free").checked) { body.free = true; body.team = team; }
    else if ($("card").value) body.signal = $("card").value;
    if (params.get("window")) body.window = Number(params.get("window"));
    const video = await camera();
    const d = await api("POST", "/api/practice/drill", body);
    state.drill = d;
    $("card-text").textContent = d.card.text;
    const count = params.has("countdown") ? Number(params.get("countdown")) : d.countdown;
    for (let s = count; s > 0; s--) { $("countdown").textContent = String(s); await wait(1000); }
    $("countdown").textContent = "";
    $("live").textContent = "Watching…";
    const began = performance.now();
    let seenAt = null;
    state.latencies = [];
    for (;;) {
      const t = (performance.now() - began) / 1000;
      if (t >= d.window || (seenAt !== null && t - seenAt >= 1.0)) break;
      const jpeg = await grab(video);
      const sent = performance.now();
      const r = await api("POST", `/api/practice/drill/${d.drill}/frame?t=${t.toFixed(3)}`, jpeg, "image/jpeg");
      state.latencies.push(performance.now() - sent);
      if (r.seen && seenAt === null) { seenAt = t; $("live").textContent = "Seen!"; }
      else if (seenAt === null) $("live").textContent = r.person ? "Watching…" : "Watching… (no one in view)";
    }
    const v = await api("POST", `/api/practice/drill/${d.drill}/finish`);
    showVerdict(v);
    await loadHistory();
  } catch (e) {
    $("live").textContent = e.message;
  } finally {
    $("card-text").textContent = "";
    btn.disabled = false;
  }
}

function showVerdict(v) {
  $("verdict").hidden = false;
  const w = $("words");
  w.textContent = v.words;
  w.className = "words " + (v.seen ? "seen" : "unseen");
  $("live").textContent = v.seen ? "Seen" : "Not seen";
  $("cue").textContent = v.cue || "-";
  $("delay").textContent = v.delay === null ? "-" : `${v.delay.toFixed(2)} s from the start of the gesture to recognition`;
  $("score").textContent = `${Math.round(v.nonchalance.score)} of 100`;
  const lat = state.latencies.length ? state.latencies.slice().sort((a, b) => a - b)[Math.floor(state.latencies.length / 2)] : null;
  $("fps").textContent = `${v.frames} frames, ${v.fps || 0} a second` + (lat ? `, ${Math.round(lat)} ms camera to verdict` : "");
  $("parts").replaceChildren(...(v.nonchalance_lines || []).slice(1).map((line) => {
    const li = document.createElement("li"); li.textContent = line; return li;
  }));
  drawEvidence(v);
}

function drawEvidence(v) {
  const c = $("evidence"), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  const m = (v.evidence || []).find((x) => x.primary);
  if (!m || !m.t.length) { g.fillText("no measure to draw for this signal", 10, 20); return; }
  const vals = m.values.filter((x) => x !== null).concat([m.line]);
  const lo = Math.min(...vals), hi = Math.max(...vals);
  const t0 = m.t[0], t1 = m.t[m.t.length - 1] || t0 + 1;
  const X = (t) => 30 + (c.width - 40) * (t - t0) / Math.max(t1 - t0, 1e-6);
  const Y = (y) => c.height - 20 - (c.height - 40) * (y - lo) / Math.max(hi - lo, 1e-6);
  if (v.seen) { g.fillStyle = "#d7f0dd"; g.fillRect(X(v.start), 10, X(v.end) - X(v.start), c.height - 30); }
  g.strokeStyle = "#a12a2a"; g.setLineDash([6, 4]); g.beginPath(); g.moveTo(30, Y(m.line)); g.lineTo(c.width - 10, Y(m.line)); g.stroke();
  g.setLineDash([]); g.strokeStyle = "#1d4f91"; g.lineWidth = 2; g.beginPath();
  let on = false;
  m.t.forEach((t, i) => { const y = m.values[i]; if (y === null) { on = false; return; } if (on) g.lineTo(X(t), Y(y)); else g.moveTo(X(t), Y(y)); on = true; });
  g.stroke(); g.lineWidth = 1;
  g.fillStyle = "#1d232b"; g.fillText(m.name, 34, 14); g.fillText(`the line: ${m.line}`, c.width - 110, Y(m.line) - 4);
}

async function loadHistory() {
  let name;
  try { name = player(); } catch { return; }
  const h = await api("GET", `/api/practice/history/${encodeURIComponent(name)}`);
  const c = $("history"), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  const n = h.drills.length;
  h.drills.forEach((d, i) => {
    const x = 20 + (c.width - 40) * (n > 1 ? i / (n - 1) : 0.5), y = c.height - 15 - (c.height - 30) * d.nonchalance / 100;
    g.fillStyle = d.seen ? "#1f7a3a" : "#a12a2a";
    g.beginPath(); g.arc(x, y, 4, 0, 2 * Math.PI); g.fill();
  });
  g.fillStyle = "#5b6570"; g.fillText("nonchalance of each drill (red: not read)", 24, 12);
  const rows = Object.entries(h.per_signal).map(([sig, s]) => {
    const tr = document.createElement("tr");
    [sig, s.drills, s.seen, s.mean_delay === null ? "-" : `${s.mean_delay.toFixed(2)} s`, s.mean_nonchalance === null ? "-" : Math.round(s.mean_nonchalance)]
      .forEach((x) => { const td = document.createElement("td"); td.textContent = String(x); tr.append(td); });
    return tr;
  });
  $("per-signal").tBodies[0].replaceChildren(...rows);
}

// -- Free Signal -----------------------------------------------------------------------------

async function recordDemo(seconds = 2.0, fps = 10) {
  const video = await camera();
  const frames = [];
  $("free-words").textContent = "Recording…";
  const began = performance.now();
  while ((performance.now() - began) / 1000 < seconds) {
    frames.push(await grab(video, "data"));
    await wait(1000 / fps);
  }
  const real = frames.length / ((performance.now() - began) / 1000);
  return { frames, fps: Math.min(30, Math.max(1, real)) };
}

async function addDemo() {
  try {
    state.demos.push(await recordDemo());
    $("demo-count").textContent = `${state.demos.length} demonstration${state.demos.length === 1 ? "" : "s"}`;
    $("enrol").disabled = state.demos.length < 3;
    $("free-words").textContent = state.demos.length < 3 ? "Again, the same gesture." : "Learn it, or add another.";
  } catch (e) { $("free-words").textContent = e.message; }
}

async function enrol() {
  try {
    const team = $("team").value.trim();
    if (!team) throw new Error("write your team's name first");
    const r = await api("POST", "/api/practice/free-signal", { team, player: player(), demonstrations: state.demos.slice(-5) });
    $("free-words").textContent = r.words;
    $("try").disabled = false;
  } catch (e) { $("free-words").textContent = e.message; }
}

async function tryFree() {
  try {
    const team = $("team").value.trim();
    const demo = await recordDemo(3.0);
    const r = await api("POST", `/api/practice/free-signal/${encodeURIComponent(team)}/try`, demo);
    $("free-words").textContent = r.words;
  } catch (e) { $("free-words").textContent = e.message; }
}

// -- the quiz --------------------------------------------------------------------------------

async function startQuiz() {
  try {
    state.quiz = await api("GET", "/api/practice/quiz?n=5");
    state.quiz.at = 0;
    $("said-player").replaceChildren(...state.quiz.players.map((p) => new Option(p, p)));
    $("said-signal").replaceChildren(...state.quiz.signals.map((s) => new Option(s.text, s.signal)));
    $("quiz").hidden = false;
    playClip();
  } catch (e) { $("outcome").textContent = e.message; }
}

async function playClip() {
  const q = state.quiz, c = q.clips[q.at];
  $("outcome").textContent = `Clip ${q.at + 1} of ${q.clips.length}`;
  for (let k = 0; k < c.frames; k++) {
    $("clip").src = `/api/practice/quiz/clips/${c.clip}/${k}.jpg`;
    await wait(1000 / c.fps);
  }
}

async function answer(nobody) {
  const q = state.quiz;
  if (!q) return;
  try {
    const body = { player: player(), clip: q.clips[q.at].clip };
    if (!nobody) { body.said_player = $("said-player").value; body.said_signal = $("said-signal").value; }
    const r = await api("POST", "/api/practice/quiz/answer", body);
    const truth = r.truth.player ? `${r.truth.player} gave ${r.truth.signal.replaceAll("_", " ")}` : "nobody signalled";
    $("outcome").textContent = `${r.outcome}: ${truth}. You: ${r.tally.hits} hits, ${r.tally.false_alarms} false alarms, d′ ${r.tally.d_prime.toFixed(2)}`;
    await loadBoard();
    q.at += 1;
    if (q.at < q.clips.length) { await wait(1200); playClip(); } else { $("outcome").textContent += " — round over."; }
  } catch (e) { $("outcome").textContent = e.message; }
}

async function loadBoard() {
  const b = await api("GET", "/api/practice/quiz/leaderboard");
  $("board").tBodies[0].replaceChildren(...b.leaderboard.map((r) => {
    const tr = document.createElement("tr");
    [r.player, r.hits, r.wrong, r.misses, r.false_alarms, r.correct_rejections, r.d_prime.toFixed(2)]
      .forEach((x) => { const td = document.createElement("td"); td.textContent = String(x); tr.append(td); });
    return tr;
  }));
}

// -- wiring ----------------------------------------------------------------------------------

async function init() {
  $("player").value = params.get("player") || localStorage.getItem("practice-player") || "";
  $("player").addEventListener("change", () => { localStorage.setItem("practice-player", $("player").value.trim()); loadHistory(); });
  const cards = await api("GET", "/api/practice/cards");
  for (const c of cards.cards) $("card").append(new Option(c.text, c.signal));
  if (params.get("card")) $("card").value = params.get("card");
  $("start").addEventListener("click", startDrill);
  $("record").addEventListener("click", addDemo);
  $("enrol").addEventListener("click", enrol);
  $("try").addEventListener("click", tryFree);
  $("clear").addEventListener("click", () => { state.demos = []; $("demo-count").textContent = "0 demonstrations"; $("enrol").disabled = true; });
  $("quiz-start").addEventListener("click", startQuiz);
  $("answer").addEventListener("click", () => answer(false));
  $("nobody").addEventListener("click", () => answer(true));
  document.body.dataset.ready = "1";
  loadHistory().catch(() => {});
  loadBoard().catch(() => {});
}

init().catch((e) => { $("live").textContent = e.message; });
