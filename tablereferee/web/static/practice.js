// Signal practice: drills from the browser's camera, Free Signal enrolment, the spotter's quiz,
// team rehearsal, each player's own calibration, and the team's PIN (which unlocks its own card).
// Frames are JPEGs posted one at a time (the next once the verdict so far is back), each with
// its time since capture began; the server reads them with the live table's perception.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const state = { stream: null, drill: null, demos: [], quiz: null, latencies: [], perfs: [], unlocked: null, spotting: null };
const FRAME_WIDTH = 640;
const KEY = "referee.token"; // the phone page's own: a phone that joined the table keeps its token here

async function api(method, path, body, type, again = true) {
  const opts = { method, headers: {} };
  const token = localStorage.getItem(KEY);
  if (token) opts.headers.Authorization = "Bearer " + token;
  if (body !== undefined) {
    if (type) { opts.headers["Content-Type"] = type; opts.body = body; }
    else { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  }
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({ error: { name: "BadAnswer", message: "the server answered something unreadable" } }));
  if (r.status === 401 && token && again) { localStorage.removeItem(KEY); return api(method, path, body, type, false); } // a token of an earlier server
  if (!r.ok) { const e = new Error((data.error && data.error.message) || r.statusText); e.name = (data.error && data.error.name) || "Error"; e.detail = data.error || {}; throw e; }
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
    else if ($("card").value === "@team") body.team = state.unlocked || team;
    else if ($("card").value) body.signal = $("card").value;
    if (params.get("window")) body.window = Number(params.get("window"));
    const video = await camera();
    const d = await api("POST", "/api/practice/drill", body);
    state.drill = d;
    await watch(video, d, d.drill, false);
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

// The card, the countdown, then frames one at a time until the window is over, or a second after
// the signal was read (a rehearsal: once the teammate has tapped too).
async function watch(video, d, drillId, rehearsal) {
  $("card-text").textContent = d.card.text;
  const count = params.has("countdown") ? Number(params.get("countdown")) : d.countdown;
  for (let s = count; s > 0; s--) { $("countdown").textContent = String(s); await wait(1000); }
  $("countdown").textContent = "";
  $("live").textContent = "Watching…";
  const began = performance.now();
  let seenAt = null, tappedAt = null;
  state.latencies = [];
  for (;;) {
    const t = (performance.now() - began) / 1000;
    if (t >= d.window) break;
    if (!rehearsal && seenAt !== null && t - seenAt >= 1.0) break;
    if (rehearsal && seenAt !== null && tappedAt !== null && t - Math.max(seenAt, tappedAt) >= 0.5) break;
    const jpeg = await grab(video);
    const sent = performance.now();
    const r = await api("POST", `/api/practice/drill/${drillId}/frame?t=${t.toFixed(3)}`, jpeg, "image/jpeg");
    state.latencies.push(performance.now() - sent);
    if (r.tapped && tappedAt === null) tappedAt = t;
    if (r.seen && seenAt === null) { seenAt = t; $("live").textContent = rehearsal ? "Seen by the referee!" : "Seen!"; }
    else if (seenAt === null) $("live").textContent = r.person ? "Watching…" : "Watching… (no one in view)";
  }
  $("card-text").textContent = "";
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
  const m = (v.evidence || []).find((x) => x.primary);
  $("line").textContent = m ? `${m.name}: ${m.line}` : "-";
  $("line").dataset.line = m ? String(m.line) : "";
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

// -- the team's PIN --------------------------------------------------------------------------

async function unlock() {
  try {
    const team = $("team").value.trim();
    if (!team) throw new Error("write your team's name first");
    const pin = $("pin").value.trim();
    if (!pin) throw new Error("write your team's PIN first");
    const r = await api("POST", `/api/teams/${encodeURIComponent(team)}/unlock`, { pin });
    localStorage.setItem(KEY, r.token);
    $("pin").value = "";
    await showTeam(team);
  } catch (e) {
    $("team-status").textContent = e.name === "NotFound" ? "this server referees no table: there is no team PIN to enter" : e.message;
  }
}

async function showTeam(team) {
  const s = await api("GET", `/api/teams/${encodeURIComponent(team)}/secret`);
  state.unlocked = team;
  localStorage.setItem("practice-team", team);
  const card = s.signal ? s.signal.text : "none drawn yet";
  $("team-status").textContent = `${team} unlocked on this page. Your team's own card: ${card}`;
  const opt = $("card").querySelector("option[value='@team']");
  opt.disabled = !s.signal;
  opt.textContent = "my team's own card";
  await loadRehearsals().catch(() => {});
}

// -- each player's calibration ---------------------------------------------------------------

async function loadCalibration() {
  let name;
  try { name = player(); } catch { name = null; }
  const c = name ? await api("GET", `/api/practice/calibration/${encodeURIComponent(name)}`) : null;
  state.calibration = c;
  showLines(c ? c.lines[$("cal-signal").value] || [] : [], null);
}

function fmt(x) { return x === null || x === undefined ? "-" : String(Math.round(x * 1000) / 1000); }

function showLines(lines, after) {
  const rows = lines.map((l) => {
    const tr = document.createElement("tr");
    tr.dataset.line = l.name;
    const before = after ? l.before : l.yours;
    [l.what, fmt(l.catalogue), fmt(before), after ? fmt(l.yours) : "-"].forEach((x, i) => {
      const td = document.createElement("td"); td.textContent = x;
      if (i === 3 && after && l.yours !== before) td.className = "changed";
      tr.append(td);
    });
    return tr;
  });
  if (!rows.length) {
    const tr = document.createElement("tr"), td = document.createElement("td");
    td.colSpan = 4; td.textContent = "this signal's detector has no single line to move"; tr.append(td); rows.push(tr);
  }
  $("cal-lines").tBodies[0].replaceChildren(...rows);
}

async function recordPerformance() {
  try {
    const seconds = params.has("perf") ? Number(params.get("perf")) : 2.0;
    $("cal-words").textContent = "Recording… give the signal as you would at the table.";
    state.perfs.push(await recordDemo(seconds));
    const n = state.perfs.length;
    $("cal-count").textContent = `${n} performance${n === 1 ? "" : "s"}`;
    $("cal-go").disabled = n < 2;
    $("cal-words").textContent = n < 2 ? "Once more." : "Calibrate, or add a third.";
  } catch (e) { $("cal-words").textContent = e.message; }
}

async function calibrate() {
  const btn = $("cal-go");
  btn.disabled = true;
  try {
    $("cal-words").textContent = "Measuring your performances…";
    const r = await api("POST", "/api/practice/calibration", { player: player(), signal: $("cal-signal").value, performances: state.perfs.slice(-3) });
    showLines(r.lines, true);
    $("cal-words").textContent = r.words;
    state.perfs = []; $("cal-count").textContent = "0 performances";
  } catch (e) { $("cal-words").textContent = e.message; btn.disabled = state.perfs.length < 2; }
}

function tryCalibrated() {
  $("use-free").checked = false;
  $("card").value = $("cal-signal").value;
  $("drill-section").scrollIntoView();
  startDrill();
}

// -- team rehearsal --------------------------------------------------------------------------

async function startRehearsal() {
  const btn = $("reh-start");
  btn.disabled = true;
  $("reaction").textContent = "";
  try {
    const team = state.unlocked;
    if (!team) throw new Error("unlock your team with its PIN first: the round draws your team's own card");
    const body = { team, signaller: player(), spotter: $("spotter").value.trim() || null };
    if (params.get("window")) body.window = Number(params.get("window"));
    const video = await camera();
    const r = await api("POST", "/api/practice/rehearsal", body);
    $("reh-url").textContent = location.origin + r.spot;
    $("reh-url").href = r.spot;
    $("reh-url").dataset.rehearsal = r.rehearsal;
    $("reh-link").hidden = false;
    await watch(video, r, r.drill, true);
    const done = await api("POST", `/api/practice/rehearsal/${r.rehearsal}/finish`);
    $("reaction").textContent = done.result.words;
    $("reaction").dataset.reaction = done.result.reaction === null ? "" : String(done.result.reaction);
    if (done.drill) showVerdict(done.drill);
    await loadRehearsals();
  } catch (e) {
    $("live").textContent = e.message; $("reaction").textContent = e.message;
  } finally {
    btn.disabled = false;
  }
}

async function joinRehearsal() {
  try {
    const team = $("team").value.trim() || state.unlocked;
    if (!team) throw new Error("write your team's name first");
    const open = await api("GET", `/api/practice/rehearsal?team=${encodeURIComponent(team)}`);
    if (!open.open.length) throw new Error(`no round of ${team} is open: your teammate starts one`);
    spot(open.open[0].rehearsal);
  } catch (e) { $("spot-status").textContent = e.message; $("spot").hidden = false; }
}

async function spot(id) {
  state.spotting = id;
  $("spot").hidden = false;
  $("seen").disabled = false;
  $("spot-status").textContent = "Waiting for the signaller…";
  $("rehearsal-section").scrollIntoView();
  for (;;) {
    if (state.spotting !== id) return;
    let s;
    try { s = await api("GET", `/api/practice/rehearsal/${id}${spotKey()}`); } catch (e) { $("spot-status").textContent = e.message; return; }
    if (s.state === "over") {
      $("seen").disabled = true;
      $("spot-status").textContent = s.result.words;
      $("reaction").textContent = s.result.words;
      $("reaction").dataset.reaction = s.result.reaction === null ? "" : String(s.result.reaction);
      return;
    }
    if (s.state === "watching") $("spot-status").textContent = `${s.signaller} is signalling: tap Seen the moment you spot it.` + (s.taps ? ` (${s.taps} tap${s.taps > 1 ? "s" : ""})` : "");
    await wait(300);
  }
}

// the key of the teammate's link (`/practice?rehearsal=ID&key=K`): the round without the team's PIN
function spotKey() {
  const key = params.get("rehearsal") === state.spotting ? params.get("key") : null;
  return key ? `?key=${encodeURIComponent(key)}` : "";
}

async function seen() {
  const id = state.spotting;
  if (!id) return;
  try {
    let who = null;
    try { who = player(); } catch { who = null; }
    const r = await api("POST", `/api/practice/rehearsal/${id}/seen${spotKey()}`, { spotter: who });
    $("spot-status").textContent = `Tapped${r.at === null ? "" : ` at ${r.at.toFixed(2)} s`}: waiting for the round to end…`;
  } catch (e) { $("spot-status").textContent = e.message; }
}

async function loadRehearsals() {
  if (!state.unlocked) return;
  const h = await api("GET", `/api/practice/teams/${encodeURIComponent(state.unlocked)}/rehearsals`);
  $("reh-history").tBodies[0].replaceChildren(...h.rounds.map((r, i) => {
    const tr = document.createElement("tr");
    [i + 1, r.signaller, r.spotter || "-", r.reaction === null ? (r.seen ? "no tap" : "not read") : `${r.reaction.toFixed(2)} s`, r.early_taps]
      .forEach((x) => { const td = document.createElement("td"); td.textContent = String(x); tr.append(td); });
    return tr;
  }));
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
    showTakes(r.descriptions);
    $("try").disabled = false;
  } catch (e) { $("free-words").textContent = e.message; showTakes(e.detail && e.detail.descriptions); }
}

// each demonstration in words, so a refused one can be seen for what it showed
function showTakes(descriptions) {
  $("free-takes").replaceChildren(...(descriptions || []).map((d, k) => {
    const li = document.createElement("li");
    li.textContent = `Demonstration ${k + 1}: ${d}`;
    return li;
  }));
}

async function tryFree() {
  try {
    const team = $("team").value.trim();
    const demo = await recordDemo(3.0);
    const r = await api("POST", `/api/practice/free-signal/${encodeURIComponent(team)}/try`, demo);
    $("free-words").textContent = r.words + (r.description ? ` (this take: ${r.description})` : "");
  } catch (e) { $("free-words").textContent = e.message; }
}

// -- the quiz --------------------------------------------------------------------------------

async function startQuiz() {
  try {
    let who = "";
    try { who = player(); } catch { who = ""; }
    state.quiz = await api("GET", `/api/practice/quiz?n=5${who ? `&player=${encodeURIComponent(who)}` : ""}`);
    state.quiz.at = 0;
    const src = state.quiz.sources;
    $("sources").textContent = `${src.sessions} clips from recorded sessions, ${src.drills} from drills`;
    $("said-signal").replaceChildren(...state.quiz.signals.map((s) => new Option(s.text, s.signal)));
    $("quiz").hidden = false;
    playClip();
  } catch (e) { $("outcome").textContent = e.message; }
}

async function playClip() {
  const q = state.quiz, c = q.clips[q.at];
  $("said-player").replaceChildren(...c.players.map((p) => new Option(p, p)));
  $("clip-from").textContent = `from ${c.from}`;
  $("outcome").textContent = `Clip ${q.at + 1} of ${q.clips.length}: loading…`;
  $("answer").disabled = $("nobody").disabled = true;
  if (!c.images) {  // every frame first (with the caller's token: a team's own clip is its PIN's), then played at the clip's own rate
    const token = localStorage.getItem(KEY);
    const headers = token ? { Authorization: "Bearer " + token } : {};
    c.images = await Promise.all(Array.from({ length: c.frames }, async (_, k) => {
      const r = await fetch(`/api/practice/quiz/clips/${c.clip}/${k}.jpg`, { headers });
      return { src: r.ok ? URL.createObjectURL(await r.blob()) : "" };
    }));
  }
  $("outcome").textContent = `Clip ${q.at + 1} of ${q.clips.length}`;
  $("answer").disabled = $("nobody").disabled = false;
  for (const img of c.images) {
    if (state.quiz !== q || q.clips[q.at] !== c) return;
    $("clip").src = img.src;
    await wait(1000 / c.fps);
  }
  $("clip").dataset.played = String(Number($("clip").dataset.played || 0) + 1);
}

async function answer(nobody) {
  const q = state.quiz;
  if (!q || q.at >= q.clips.length) return;
  try {
    const body = { player: player(), clip: q.clips[q.at].clip };
    if (!nobody) { body.said_player = $("said-player").value; body.said_signal = $("said-signal").value; }
    $("answer").disabled = $("nobody").disabled = true;
    const r = await api("POST", "/api/practice/quiz/answer", body);
    const text = (id) => (q.signals.find((s) => s.signal === id) || { text: id === "free" ? "their team's Free Signal" : id.replaceAll("_", " ") }).text;
    const truth = r.truth.player ? `${r.truth.player}: ${text(r.truth.signal)}` : "nobody signalled";
    $("outcome").textContent = `${r.outcome}: ${truth}. You: ${r.tally.hits} hits, ${r.tally.misses} misses, ${r.tally.false_alarms} false alarms, d′ ${r.tally.d_prime.toFixed(2)}`;
    $("outcome").dataset.answered = String(q.at + 1);
    await loadBoard();
    q.at += 1;
    if (q.at < q.clips.length) { await wait(1200); playClip(); } else { $("outcome").textContent += " — round over."; }
  } catch (e) { $("outcome").textContent = e.message; $("answer").disabled = $("nobody").disabled = false; }
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
  $("player").addEventListener("change", () => { localStorage.setItem("practice-player", $("player").value.trim()); loadHistory(); loadCalibration().catch(() => {}); });
  const cards = await api("GET", "/api/practice/cards");
  for (const c of cards.cards) $("card").append(new Option(c.text, c.signal));
  for (const c of cards.cards) $("cal-signal").append(new Option(c.text, c.signal));
  if (params.get("card")) $("card").value = params.get("card");
  if (params.get("calibrate")) $("cal-signal").value = params.get("calibrate");
  $("team").value = params.get("team") || localStorage.getItem("practice-team") || "";
  $("start").addEventListener("click", startDrill);
  $("record").addEventListener("click", addDemo);
  $("enrol").addEventListener("click", enrol);
  $("try").addEventListener("click", tryFree);
  $("clear").addEventListener("click", () => { state.demos = []; $("demo-count").textContent = "0 demonstrations"; $("enrol").disabled = true; });
  $("quiz-start").addEventListener("click", startQuiz);
  $("replay").addEventListener("click", () => { if (state.quiz && state.quiz.at < state.quiz.clips.length) playClip(); });
  $("unlock").addEventListener("click", unlock);
  $("pin").addEventListener("keydown", (e) => { if (e.key === "Enter") unlock(); });
  $("cal-signal").addEventListener("change", () => loadCalibration().catch(() => {}));
  $("cal-record").addEventListener("click", recordPerformance);
  $("cal-go").addEventListener("click", calibrate);
  $("cal-try").addEventListener("click", tryCalibrated);
  $("cal-clear").addEventListener("click", () => { state.perfs = []; $("cal-count").textContent = "0 performances"; $("cal-go").disabled = true; });
  $("reh-start").addEventListener("click", startRehearsal);
  $("reh-join").addEventListener("click", joinRehearsal);
  $("seen").addEventListener("click", seen);
  $("answer").addEventListener("click", () => answer(false));
  $("nobody").addEventListener("click", () => answer(true));
  const saved = localStorage.getItem("practice-team");
  if (saved && localStorage.getItem(KEY)) await showTeam(saved).catch(() => { $("team-status").textContent = ""; });
  await loadCalibration().catch(() => {});
  document.body.dataset.ready = "1";
  loadHistory().catch(() => {});
  loadBoard().catch(() => {});
  if (params.get("rehearsal")) spot(params.get("rehearsal"));
}

init().catch((e) => { $("live").textContent = e.message; });
