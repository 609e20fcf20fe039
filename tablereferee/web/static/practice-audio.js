// Audible signal practice: drills with the browser's microphone. The microphone is read at
// 16 kHz mono by an AudioWorklet (a ScriptProcessor where there is none); whatever it gathered
// since the last answer is posted as 16-bit PCM, the next once the verdict so far is back.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const RATE = 16000;
const MIN_CHUNK = 0.2; // seconds of sound a chunk holds at least
const state = { mic: null, capturing: false, parts: [], n: 0, ready: null, latencies: [] };

const KEY = "referee.token"; // the phone page's and the practice page's: a team unlocked there is unlocked here

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
  if (!r.ok) { const e = new Error((data.error && data.error.message) || r.statusText); e.name = (data.error && data.error.name) || "Error"; throw e; }
  return data;
}

function player() {
  const p = $("player").value.trim();
  if (!p) throw new Error("write your name first");
  return p;
}

const wait = (ms) => new Promise((ok) => setTimeout(ok, ms));

// -- the microphone --------------------------------------------------------------------------

const WORKLET = `
class Tap extends AudioWorkletProcessor {
  process(inputs) { const ch = inputs[0] && inputs[0][0]; if (ch) this.port.postMessage(ch.slice(0)); return true; }
}
registerProcessor("tap", Tap);`;

function heard(samples) {
  if (!state.capturing) return;
  state.parts.push(samples);
  state.n += samples.length;
  if (state.ready && state.n >= MIN_CHUNK * state.mic.rate) { const go = state.ready; state.ready = null; go(); }
}

async function microphone() {
  // opened for each drill once its card is drawn (the models are loaded by then), closed after it
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, echoCancellation: true, noiseSuppression: false, autoGainControl: false }, video: false,
  });
  let ctx;
  try { ctx = new AudioContext({ sampleRate: RATE }); } catch { ctx = new AudioContext(); }
  const source = ctx.createMediaStreamSource(stream);
  const mute = ctx.createGain();
  mute.gain.value = 0;
  mute.connect(ctx.destination);
  if (ctx.audioWorklet) {
    await ctx.audioWorklet.addModule(URL.createObjectURL(new Blob([WORKLET], { type: "text/javascript" })));
    const node = new AudioWorkletNode(ctx, "tap");
    node.port.onmessage = (e) => heard(e.data);
    source.connect(node).connect(mute);
  } else {
    const node = ctx.createScriptProcessor(2048, 1, 1);
    node.onaudioprocess = (e) => heard(e.inputBuffer.getChannelData(0).slice(0));
    source.connect(node).connect(mute);
  }
  if (ctx.state !== "running") await ctx.resume();
  state.mic = { stream, ctx, rate: ctx.sampleRate };
  return state.mic;
}

function closeMicrophone() {
  if (!state.mic) return;
  state.mic.stream.getTracks().forEach((t) => t.stop());
  state.mic.ctx.close().catch(() => {});
  state.mic = null;
}

function gathered() {
  // what the microphone gathered since the last chunk, once it holds MIN_CHUNK seconds
  if (state.n >= MIN_CHUNK * state.mic.rate) return Promise.resolve();
  return new Promise((ok) => { state.ready = ok; });
}

function take() {
  const pcm = new Int16Array(state.n);
  let at = 0;
  for (const part of state.parts) {
    for (let i = 0; i < part.length; i++) pcm[at + i] = Math.max(-32768, Math.min(32767, Math.round(part[i] * 32767)));
    at += part.length;
  }
  state.parts = []; state.n = 0;
  return pcm;
}

// -- the drill -------------------------------------------------------------------------------

