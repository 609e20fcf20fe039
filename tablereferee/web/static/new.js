// The New-table page: the game's form from GET /api/games, checked by the engine
// (POST /api/setup/validate), cameras with their pictures, seats and zones proposed by the
// server and dragged here, and the table created (POST /api/setup/table).
// Every refusal is {"error": {name, message, field}}: shown by name next to its field.
(function () {
  "use strict";

  const SVG = "http://www.w3.org/2000/svg";
  const state = {
    games: [],
    signalChoices: {},
    teams: {}, // team -> players, as the engine made them or as changed here
    teamsEdited: false,
    touched: new Set(), // option names changed on this page: only these are sent
    cameras: [], // {id, name, size, snapshot, proposal}
  };

  const $ = (sel) => document.querySelector(sel);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) node.append(c);
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    return node;
  }

  // -- talking to the server -------------------------------------------------------------
  // The scorer's token: from the scorer link (#scorer=TOKEN, as `referee serve` prints it, or
  // ?token=TOKEN), kept where the phone page keeps its own (so a scorer signed in on /phone is
  // signed in here); sent as `Authorization: Bearer TOKEN`.
  const KEY = "referee.token";
  function token() {
    const hash = new URLSearchParams(location.hash.replace(/^#/, "")).get("scorer");
    const q = hash || new URLSearchParams(location.search).get("token");
    if (q) localStorage.setItem(KEY, q);
    return localStorage.getItem(KEY);
  }

  async function api(method, url, body) {
    const headers = {};
    const t = token();
    if (t) headers["Authorization"] = "Bearer " + t;
    let payload;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(url, { method, headers, body: payload, credentials: "same-origin" });
    } catch (e) {
      throw { name: "ServerUnreachable", message: "the referee's server does not answer", field: null };
    }
    let data = null;
    try {
      data = await res.json();
    } catch (e) {
      data = null;
    }
    if (!res.ok) {
      const err = (data && data.error) || {};
      throw {
        name: err.name || "HTTP" + res.status,
        message: err.message || (data && data.detail) || res.statusText,
        field: err.field === undefined ? null : err.field,
      };
    }
    return data;
  }

  // -- errors next to their fields -----------------------------------------------------------
  function clearErrors() {
    document.querySelectorAll(".field-error").forEach((p) => {
      p.hidden = true;
      p.textContent = "";
    });
    document.querySelectorAll(".has-error").forEach((n) => n.classList.remove("has-error"));
  }

  function slotFor(field) {
    if (!field) return $("#form-error");
    let f = field;
    while (f) {
      const slot = document.querySelector(`.field-error[data-error-for="${CSS.escape(f)}"]`);
      if (slot) return slot;
      f = f.includes(".") ? f.slice(0, f.lastIndexOf(".")) : "";
    }
    return $("#form-error");
  }

  function showError(err) {
    const slot = slotFor(err.field);
    slot.textContent = "";
    slot.append(el("strong", { text: err.name }), document.createTextNode(": " + err.message));
    slot.hidden = false;
    slot.dataset.errorName = err.name;
    const box = slot.closest(".field") || slot.parentElement;
    if (box) box.classList.add("has-error");
    slot.scrollIntoView({ block: "nearest" });
  }

  function status(text) {
    $("#status").textContent = text;
  }

  // -- the game ------------------------------------------------------------------------------
  function game() {
    return state.games.find((g) => g.name === $("#game").value);
  }

  function variant() {
    const g = game();
    return g && g.variants.length ? g.variants.find((v) => v.name === $("#variant").value) : null;
  }

  function options() {
    const v = variant();
    return v ? v.options : game().options;
  }

  function renderGame() {
    const g = game();
    const vs = $("#variant");
    vs.replaceChildren(...g.variants.map((v) => el("option", { value: v.name, text: v.title })));
    $("#variant-row").hidden = !g.variants.length;
    state.touched.clear();
    state.teamsEdited = false;
    renderVariant();
    $("#seat-direction").textContent =
      "Seat 1 is nearest the camera; then " + g.seat_direction + " round the table, as the camera sees it.";
    $("#signals-section").hidden = !g.signals;
    while (players().length < g.players.min) addPlayer("");
    check(true);
  }

  function renderVariant() {
    const g = game();
    const range = (variant() || g).players;
    $("#player-range").textContent =
      range.min === range.max ? `${range.min} players.` : `${range.min} to ${range.max} players.`;
    renderOptions();
  }

  function renderOptions() {
    const box = $("#options");
    box.replaceChildren();
    for (const o of options()) box.append(optionField(o));
  }

  function optionField(o) {
    const id = "opt-" + o.name;
    let input;
    if (o.type === "bool" && !o.nullable) {
      input = el("input", { type: "checkbox", id, checked: !!o.default });
    } else if (o.type === "bool" || o.choices.length) {
      const values = o.type === "bool" ? [true, false] : o.choices;
      input = el("select", { id });
      if (o.nullable) input.append(el("option", { value: "", text: "automatic" }));
      for (const v of values) {
        const label = v === true ? "yes" : v === false ? "no" : String(v);
        input.append(el("option", { value: JSON.stringify(v), text: label, selected: v === o.default }));
      }
      if (o.nullable && o.default === null) input.value = "";
    } else if (o.type === "int") {
      input = el("input", { type: "number", id, step: 1, value: o.default === null ? "" : o.default });
      if (o.nullable || o.default_from_players) input.placeholder = o.default_from_players ? "from the players" : "none";
    } else {
      input = el("input", { type: "text", id, value: o.default === null ? "" : o.default });
      if (o.default_from_players || o.nullable) input.placeholder = o.default_from_players ? "the first player" : "none";
    }
    input.dataset.option = o.name;
    input.dataset.testid = "option-" + o.name;
    input.addEventListener("change", () => {
      state.touched.add(o.name);
      if (o.name === "free_signal") renderSignals();
      check(true);
    });
    return el(
      "div",
      { class: "field option", "data-field": "options." + o.name },
      el("label", { for: id }, el("code", { text: o.name }), " ", input),
      el("p", { class: "hint", text: `${o.description} (${o.expected})` }),
      el("p", { class: "field-error", "data-error-for": "options." + o.name, role: "alert", hidden: true })
    );
  }

  function optionValues() {
    const out = {};
    for (const o of options()) {
      if (!state.touched.has(o.name)) continue;
      const input = document.getElementById("opt-" + o.name);
      if (input.type === "checkbox") out[o.name] = input.checked;
      else if (input.tagName === "SELECT") out[o.name] = input.value === "" ? null : JSON.parse(input.value);
      else if (input.type === "number") out[o.name] = input.value === "" ? null : Number(input.value);
      else out[o.name] = input.value === "" ? null : input.value;
    }
    return out;
  }

  // -- players and teams ----------------------------------------------------------------------
  function players() {
    return [...document.querySelectorAll("#players input")].map((i) => i.value.trim());
  }

  function addPlayer(name) {
    const li = el("li", { class: "player" });
    const input = el("input", { value: name, placeholder: "name", "data-testid": "player-name" });
    input.addEventListener("change", () => {
      state.teamsEdited = false;
      check(true);
    });
    const move = (d) => () => {
      const sib = d < 0 ? li.previousElementSibling : li.nextElementSibling;
      if (!sib) return;
      d < 0 ? sib.before(li) : sib.after(li);
      check(true);
    };
    li.append(
      input,
      el("button", { type: "button", title: "earlier seat", text: "\u2191", onclick: move(-1) }),
      el("button", { type: "button", title: "later seat", text: "\u2193", onclick: move(1) }),
      el("button", { type: "button", title: "remove", text: "\u00d7", onclick: () => (li.remove(), check(true)) })
    );
    $("#players").append(li);
    return input;
  }

  function renderTeams() {
    const names = Object.keys(state.teams);
    $("#teams-section").hidden = !names.length;
    const box = $("#teams");
    box.replaceChildren();
    for (const p of players()) {
      if (!p) continue;
      const current = names.find((t) => state.teams[t].includes(p));
      const select = el("select", { "data-player": p, "data-testid": "team-of-" + p });
      for (const t of names) select.append(el("option", { value: t, text: t, selected: t === current }));
      select.addEventListener("change", () => {
        for (const t of names) state.teams[t] = state.teams[t].filter((q) => q !== p);
        state.teams[select.value].push(p);
        state.teamsEdited = true;
        check(true);
      });
      box.append(el("label", { class: "team-of" }, p + " ", select));
    }
    renderSignals();
  }

  function renderSignals() {
    const g = game();
    const box = $("#signals");
    const before = signalValues();
    box.replaceChildren();
    if (!g.signals) return;
    const free = freeSignalOn();
    for (const t of Object.keys(state.teams)) {
      const select = el("select", { "data-team": t, "data-testid": "signal-" + t });
      select.append(el("option", { value: "random", text: "drawn at random from the Signal cards" }));
      select.append(el("option", { value: "free", text: "Free Signal: the team invents its own", disabled: !free }));
      select.value = before[t] && (before[t] !== "free" || free) ? before[t] : free ? "free" : "random";
      box.append(
        el(
          "div",
          { class: "field" },
          el("label", {}, t + " ", select),
          el("p", { class: "field-error", "data-error-for": "signals." + t, role: "alert", hidden: true })
        )
      );
    }
  }

  function freeSignalOn() {
    const input = document.getElementById("opt-free_signal");
    return !!(input && input.checked);
  }

  function signalValues() {
    const out = {};
    document.querySelectorAll("#signals select").forEach((s) => (out[s.dataset.team] = s.value));
    return out;
  }

  function setupBody() {
    const g = game();
    const body = { game: g.name, players: players().filter((p) => p), options: optionValues() };
    if (variant()) body.variant = variant().name;
    if (state.teamsEdited) body.teams = state.teams;
    if (g.signals) body.signals = signalValues();
    return body;
  }

  let checking = 0;
  async function check(quiet) {
    const mine = ++checking;
    if (quiet && !players().some((p) => p)) return null; // nobody named yet: nothing to check
    try {
      const res = await api("POST", "/api/setup/validate", setupBody());
      if (mine !== checking) return res;
      clearErrors();
      if (!state.teamsEdited) state.teams = res.teams || {};
      renderTeams();
      if (!quiet) status("The referee accepts this table.");
      return res;
    } catch (err) {
      if (mine !== checking) return null;
      clearErrors();
      showError(err);
      if (!quiet) status("");
      return null;
    }
  }

  // -- cameras ----------------------------------------------------------------------------------
  async function loadWebcams() {
    const sel = $("#webcam-index");
    let found = [];
    try {
      found = (await api("GET", "/api/setup/webcams")).webcams;
    } catch (e) {
      found = [];
    }
    const indices = found.length ? found.map((w) => w.index) : [0, 1, 2, 3];
    sel.replaceChildren(...indices.map((i) => el("option", { value: i, text: "webcam " + i })));
  }

  async function openCamera(ev) {
    ev.preventDefault();
    clearErrors();
    const name = $("#camera-name").value.trim() || "cam" + (state.cameras.length + 1);
    const kind = document.querySelector('input[name="kind"]:checked').value;
    status("Opening the camera\u2026");
    try {
      let cam;
      if (kind === "upload") {
        const file = $("#camera-file").files[0];
        if (!file) throw { name: "NoFile", message: "choose a video or a picture to send", field: "cameras." + name };
        const form = new FormData();
        form.append("name", name);
        form.append("file", file);
        cam = await api("POST", "/api/setup/cameras/upload", form);
      } else {
        const source = kind === "webcam" ? $("#webcam-index").value : $("#camera-path").value.trim();
        cam = await api("POST", "/api/setup/cameras", { name, source });
      }
      state.cameras = state.cameras.filter((c) => c.name !== cam.name);
      state.cameras.push(cam);
      renderCameras();
      status(`Camera ${cam.name} is open (${cam.kind}, ${cam.size[0]}\u00d7${cam.size[1]}).`);
      await propose(cam);
    } catch (err) {
      if (err.field && err.field.startsWith("cameras.") && !document.querySelector(`[data-error-for="${CSS.escape(err.field)}"]`)) {
        err.field = "cameras";
      }
      showError(err);
      status("");
    }
  }

  async function propose(cam, moved) {
    const body = { game: game().name, players: players().filter((p) => p) };
    if (moved) {
      body.cloth = cam.proposal.cloth;
      body.positions = cam.proposal.seats.map((s) => s.position);
    }
    try {
      const p = await api("POST", `/api/setup/cameras/${cam.id}/propose`, body);
      cam.proposal = p;
      if (!cam.use) {
        // what this camera watches: the cards on the cloth, the players' bodies, or both
        const faces = (p.faces || []).length > 0;
        cam.use = p.cloth_found && !faces ? "cards" : !p.cloth_found && faces ? "players" : "both";
      }
      renderCameras();
      const notes = (p.notes || []).map((n) => n.charAt(0).toUpperCase() + n.slice(1) + ".");
      status([`Seats and zones proposed on ${cam.name}: drag them where they belong.`, ...notes].join(" "));
    } catch (err) {
      showError(err);
    }
  }

  function renderCameras() {
    const box = $("#cameras");
    box.replaceChildren();
    for (const cam of state.cameras) box.append(cameraCard(cam));
  }

  function cameraCard(cam) {
    const [w, h] = cam.size;
    const img = el("img", { src: cam.snapshot + "?t=" + Date.now(), alt: "the picture of camera " + cam.name });
    const overlay = svg("svg", { viewBox: `0 0 ${w} ${h}`, preserveAspectRatio: "none", class: "overlay" });
    overlay.dataset.testid = "overlay-" + cam.name;
    const pic = el("div", { class: "picture" }, img, overlay);
    const card = el(
      "article",
      { class: "camera", "data-camera": cam.name, "data-testid": "camera-" + cam.name },
      el("h3", { text: `${cam.name} \u2014 ${cam.kind}` }),
      useField(cam),
      pic,
      el(
        "div",
        { class: "camera-actions" },
        el("button", { type: "button", text: "Propose seats and zones", onclick: () => propose(cam) }),
        el("button", {
          type: "button",
          text: "Redo the zones round the cloth and seats as moved",
          disabled: !cam.proposal,
          onclick: () => propose(cam, true),
        }),
        el("button", {
          type: "button",
          text: "New picture",
          onclick: async () => {
            await api("GET", cam.snapshot + "?fresh=true").catch(() => null);
            renderCameras();
          },
        }),
        el("button", {
          type: "button",
          text: "Close",
          onclick: async () => {
            await api("DELETE", `/api/setup/cameras/${cam.id}`).catch(() => null);
            state.cameras = state.cameras.filter((c) => c !== cam);
            renderCameras();
          },
        })
      ),
      el("p", { class: "field-error", "data-error-for": "cameras." + cam.name, role: "alert", hidden: true })
    );
    if (cam.proposal) drawProposal(cam, overlay);
    return card;
  }

  const USES = {
    both: "the cards and the players",
    cards: "the cards on the table (its zones)",
    players: "the players (their body signals)",
  };

  function useField(cam) {
    const select = el("select", { "data-testid": "use-" + cam.name });
    for (const [value, text] of Object.entries(USES)) {
      select.append(el("option", { value, text, selected: (cam.use || "both") === value }));
    }
    select.addEventListener("change", () => (cam.use = select.value));
    return el("label", { class: "camera-use" }, "This camera watches ", select);
  }

  function toSvg(overlay, ev) {
    const pt = overlay.createSVGPoint();
    pt.x = ev.clientX;
    pt.y = ev.clientY;
    const p = pt.matrixTransform(overlay.getScreenCTM().inverse());
    const vb = overlay.viewBox.baseVal;
    return [Math.max(0, Math.min(vb.width, p.x)), Math.max(0, Math.min(vb.height, p.y))];
  }

  function handle(overlay, x, y, cls, onmove, label) {
    const r = Math.max(6, overlay.viewBox.baseVal.width / 120);
    const c = svg("circle", { cx: x, cy: y, r, class: "handle " + cls });
    if (label) c.dataset.testid = label;
    c.addEventListener("pointerdown", (ev) => {
      ev.preventDefault();
      c.setPointerCapture(ev.pointerId);
      const move = (e) => {
        const [nx, ny] = toSvg(overlay, e);
        c.setAttribute("cx", nx);
        c.setAttribute("cy", ny);
        onmove(nx, ny);
      };
      const up = () => {
        c.removeEventListener("pointermove", move);
        c.removeEventListener("pointerup", up);
      };
      c.addEventListener("pointermove", move);
      c.addEventListener("pointerup", up);
    });
    overlay.append(c);
    return c;
  }

  function pointsAttr(poly) {
    return poly.map((p) => p.join(",")).join(" ");
  }

  function drawProposal(cam, overlay) {
    const p = cam.proposal;
    const cloth = svg("polygon", { points: pointsAttr(p.cloth), class: "cloth" });
    overlay.append(cloth);
    // one handle per point: the zones that share a corner (and the cloth's corner there) move together
    const vertices = new Map();
    const share = (pt, member) => {
      const key = pt[0] + "," + pt[1];
      if (!vertices.has(key)) vertices.set(key, { pt: [...pt], members: [] });
      vertices.get(key).members.push(member);
    };
    for (const z of p.zones) {
      const poly = svg("polygon", { points: pointsAttr(z.polygon), class: "zone zone-" + z.role });
      poly.dataset.zone = z.name;
      overlay.append(poly);
      const label = svg("text", { class: "zone-label" });
      const [lx, ly] = centre(z.polygon);
      label.setAttribute("x", lx);
      label.setAttribute("y", ly);
      label.textContent = z.player || z.name;
      overlay.append(label);
      z.polygon.forEach((pt, i) => share(pt, { list: z.polygon, i, shape: poly, name: `${z.name}-${i}` }));
    }
    p.cloth.forEach((pt, i) => share(pt, { list: p.cloth, i, shape: cloth, name: `cloth-${i}` }));
    for (const { pt, members } of vertices.values()) {
      const kind = members.every((m) => m.shape === cloth) ? "cloth-handle" : "zone-handle";
      const h = handle(
        overlay,
        pt[0],
        pt[1],
        kind,
        (x, y) => {
          for (const m of members) {
            m.list[m.i] = [round(x), round(y)];
            m.shape.setAttribute("points", pointsAttr(m.list));
          }
        },
        "handle-" + members[0].name
      );
      h.dataset.members = members.map((m) => m.name).join(" ");
    }
    const [w, h] = cam.size;
    for (const s of p.seats) {
      const dot = handle(
        overlay,
        s.position[0],
        s.position[1],
        "seat-handle" + (s.from === "face" ? " seen" : ""),
        (x, y) => {
          s.position = [round(x), round(y)];
        },
        `seat-${s.player}`
      );
      const title = svg("title", {});
      const why = { face: "a face was seen here", moved: "placed by hand", spaced: "no face seen: placed in a gap" };
      title.textContent = `${s.player}'s seat (${why[s.from] || s.from})`;
      dot.append(title);
    }
    const calib = p.calibration;
    if (calib) {
      for (const seat of calib.seats) {
        const r = seat.region;
        const rect = svg("rect", { class: "region" });
        const place = () => {
          rect.setAttribute("x", r[0] * w);
          rect.setAttribute("y", r[1] * h);
          rect.setAttribute("width", (r[2] - r[0]) * w);
          rect.setAttribute("height", (r[3] - r[1]) * h);
        };
        place();
        overlay.insertBefore(rect, overlay.firstChild);
        const corner = (ix, iy) =>
          handle(overlay, r[ix] * w, r[iy] * h, "region-handle", (x, y) => {
            r[ix] = round4(x / w);
            r[iy] = round4(y / h);
            place();
          }, `region-${seat.name}-${ix}${iy}`);
        corner(0, 1);
        corner(2, 3);
      }
    }
  }

  function centre(poly) {
    const n = poly.length;
    return [poly.reduce((a, p) => a + p[0], 0) / n, poly.reduce((a, p) => a + p[1], 0) / n];
  }

  const round = (v) => Math.round(v * 10) / 10;
  const round4 = (v) => Math.round(v * 10000) / 10000;

  function cameraBody() {
    const cams = state.cameras.filter((c) => c.proposal);
    const zones = cams.filter((c) => c.use !== "players").flatMap((c) => c.proposal.zones);
    const seats = cams
      .filter((c) => c.use !== "cards" && c.proposal.calibration)
      .flatMap((c) => c.proposal.calibration.seats);
    const body = { cameras: state.cameras.map((c) => ({ id: c.id })), zones };
    if (seats.length) {
      body.calibration = { format: "table-calibration/1", proposed: false, mirrored: false, table_polygon: null, seats };
    }
    return body;
  }

  async function create() {
    clearErrors();
    status("Creating the table\u2026");
    try {
      const res = await api("POST", "/api/setup/table", { ...setupBody(), ...cameraBody() });
      const teams = Object.entries(res.teams || {})
        .map(([t, m]) => `${t}: ${m.join(", ")}`)
        .join("; ");
      status(
        `Table created: ${res.players.join(", ")}` +
          (teams ? ` (${teams})` : "") +
          `, ${res.zones} zone${res.zones === 1 ? "" : "s"} on ${res.cameras.length} camera${res.cameras.length === 1 ? "" : "s"}.`
      );
      if (res.table_file) $("#status").append(document.createTextNode(` Saved as ${res.table_file}.`));
      if (res.table_file_error) showError(res.table_file_error);
      const join = res.started && res.started.join;
      if (join) {
        const link = el("a", { href: "/", text: "Open the table screen" });
        $("#status").append(
          document.createTextNode(
            ` Players join at ${join.url.startsWith("/") ? location.origin + join.url : join.url}` +
              ` with the code ${join.code}. `
          ),
          link
        );
      }
      document.body.dataset.created = "true";
    } catch (err) {
      showError(err);
      status("");
    }
  }

  // -- start ------------------------------------------------------------------------------------
  async function start() {
    try {
      const data = await api("GET", "/api/games");
      state.games = data.games;
      state.signalChoices = data.signal_choices;
    } catch (err) {
      showError(err);
      return;
    }
    $("#game").replaceChildren(...state.games.map((g) => el("option", { value: g.name, text: g.title })));
    $("#game").addEventListener("change", renderGame);
    $("#variant").addEventListener("change", () => {
      state.touched.clear();
      renderVariant();
      check(true);
    });
    $("#add-player").addEventListener("click", () => addPlayer("").focus());
    $("#check").addEventListener("click", () => check(false));
    $("#create").addEventListener("click", create);
    $("#camera-form").addEventListener("submit", openCamera);
    loadWebcams();
    renderGame();
    document.body.dataset.ready = "true";
  }

  window.newTable = { state, check, create, propose };
  start();
})();
