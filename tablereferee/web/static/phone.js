/* The phone (`/phone`, `/join/CODE`): one player's own buttons, the referee's yes/no questions,
   the team's secret signal behind the team PIN, and for the scorer the corrections and the
   egg/card entry by pictures. Joins with the code (from the address or typed), keeps its token
   in this browser, and reconnects by itself after a drop (the table comes back as it is now).

   The buttons are the server's (`GET /api/me`, built from the engine's legal actions); a call the
   referee refuses comes back as its named violation and is shown here, on this phone only. */
(function () {
  "use strict";
  const R = window.referee;
  const { el, replace } = R;
  const $ = (id) => document.getElementById(id);
  const KEY = "referee.token";
  const CALL_KINDS = new Set(["coccode", "caught", "chicchirichi"]);
  const CARD_FIELDS = new Set(["card", "cards", "discards", "discard", "egg", "breed"]);

  const state = {
    token: null,
    me: null,
    table: null,
    version: null,
    deckCards: null, // the scorer's /api/cards: value -> picture
    picking: null, // {button, picks: {field: value | [values]}}
    secret: null,
    socket: null,
    refreshing: null,
    again: false,
    challenges: null, // GET /api/challenges: {left: {team: n}} on a live table, else null
    watch: null, // the newest challenge the table told of: {number, headline, url}
  };

  // -- the token --------------------------------------------------------------------------------
  function readHash() {
    const m = /scorer=([^&]+)/.exec(location.hash || "");
    if (m) {
      localStorage.setItem(KEY, decodeURIComponent(m[1]));
      history.replaceState(null, "", location.pathname + location.search);
    }
  }

  function codeFromAddress() {
    const m = /\/join\/([^/?#]+)/.exec(location.pathname);
    if (m) return decodeURIComponent(m[1]);
    return new URLSearchParams(location.search).get("code") || "";
  }

  // -- messages on this phone -----------------------------------------------------------------
  function showViolation(err) {
    const box = $("violation");
    replace(box, [el("strong", { "data-testid": "violation-name" }, err.name || "Refused"), el("span", { "data-testid": "violation-message" }, R.cap(err.message || ""))]);
    box.hidden = false;
    $("ok").hidden = true;
    document.body.dataset.violation = err.name || "Refused";
  }

  function showOk(text) {
    $("violation").hidden = true;
    delete document.body.dataset.violation;
    const box = $("ok");
    box.textContent = text;
    box.hidden = !text;
  }

  // -- joining ------------------------------------------------------------------------------------
  async function showJoin(error) {
    $("main-view").hidden = true;
    $("join-view").hidden = false;
    document.body.dataset.view = "join";
    if (!$("code").value) $("code").value = codeFromAddress();
    if (error) {
      $("join-error").textContent = error;
      $("join-error").hidden = false;
    }
    let table;
    try {
      table = await R.api("/api/table");
    } catch (err) {
      $("join-error").textContent = err.message;
      $("join-error").hidden = false;
      return;
    }
    if (!table.ready) {
      replace($("players"), [el("p", {}, "No table is set up yet: ask the scorer.")]);
      return;
    }
    if (!$("code").value && table.join && table.join.code && codeFromAddress()) $("code").value = table.join.code;
    replace(
      $("players"),
      (table.players || []).map((p) =>
        el("button", { type: "button", "data-testid": "join-" + p.name, onclick: () => join(p.name) }, p.name + (p.team ? " (" + p.team + ")" : ""))
      )
    );
    document.body.dataset.ready = "true";
  }

  async function join(player) {
    const code = $("code").value.trim();
    try {
      const answer = await R.api("/api/join", { body: { code, player } });
      localStorage.setItem(KEY, answer.token);
      $("join-error").hidden = true;
      await start(answer.token);
    } catch (err) {
      $("join-error").textContent = err.name + ": " + R.cap(err.message);
      $("join-error").hidden = false;
    }
  }

  // -- the phone's own screen --------------------------------------------------------------------
  async function start(token) {
    state.token = token;
    try {
      state.me = await R.api("/api/me", { token });
    } catch (err) {
      if (err.status === 401) {
        localStorage.removeItem(KEY);
        return showJoin("This phone's sign-in is from another table: join again.");
      }
      if (err.status === 409) return showJoin(err.message);
      return showJoin(err.message);
    }
    $("join-view").hidden = true;
    $("main-view").hidden = false;
    document.body.dataset.view = "main";
    document.body.dataset.role = state.me.role.role;
    if (state.me.role.scorer && !state.deckCards) loadCards();
    loadChallenges();
    render();
    if (state.socket) state.socket.reopen(token);
    else state.socket = R.live(token, onTable, onConnection);
  }

  async function loadCards() {
    try {
      const answer = await R.api("/api/cards", { token: state.token });
      state.deckCards = {};
      for (const c of answer.cards || []) state.deckCards[c.value] = c;
      render();
    } catch (err) {
      state.deckCards = {};
    }
  }

  function onConnection(s) {
    $("offline").hidden = s === "open" || s === "refused";
  }

  function onTable(t) {
    if (t.type === "challenge") {
      state.watch = t;
      loadChallenges();
      return;
    }
    state.table = t;
    const changed = t.version !== state.version;
    state.version = t.version;
    renderStatus();
    if (changed) refresh();
  }

  /* The buttons again (after every change of the table): one request at a time. */
  async function refresh() {
    if (state.refreshing) {
      state.again = true;
      return state.refreshing;
    }
    state.refreshing = (async () => {
      do {
        state.again = false;
        try {
          state.me = await R.api("/api/me", { token: state.token });
        } catch (err) {
          if (err.status === 401) {
            localStorage.removeItem(KEY);
            state.refreshing = null;
            return showJoin("This phone's sign-in is no longer valid: join again.");
          }
        }
        render();
      } while (state.again);
      state.refreshing = null;
    })();
    return state.refreshing;
  }

  function deckOf() {
    // the table's view, or (before the first one has come over the WebSocket) the phone's own /api/me
    const t = state.table || {};
    const me = state.me || {};
    const game = t.game || me.game;
    if (game === "beccaccino") return "italian";
    if (game === "bestia") return String((t.view || {}).deck || me.deck || "").startsWith("italian") ? "italian" : "french";
    return game || "";
  }

  function picture(value, field) {
    if (!CARD_FIELDS.has(field)) return null;
    const known = state.deckCards && state.deckCards[value];
    if (known) return { src: known.picture, name: known.name };
    if (((state.table || {}).game || (state.me || {}).game) === "beccato") {
      if (value === "chick") return { src: "/api/cards/chick.png", name: "the Chick" };
      if (/^[a-z]+-\d+$/.test(value)) return { src: "/api/cards/" + encodeURIComponent("egg:" + value) + ".png", name: R.eggName(value) };
      const kind = field === "breed" ? "henhouse:" + value : "chicken:" + value + ":1";
      return { src: "/api/cards/" + encodeURIComponent(kind) + ".png", name: R.cap(value) };
    }
    return { src: "/api/cards/" + encodeURIComponent(value) + ".png", name: R.cardName(value, deckOf()) };
  }

  function renderStatus() {
    const t = state.table;
    if (!t) return;
    $("status").textContent = t.over ? "Game over." : t.waiting_for ? "Waiting for: " + R.plain(t.waiting_for) : "";
    const events = t.events || [];
    const last = events[events.length - 1];
    $("last").textContent = last ? "Last: " + ((last.lines || []).slice(1).join(" ") || last.text) : "";
  }

  function render() {
    const me = state.me;
    if (!me) return;
    document.body.dataset.ready = "true";
    document.body.dataset.version = String(me.version);
    const role = me.role || {};
    $("who").textContent = role.scorer ? "Scorer" : me.player || "Watching";
    $("team").textContent = me.team ? me.team : "";
    renderQuestions(me.questions || []);
    renderButtons(me.buttons || []);
    renderPicker();
    renderTeam();
    renderCorrections();
    renderChallenge();
  }

  // -- the instant challenge (a live table's) ---------------------------------------------------
  async function loadChallenges() {
    try {
      state.challenges = await R.api("/api/challenges", { token: state.token });
    } catch (err) {
      state.challenges = null; // a table without cameras: nothing to replay, no button
    }
    renderChallenge();
  }

  /* "Watch the challenge" once the table says one is ready; for a player, a Challenge button
     per opponent beside Caught!, with what the team has left. */
  function renderChallenge() {
    const box = $("challenge");
    const me = state.me;
    const parts = [];
    if (state.watch) {
      parts.push(
        el("p", { class: "ok" }, [
          el("a", { href: state.watch.url, "data-testid": "watch-challenge", target: "_blank", rel: "noopener" }, "Watch the challenge"),
          " — " + state.watch.headline,
        ])
      );
    }
    const left = state.challenges && me && me.team ? state.challenges.left[me.team] : undefined;
    if (left !== undefined && me.player && !me.over) {
      const players = ((state.table || {}).players || []).filter((p) => p.team && p.team !== me.team);
      parts.push(
        el("div", { class: "group", dataset: { group: "Challenge" } }, [
          el("p", { class: "group-title", "data-testid": "challenges-left" }, "Challenge — " + left + " left for " + me.team),
          ...players.map((p) =>
            el(
              "button",
              { type: "button", class: "secondary", "data-testid": "challenge-" + p.name, onclick: () => challenge(p.name) },
              p.name
            )
          ),
        ])
      );
    }
    box.hidden = parts.length === 0;
    replace(box, parts);
  }

  async function challenge(accused) {
    try {
      const made = await R.api("/api/challenges", { body: { accused }, token: state.token });
      showOk("Challenge " + made.number + " is ready: " + made.headline + ".");
      state.watch = { number: made.number, headline: made.headline, url: "/challenge#n=" + made.number };
    } catch (err) {
      showViolation(err); // NoChallengesLeft: the team has used its challenges of this game
    }
    loadChallenges();
  }

  function renderQuestions(qs) {
    const box = $("questions");
    box.hidden = qs.length === 0;
    replace(
      box,
      qs.length
        ? [
            el("h2", {}, "The referee asks"),
            ...qs.map((q) =>
              el("div", { class: "question", dataset: { question: q.id } }, [
                el("p", {}, q.text),
                el("div", { class: "row" }, [
                  el("button", { type: "button", class: "yes", "data-testid": "yes-" + q.id, onclick: () => answer(q.id, "yes") }, "Yes"),
                  el("button", { type: "button", class: "no", "data-testid": "no-" + q.id, onclick: () => answer(q.id, "no") }, "No"),
                ]),
              ])
            ),
          ]
        : []
    );
  }

  async function answer(id, yes) {
    try {
      await R.api("/api/questions/" + id, { body: { answer: yes }, token: state.token });
      showOk("Answered " + yes + ".");
    } catch (err) {
      showViolation(err);
    }
    refresh();
  }

  function buttonText(b, many) {
    if (b.kind === "caught" && many && b.action.target) return b.action.target;
    return b.label;
  }

  function renderButtons(buttons) {
    const groups = new Map();
    for (const b of buttons) {
      if (!groups.has(b.group)) groups.set(b.group, []);
      groups.get(b.group).push(b);
    }
    const parts = [];
    if (!buttons.length) parts.push(el("p", { class: "last" }, state.me && state.me.over ? "The game is over." : "Nothing for you to do right now."));
    for (const [group, list] of groups) {
      const many = list.length > 1;
      const call = CALL_KINDS.has(list[0].kind);
      const title = many ? group + (list[0].kind === "caught" ? " \u2014 pick whom" : "") : null;
      parts.push(
        el("div", { class: "group", dataset: { group } }, [
          title ? el("p", { class: "group-title" }, title) : null,
          ...list.map((b) =>
            el(
              "button",
              {
                type: "button",
                class: call ? "call" : "",
                "data-testid": "button-" + b.kind + (b.kind === "caught" && b.action.target ? "-" + b.action.target : ""),
                "data-kind": b.kind,
                onclick: () => press(b),
              },
              Object.keys(b.choose || {}).length ? b.label + "\u2026" : buttonText(b, many)
            )
          ),
        ])
      );
    }
    replace($("buttons"), parts);
  }

  /* A button's choices are the engine's legal actions (a Beccaccino lead's announcements among
     them, only while its player may still make one): nothing is guessed here. */
  function press(b) {
    if (Object.keys(b.choose || {}).length) {
      state.picking = { button: b, picks: {} };
      renderPicker();
      $("picker").scrollIntoView({ block: "start" });
      return;
    }
    send(b.action);
  }

  async function send(action) {
    try {
      const answer = await R.api("/api/commands", { body: { action }, token: state.token });
      showOk(answer.queued ? "Sent: the referee takes it in order." : answer.text || "Done.");
      state.picking = null;
    } catch (err) {
      showViolation(err);
    }
    renderPicker();
    refresh();
  }

  function complete(choose, picks) {
    for (const [field, spec] of Object.entries(choose)) {
      const got = picks[field];
      if ((spec.counts || []).length) {
        if (!Array.isArray(got) || !spec.counts.includes(got.length)) return false;
      }
      // a single field left out keeps the action's default (a pass with no card named: not seen)
    }
    return true;
  }

  function renderPicker() {
    const box = $("picker");
    const p = state.picking;
    if (!p) {
      box.hidden = true;
      replace(box, []);
      return;
    }
    const still = (state.me.buttons || []).find((b) => b.kind === p.button.kind && JSON.stringify(b.action) === JSON.stringify(p.button.action));
    if (still) p.button = still;
    const b = p.button;
    const parts = [el("p", { class: "group-title" }, b.label)];
    for (const [field, spec] of Object.entries(b.choose)) {
      const counts = spec.counts || [];
      const multi = counts.length > 0;
      const got = p.picks[field] || (multi ? [] : undefined);
      const label = multi
        ? "Pick " + counts.join(" or ") + " (" + field + "): tap a card once for each"
        : field === "call"
          ? "An announcement with it? (leave it out for none)"
          : spec.optional
            ? "Pick the " + field + " (or leave it out)"
            : "Pick the " + field;
      parts.push(el("p", {}, label));
      parts.push(
        el(
          "div",
          { class: "picker-cards", dataset: { field } },
          spec.choices.map((value) => {
            const pic = picture(String(value), field);
            const n = multi ? got.filter((x) => x === value).length : got === value ? 1 : 0;
            return el(
              "button",
              {
                type: "button",
                class: "pick" + (n ? " chosen" : ""),
                "data-testid": "pick-" + field + "-" + value,
                onclick: () => {
                  if (multi) {
                    const max = Math.max(...counts);
                    const list = (p.picks[field] || []).slice();
                    if (list.length < max) list.push(value);
                    p.picks[field] = list;
                  } else {
                    p.picks[field] = value;
                  }
                  renderPicker();
                },
              },
              [
                pic ? el("img", { src: pic.src, alt: pic.name }) : null,
                el("span", {}, pic ? pic.name : String(value)),
                el("span", { class: "count" }, multi && n ? "\u00d7" + n : ""),
              ]
            );
          })
        )
      );
      if (multi) {
        const named = got.map((v) => (picture(String(v), field) || { name: v }).name);
        parts.push(el("p", { class: "picked", "data-testid": "picked-" + field }, named.length ? "Picked: " + named.join(", ") : "Nothing picked yet."));
      }
    }
    const ready = complete(b.choose, p.picks);
    parts.push(
      el("div", { class: "row" }, [
        el("button", { type: "button", class: "secondary", "data-testid": "pick-clear", onclick: () => { p.picks = {}; renderPicker(); } }, "Start again"),
        el("button", { type: "button", class: "secondary", "data-testid": "pick-cancel", onclick: () => { state.picking = null; renderPicker(); } }, "Cancel"),
      ])
    );
    const unpicked = Object.entries(b.choose).filter(([f, spec]) => !(spec.counts || []).length && p.picks[f] === undefined).map(([f]) => f);
    const sendText = unpicked.length ? "Send (no " + unpicked.join(", ") + " named)" : "Send";
    parts.push(el("button", { type: "button", class: "call", "data-testid": "pick-send", disabled: !ready, onclick: () => send({ ...b.action, ...p.picks }) }, sendText));
    replace(box, parts);
    box.hidden = false;
  }

  // -- the team's secret signal ------------------------------------------------------------------
  function renderTeam() {
    const me = state.me;
    const box = $("team-secret");
    box.hidden = !me.team || me.role.scorer;
    if (box.hidden) return;
    $("pin-form").hidden = !!me.team_unlocked;
    $("secret-box").hidden = !me.team_unlocked;
    if (me.team_unlocked && !state.secret) loadSecret();
  }

  async function loadSecret() {
    try {
      state.secret = await R.api("/api/teams/" + encodeURIComponent(state.me.team) + "/secret", { token: state.token });
    } catch (err) {
      showViolation(err);
    }
  }

  async function unlock() {
    const pin = $("pin").value.trim();
    try {
      const answer = await R.api("/api/teams/" + encodeURIComponent(state.me.team) + "/unlock", { body: { pin }, token: state.token });
      $("pin").value = "";
      if (answer.token && answer.token !== state.token) {
        localStorage.setItem(KEY, answer.token);
        state.token = answer.token;
      }
      showOk("Unlocked: only this phone shows your team's signal. Keep it to yourself.");
      await refresh();
    } catch (err) {
      showViolation(err);
    }
  }

  async function toggleSecret() {
    const box = $("secret");
    if (box.hidden) await loadSecret();
    if (!state.secret) return;
    if (!box.hidden) {
      box.hidden = true;
      replace(box, []);
      $("show-secret").textContent = "Show our signal";
      return;
    }
    const s = state.secret && state.secret.signal;
    const practice = (state.secret && state.secret.practice) || [];
    replace(box, [
      el("p", {}, s ? [el("strong", {}, "Our signal: "), s.text] : ["No signal is set for your team."]),
      practice.length
        ? el("div", { class: "practice", "data-testid": "practice" }, [
            el("p", { class: "group-title" }, "What the referee saw of us"),
            el(
              "ul",
              {},
              practice
                .slice()
                .reverse()
                .map((p) =>
                  el("li", { class: p.theirs ? "ours" : "" }, [
                    p.player + ": " + String(p.signal || "").replace(/_/g, " "),
                    p.confidence !== null && p.confidence !== undefined ? " (" + Math.round(p.confidence * 100) + "% sure)" : "",
                    p.theirs ? " \u2014 our signal" : "",
                  ])
                )
            ),
          ])
        : null,
    ]);
    box.hidden = false;
    $("show-secret").textContent = "Hide our signal";
  }

  // -- the scorer's corrections ------------------------------------------------------------------
  function renderCorrections() {
    const me = state.me;
    const box = $("corrections");
    box.hidden = !me.role.scorer;
    if (box.hidden) return;
    const c = me.corrections || { in_effect: [], last: null };
    const entries = (c.in_effect || []).slice(-8).reverse();
    // a table update redraws the box: what the scorer was typing, and where, stays
    const typing = (id) => {
      const old = box.querySelector('[data-testid="' + id + '"]');
      return old ? { value: old.value, focused: document.activeElement === old, at: old.selectionStart } : null;
    };
    const kept = { "amend-line": typing("amend-line"), "note-line": typing("note-line") };
    const amendInput = el("input", { "data-testid": "amend-line", placeholder: "e.g. caught Anna Ben", autocomplete: "off" });
    const noteInput = el("input", { "data-testid": "note-line", placeholder: "a note for the log", autocomplete: "off" });
    replace(box, [
      el("h2", {}, "Corrections"),
      el("button", { type: "button", class: "secondary", "data-testid": "undo-last", disabled: c.last === null, onclick: () => typed("undo") }, "Undo the last entry"),
      el("p", { class: "last" }, "Amend an entry: write what it should have been, then tap Amend next to it."),
      amendInput,
      el(
        "ol",
        { class: "entries" },
        entries.map((e) =>
          el("li", { dataset: { entry: e.entry } }, [
            el("div", { class: "entry" }, "#" + e.entry + " " + ((e.lines || []).slice(1).join(" ") || e.text)),
            el("div", { class: "row" }, [
              el("button", { type: "button", class: "secondary", "data-testid": "undo-" + e.entry, onclick: () => typed("undo " + e.entry) }, "Undo"),
              el("button", {
                type: "button",
                class: "secondary",
                "data-testid": "amend-" + e.entry,
                onclick: () => {
                  const line = amendInput.value.trim();
                  if (!line) return showViolation({ name: "NothingToAmend", message: "write what the entry should have been first" });
                  typed("amend " + e.entry + " " + line);
                },
              }, "Amend"),
            ]),
          ])
        )
      ),
      el("div", { class: "row" }, [noteInput, el("button", { type: "button", class: "secondary", onclick: () => noteInput.value.trim() && typed("note " + noteInput.value.trim()) }, "Note")]),
    ]);
    for (const [input, was] of [[amendInput, kept["amend-line"]], [noteInput, kept["note-line"]]]) {
      if (!was) continue;
      input.value = was.value;
      if (was.focused) {
        input.focus();
        input.setSelectionRange(was.at, was.at);
      }
    }
  }

  async function typed(command) {
    try {
      const answer = await R.api("/api/commands", { body: { command }, token: state.token });
      showOk(answer.text || "Done.");
    } catch (err) {
      showViolation(err);
    }
    refresh();
  }

  // -- start ----------------------------------------------------------------------------------------
  $("unlock").addEventListener("click", unlock);
  $("pin").addEventListener("keydown", (e) => e.key === "Enter" && unlock());
  $("show-secret").addEventListener("click", toggleSecret);
  $("leave").addEventListener("click", () => {
    localStorage.removeItem(KEY);
    if (state.socket) state.socket.close();
    state.socket = null;
    state.me = null;
    state.secret = null;
    showJoin();
  });
  readHash();
  const saved = localStorage.getItem(KEY);
  if (saved) start(saved);
  else showJoin();
  window.phone = { state, refresh };
})();