async function startDrill() {
  const btn = $("start");
  btn.disabled = true;
  $("verdict").hidden = true;
  let talk = null;
  try {
    const body = { player: player(), table_talk: $("table-talk").checked };
    const team = $("team").value.trim();
    if ($("card").value === "quiet") body.quiet = true;
    else if ($("card").value === "@team") {
      if (!team) throw new Error("write your team's name (and unlock it with its PIN) first");
      body.team = team;
    } else if ($("card").value) body.signal = $("card").value;
    if (params.get("window")) body.window = Number(params.get("window"));
    const d = await api("POST", "/api/practice/audio-drill", body);
    const mic = await microphone();
    $("card-text").textContent = d.card.text;
    const count = params.has("countdown") ? Number(params.get("countdown")) : d.countdown;
    for (let s = count; s > 0; s--) { $("countdown").textContent = String(s); await wait(1000); }
    $("countdown").textContent = "";
    $("live").textContent = "Quiet for a second: the referee listens to the room…";
    if (d.table_talk && $("play-talk").checked) {
      talk = new Audio(d.table_talk_url);
      talk.loop = true;
      talk.play().catch(() => {});
    }
    state.parts = []; state.n = 0; state.latencies = []; state.capturing = true;
    const began = performance.now();
    for (;;) {
      await gathered();
      const pcm = take();
      const sent = performance.now();
      const r = await api("POST", `/api/practice/audio-drill/${d.drill}/audio?rate=${mic.rate}`, pcm.buffer, "application/octet-stream");
      state.latencies.push(performance.now() - sent);
      $("level").value = Math.max(0, r.level_db);
      if (r.t >= d.calibration) {
        $("live").textContent = r.heard ? "Heard!" : `Listening… (${r.hearing})`;
      }
      if (r.done || (performance.now() - began) / 1000 > d.window + 10) break;
    }
    state.capturing = false;
    closeMicrophone();
    const v = await api("POST", `/api/practice/audio-drill/${d.drill}/finish`);
    showVerdict(v);
    await loadHistory();
  } catch (e) {
    $("live").textContent = e.message;
  } finally {
    state.capturing = false;
    closeMicrophone();
    if (talk) talk.pause();
    $("card-text").textContent = "";
    btn.disabled = false;
  }
}

const median = (xs) => (xs.length ? xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)] : null);

function showVerdict(v) {
  $("verdict").hidden = false;
  const w = $("words");
  w.textContent = v.words;
  const good = v.kind === "quiet" ? v.clean : v.heard;
  w.className = "words " + (good ? "heard" : "unheard");
  $("live").textContent = v.kind === "quiet" ? (v.clean ? "No false alarm" : "False alarm") : (v.heard ? "Heard" : "Not heard");
  $("taken").textContent = v.taken_for ? v.taken_for.replaceAll("_", " ") : "-";
  $("delay").textContent = v.delay === null ? "-" : `${v.delay.toFixed(2)} s from the start of the sound to recognition`;
  $("score").textContent = v.kind === "quiet" ? "-" : `${Math.round(v.nonchalance.score)} of 100`;
  $("false-alarms").textContent = v.false_alarms.length
    ? v.false_alarms.map((f) => `${f.text} at ${f.start.toFixed(1)}-${f.end.toFixed(1)} s`).join("; ")
    : "none";
  const lat = median(state.latencies);
  $("latency").textContent = `${v.seconds.toFixed(1)} s in ${v.chunks} chunks` + (lat === null ? "" : `, ${Math.round(lat)} ms from a chunk to the verdict so far (median)`);
  $("parts").replaceChildren(...(v.nonchalance_lines || []).slice(1).map((line) => {
    const li = document.createElement("li"); li.textContent = line; return li;
  }));
  drawEvidence(v.evidence);
}

function drawEvidence(e) {
  const c = $("evidence"), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  if (!e || !e.t.length) { g.fillStyle = "#1d232b"; g.fillText("too little sound to draw", 10, 20); return; }
  const t0 = 0, t1 = Math.max(e.t[e.t.length - 1] + 0.5, 1);
  const X = (t) => 30 + (c.width - 40) * (t - t0) / (t1 - t0);
  const Y = (p) => c.height - 20 - (c.height - 40) * p;
  g.fillStyle = "#eceff3"; // where the others talked
  for (const [a, b] of e.others || []) g.fillRect(X(a), 10, X(b) - X(a), c.height - 30);
  if (e.event) { g.fillStyle = "#d7f0dd"; g.fillRect(X(e.event[0]), 10, X(e.event[1]) - X(e.event[0]), c.height - 30); }
  // loudness above the room, 0-40 dB, faint
  g.strokeStyle = "#b8c0c8"; g.beginPath();
  e.t.forEach((t, i) => { const y = Y(Math.max(0, Math.min(1, e.loudness[i] / 40))); if (i) g.lineTo(X(t), y); else g.moveTo(X(t), y); });
  g.stroke();
  g.strokeStyle = "#a12a2a"; g.setLineDash([6, 4]); g.beginPath(); g.moveTo(30, Y(e.line)); g.lineTo(c.width - 10, Y(e.line)); g.stroke();
  g.setLineDash([]); g.strokeStyle = "#1d4f91"; g.lineWidth = 2; g.beginPath();
  e.t.forEach((t, i) => { const y = Y(e.score[i]); if (i) g.lineTo(X(t), y); else g.moveTo(X(t), y); });
  g.stroke(); g.lineWidth = 1;
  g.fillStyle = "#1d232b";
  g.fillText(e.name, 34, 14);
  g.fillText(`the line: ${e.line}`, c.width - 90, Y(e.line) - 4);
  g.fillStyle = "#8a96a3"; g.fillText("grey line: loudness above the room (0-40 dB); grey bands: the others talking", 34, c.height - 6);
  for (let s = 0; s <= t1; s++) { g.fillStyle = "#5b6570"; g.fillText(`${s}`, X(s) - 3, c.height - 8 - 12); }
}

async function loadHistory() {
  let name;
  try { name = player(); } catch { return; }
  const h = await api("GET", `/api/practice/audio-history/${encodeURIComponent(name)}`);
  const c = $("history"), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  const n = h.drills.length;
  h.drills.forEach((d, i) => {
    const x = 20 + (c.width - 40) * (n > 1 ? i / (n - 1) : 0.5), y = c.height - 15 - (c.height - 30) * d.score / 100;
    g.fillStyle = d.kind === "quiet" ? (d.false_alarms ? "#a12a2a" : "#1d4f91") : d.heard ? "#1f7a3a" : "#a12a2a";
    g.beginPath(); g.arc(x, y, 4, 0, 2 * Math.PI); g.fill();
  });
  g.fillStyle = "#5b6570"; g.fillText("nonchalance of each drill (red: not heard, or a false alarm; blue: a clean quiet drill)", 24, 12);
  const rows = Object.entries(h.per_signal).map(([sig, s]) => {
    const tr = document.createElement("tr");
    const fa = s.false_alarms_per_minute === null ? "-" : s.false_alarms_per_minute.toFixed(2);
    [sig, s.drills, s.heard, `${s.heard_with_table_talk} of ${s.with_table_talk}`,
      s.mean_delay === null ? "-" : `${s.mean_delay.toFixed(2)} s`, s.mean_nonchalance === null ? "-" : Math.round(s.mean_nonchalance), fa]
      .forEach((x) => { const td = document.createElement("td"); td.textContent = String(x); tr.append(td); });
    return tr;
  });
  $("per-signal").tBodies[0].replaceChildren(...rows);
}

async function unlock() {
  try {
    const team = $("team").value.trim();
    if (!team) throw new Error("write your team's name first");
    const r = await api("POST", `/api/teams/${encodeURIComponent(team)}/unlock`, { pin: $("pin").value.trim() });
    localStorage.setItem(KEY, r.token);
    localStorage.setItem("practice-team", team);
    $("pin").value = "";
    $("card").value = "@team";
    $("live").textContent = `${team} unlocked: "my team's own card" draws it.`;
  } catch (e) { $("live").textContent = e.message; }
}

// -- wiring ----------------------------------------------------------------------------------

async function init() {
  $("player").value = params.get("player") || localStorage.getItem("practice-player") || "";
  $("player").addEventListener("change", () => { localStorage.setItem("practice-player", $("player").value.trim()); loadHistory(); });
  const cards = await api("GET", "/api/practice/audio-cards");
  for (const c of cards.cards) $("card").append(new Option(c.text, c.signal));
  $("card").append(new Option("My team's own card (behind its PIN)", "@team"));
  $("card").append(new Option("No signal: talk normally (false alarms are counted)", cards.quiet.signal));
  $("team").value = params.get("team") || localStorage.getItem("practice-team") || "";
  $("unlock").addEventListener("click", unlock);
  if (params.get("card")) $("card").value = params.get("card");
  if (params.get("talk") === "1") $("table-talk").checked = true;
  if (params.get("aloud") === "0") $("play-talk").checked = false;
  $("start").addEventListener("click", startDrill);
  document.body.dataset.ready = "1";
  loadHistory().catch(() => {});
}

init().catch((e) => { $("live").textContent = e.message; });
