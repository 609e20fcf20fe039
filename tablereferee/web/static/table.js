/* The table screen (`/`) and the game-over page (`/over`): the public TableView (docs/web.md),
   pushed over the WebSocket after every change. Readable from 3 m: big type, high contrast.

   The screen is the public's: it never draws a team's signal (the public view says "hidden",
   and this page does not even look at `view.signals`). */
(function () {
  "use strict";
  const R = window.referee;
  const { el, replace } = R;
  const $ = (id) => document.getElementById(id);
  // the game-over page is this page at /over: the final count alone
  const overPage = location.pathname === "/over";
  document.body.classList.toggle("over-page", overPage);
  const EVENTS = 10;
  let shownCameras = "";

  function thirds(n) {
    const t = Number(n) || 0;
    const whole = Math.floor(t / 3);
    const rest = t - whole * 3;
    const frac = rest === 1 ? "\u2153" : rest === 2 ? "\u2154" : "";
    return (whole || !frac ? String(whole) : "") + frac;
  }

  function plural(n, one, many) {
    return n + " " + (n === 1 ? one : many || one + "s");
  }

  // -- the parts every game shares ----------------------------------------------------------------
  function renderHead(t) {
    $("title").textContent = t.title || "Table referee";
    document.title = (t.title || "Table") + (overPage ? " - game over" : " - table screen");
    const join = t.join || {};
    if (join.code && !t.over) {
      $("join").hidden = false;
      $("join-code").textContent = join.code;
      $("join-url").textContent = join.url || "";
      if (!$("join-qr").getAttribute("src")) $("join-qr").src = "/api/join.svg";
    } else {
      $("join").hidden = true;
    }
  }

  function renderWaiting(t) {
    const box = $("waiting");
    box.classList.toggle("is-over", !!t.over);
    if (t.over) {
      box.textContent = "Game over" + (t.final && t.final.reason ? ": " + t.final.reason + "." : ".");
    } else {
      box.textContent = t.waiting_for ? "Waiting for: " + R.plain(t.waiting_for) : "";
    }
  }

  function eventText(e) {
    const lines = e.lines || [];
    // The first line says what was done, the next ones what came of it (the referee's words).
    if (lines.length > 1) return lines.slice(1).join(" ");
    return lines[0] || e.text || "";
  }

  function renderEvents(t) {
    const events = (t.events || []).slice(-EVENTS).reverse();
    const list = $("events");
    list.start = (t.events || []).length ? (t.events[t.events.length - 1].entry || 0) : 0;
    replace(
      list,
      events.length
        ? events.map((e, i) =>
            el("li", { class: "event" + (i === 0 ? " newest" : "") + (e.kind === "correction" ? " correction" : ""), value: e.entry, dataset: { entry: e.entry } }, [
              el("span", { class: "event-text" }, eventText(e)),
            ])
          )
        : [el("li", { class: "event none" }, "Nothing yet.")]
    );
  }

  function renderQuestions(t) {
    const box = $("questions");
    const qs = t.questions || [];
    box.hidden = qs.length === 0;
    replace(box, qs.length ? [el("h2", {}, "The referee asks"), ...qs.map((q) => el("p", { class: "question", dataset: { question: q.id } }, q.text))] : []);
  }

  function renderCameras(t) {
    const box = $("cameras");
    const cams = t.cameras || [];
    const key = cams.map((c) => c.name).join(",");
    box.hidden = cams.length === 0;
    if (key === shownCameras) return; // keep the streams open: only a new camera list redraws
    shownCameras = key;
    replace(
      box,
      cams.map((c) =>
        el("figure", { class: "camera", dataset: { camera: c.name } }, [
          el("img", { src: c.live, alt: "live camera " + c.name, "data-testid": "camera-" + c.name }),
          el("figcaption", {}, "camera " + c.name),
        ])
      )
    );
  }

  // -- Beccato! -------------------------------------------------------------------------------
  function beccato(t) {
    const v = t.view || {};
    const table = v.table || {};
    const options = table.options || {};
    const guilds = table.guilds || {};
    const scores = v.scores || {};
    const breeds = table.breeds || Object.keys(v.henhouses || {});
    const parts = [];
    $("round").textContent = [
      v.round ? "Round " + v.round : "",
      v.dealer ? v.dealer + " deals" : "",
      options.pass_direction ? "cards pass " + options.pass_direction : "",
      v.deck !== undefined ? plural(v.deck, "egg") + " left in the deck" : "",
    ]
      .filter(Boolean)
      .join(" \u00b7 ");

    if (v.call) {
      const c = v.call;
      const call = { coccode: "Coccod\u00e9", caught: "Caught!", chicchirichi: "Chicchirich\u00ec" }[c.call] || R.cap(c.call);
      let who = c.to_reveal && c.to_reveal.length ? " \u2014 to show their hand: " + R.names(c.to_reveal) : "";
      const shown = Object.entries(c.revealed || {}).map(([p, cards]) => p + " showed " + cards.map(R.cap).join(", "));
      if (c.correct === true || c.correct === false) who = " \u2014 " + (c.correct ? "right" : "wrong") + (shown.length ? ": " + shown.join("; ") : "");
      const cls = "call-banner" + (c.correct === true ? " right" : c.correct === false ? " wrong" : "");
      parts.push(el("div", { class: cls, "data-testid": "call" }, [el("strong", {}, call), " called by " + c.caller + who]));
    }

    parts.push(
      el("div", { class: "henhouses", "data-testid": "henhouses" }, [
        el("h2", {}, "Henhouses"),
        el(
          "div",
          { class: "henhouse-row" },
          breeds.map((b) => {
            const got = (v.henhouses || {})[b];
            return el("div", { class: "henhouse", dataset: { breed: b } }, [
              el("div", { class: "henhouse-name" }, R.cap(b)),
              R.egg(got),
              el("div", { class: "egg-caption" }, got ? R.eggName(got) : "empty"),
            ]);
          })
        ),
      ])
    );

    const teamCards = Object.entries(t.teams || {}).map(([team, members]) => {
      const score = scores[team] || {};
      const eggs = (v.collections || {})[team] || [];
      const guild = guilds[team];
      const g = R.GUILDS[guild];
      const line = (t.standings_lines || []).find((l) => l.startsWith(team + " ")) || "";
      let eggsShown;
      if (options.egg_pyramid) {
        const places = {};
        for (const e of eggs) if (e.place) places[e.place] = e;
        eggsShown = R.pyramid(places);
      } else {
        eggsShown = el("div", { class: "egg-row" }, eggs.length ? eggs.map((e) => R.egg(e.egg, { faceUp: e.face_up })) : [el("span", { class: "muted" }, "no eggs yet")]);
      }
      return el("div", { class: "team" + (score.excluded ? " excluded" : ""), dataset: { team } }, [
        el("div", { class: "team-head" }, [
          el("h3", {}, team),
          el("span", { class: "points", "data-testid": "points-" + team }, plural(score.points || 0, "point")),
        ]),
        el("div", { class: "team-sub" }, [
          R.names(members.map((m) => m + (m === v.dealer ? " (deals)" : ""))),
          g ? el("span", { class: "guild guild-" + guild }, " \u00b7 Guild " + g.mark + " " + g.word) : null,
        ]),
        el("div", { class: "team-eggs" }, [el("span", { class: "egg-count" }, plural(score.eggs || eggs.length, "egg")), eggsShown]),
        score.excluded ? el("p", { class: "excluded-why" }, "Excluded from winning: " + (line || "the pyramid cannot be completed.")) : null,
        options.egg_pyramid && line && !score.excluded ? el("p", { class: "team-line" }, line.replace(/^[^:]*:\s*/, "")) : null,
      ]);
    });
    parts.push(el("div", { class: "teams" }, teamCards));

    const sizes = v.hand_sizes || {};
    parts.push(
      el(
        "div",
        { class: "seats" },
        (t.players || []).map((p) =>
          el("span", { class: "seat" + (p.name === v.holder ? " holder" : "") + (p.name === v.dealer ? " dealer" : "") }, [
            p.name,
            sizes[p.name] !== undefined ? el("small", {}, " " + plural(sizes[p.name], "card")) : null,
          ])
        )
      )
    );
    return parts;
  }

  // -- Beccaccino ---------------------------------------------------------------------------
  const CALLS = { busso: "Busso (knock)", volo: "Volo (fly)", striscio: "Striscio (slide)", piombo: "Piombo" };

  function trick(cards, deck, turn) {
    return el("div", { class: "trick", "data-testid": "trick" }, [
      ...cards.map(([player, id]) => el("div", { class: "trick-card" }, [R.card(id, deck), el("div", { class: "trick-player" }, player)])),
      turn ? el("div", { class: "trick-card next" }, [el("div", { class: "card-slot" }, "?"), el("div", { class: "trick-player" }, turn + " to play")]) : null,
    ]);
  }

  function beccaccino(t) {
    const v = t.view || {};
    const deck = "italian";
    const parts = [];
    $("round").textContent = [
      v.hand ? "Hand " + v.hand : "",
      v.dealer ? v.dealer + " deals" : "",
      v.trick_no ? "trick " + v.trick_no + " of 10" : "",
      v.options && v.options.target ? "playing to " + v.options.target : "",
    ]
      .filter(Boolean)
      .join(" \u00b7 ");
    parts.push(
      el("div", { class: "big-facts" }, [
        el("div", { class: "fact", "data-testid": "trump" }, [el("span", { class: "fact-label" }, "Trump"), el("span", { class: "fact-value" }, v.trump ? R.suitName(v.trump, deck) : "not named yet")]),
        v.battezzante ? el("div", { class: "fact" }, [el("span", { class: "fact-label" }, "Named by"), el("span", { class: "fact-value" }, v.battezzante)]) : null,
        v.marafona ? el("div", { class: "fact" }, [el("span", { class: "fact-label" }, "Marafona"), el("span", { class: "fact-value" }, v.marafona.player + " (+3 for " + v.marafona.team.replace("+", " & ") + ")")]) : null,
      ])
    );
    parts.push(el("h2", {}, v.trick_no ? "Trick " + v.trick_no : "Trick"));
    parts.push(trick(v.trick || [], deck, v.turn));
    const calls = Object.entries(v.calls || {});
    if (calls.length) {
      parts.push(
        el("div", { class: "announcements", "data-testid": "announcements" }, [
          el("h2", {}, "Announcements"),
          ...calls.map(([p, c]) => el("p", {}, p + ": " + (CALLS[c.call] || R.cap(c.call)) + (c.trick ? " (trick " + c.trick + ")" : ""))),
        ])
      );
    }
    const taken = v.tricks_taken || {};
    parts.push(
      el(
        "div",
        { class: "teams" },
        Object.entries(v.teams || t.teams || {}).map(([team, members]) =>
          el("div", { class: "team", dataset: { team } }, [
            el("div", { class: "team-head" }, [el("h3", {}, team.replace("+", " & ")), el("span", { class: "points" }, plural((v.scores || {})[team] || 0, "point"))]),
            el("div", { class: "team-sub", "data-testid": "thirds-" + team }, "This hand: " + thirds((v.thirds || {})[team]) + (((v.thirds || {})[team] || 0) === 3 ? " point (" : " points (") + plural((v.thirds || {})[team] || 0, "third") + ")"),
            el("div", { class: "team-sub" }, "Tricks: " + members.map((m) => m + " " + (taken[m] || 0)).join(", ")),
          ])
        )
      )
    );
    if (v.last_trick) {
      const lt = v.last_trick;
      const cards = lt.cards || lt.trick || [];
      if (cards.length) parts.push(el("div", { class: "last-trick", "data-testid": "last-trick" }, [el("h2", {}, "Last trick" + (lt.winner ? ": " + lt.winner + " took it" : "")), trick(cards, deck, null)]));
    }
    return parts;
  }

  // -- Bestia ---------------------------------------------------------------------------------
  const STATUS = { in: "in", out: "out", waiting: "to speak", bestia: "in bestia" };

  function bestia(t) {
    const v = t.view || {};
    const deck = v.deck === "italian" || String(v.deck || "").startsWith("italian") ? "italian" : "french";
    const parts = [];
    $("round").textContent = [v.deal ? "Deal " + v.deal : "", v.dealer ? v.dealer + " deals" : "", v.trick_no ? "trick " + v.trick_no : "", v.variant ? v.variant + " Bestia" : ""]
      .filter(Boolean)
      .join(" \u00b7 ");
    parts.push(
      el("div", { class: "big-facts" }, [
        el("div", { class: "fact pot", "data-testid": "pot" }, [el("span", { class: "fact-label" }, "Pot"), el("span", { class: "fact-value" }, plural(v.pot || 0, "chip"))]),
        el("div", { class: "fact", "data-testid": "trump" }, [
          el("span", { class: "fact-label" }, "Trump"),
          v.trump_card ? R.card(v.trump_card, deck, { small: true }) : el("span", { class: "fact-value" }, "not turned up yet"),
        ]),
      ])
    );
    const status = v.status || {};
    const said = v.said || {};
    const won = v.tricks_won || {};
    parts.push(
      el(
        "div",
        { class: "players-chips", "data-testid": "chips" },
        (v.players || []).map((p) =>
          el("div", { class: "player-chips status-" + (status[p] || "none") + (p === v.turn ? " turn" : ""), dataset: { player: p } }, [
            el("div", { class: "pc-name" }, p + (p === v.dealer ? " (deals)" : "")),
            el("div", { class: "pc-chips" }, plural((v.stacks || {})[p] || 0, "chip")),
            el("div", { class: "pc-status" }, (STATUS[status[p]] || status[p] || "") + (status[p] === "in" ? " \u00b7 " + plural(won[p] || 0, "trick") : "")),
            (said[p] || []).length ? el("div", { class: "pc-said" }, "said: " + said[p].join(", ")) : null,
          ])
        )
      )
    );
    if ((v.trick || []).length || v.turn) {
      parts.push(el("h2", {}, v.trick_no ? "Trick " + v.trick_no : "Trick"));
      parts.push(trick(v.trick || [], deck, v.turn));
    }
    return parts;
  }

  function generic(t) {
    return [el("ul", { class: "standings" }, (t.standings_lines || []).map((l) => el("li", {}, l)))];
  }

  // -- game over ------------------------------------------------------------------------------
  function renderFinal(t) {
    const box = $("final");
    box.hidden = !t.over;
    if (!t.over) return;
    const f = t.final || {};
    const winners = f.winners || [];
    const parts = [
      el("h2", {}, "Game over"),
      el("p", { class: "winners", "data-testid": "winners" }, winners.length ? (f.shared ? "Shared win: " : "Winner: ") + R.names(winners) + (f.reason ? " \u2014 " + f.reason + "." : ".") : f.reason || ""),
    ];
    const teams = Object.entries(f.teams || {});
    if (teams.length) {
      parts.push(
        el(
          "div",
          { class: "final-teams" },
          teams.map(([team, s]) => {
            const pyr = s.pyramid;
            const body = [
              el("div", { class: "team-head" }, [el("h3", {}, team + (winners.includes(team) ? " \u2014 winner" : "")), el("span", { class: "points" }, plural(s.points || 0, "point"))]),
              t.game === "beccato" ? el("div", { class: "team-sub" }, plural(s.eggs || 0, "egg") + (s.own_eggs !== undefined ? ", " + s.own_eggs + " of their own Guild" : "")) : null,
            ];
            if (t.game !== "beccato") {
              if (s.excluded) body.push(el("p", { class: "excluded-why" }, "Excluded from winning."));
            } else if (pyr) {
              const places = pyr.places || {};
              body.push(R.pyramid(places));
              body.push(
                el("p", { class: "sum", "data-testid": "sum-" + team }, [
                  "Eggs " + pyr.plain_points + " + pyramid bonus " + pyr.bonus + " = ",
                  el("strong", {}, plural(pyr.points, "point")),
                ])
              );
              if (pyr.excluded) body.push(el("p", { class: "excluded-why" }, "Excluded: " + (pyr.why_excluded || "the pyramid cannot be completed") + "."));
            } else {
              body.push(el("div", { class: "egg-row" }, (s.cards || []).map((e) => R.egg(e.egg, { faceUp: e.face_up }))));
              if (s.excluded) body.push(el("p", { class: "excluded-why" }, "Excluded from winning."));
            }
            return el("div", { class: "team" + (winners.includes(team) ? " winner" : "") + (s.excluded ? " excluded" : ""), dataset: { team } }, body);
          })
        )
      );
    }
    parts.push(el("ul", { class: "standings" }, (t.standings_lines || []).map((l) => el("li", {}, l))));
    replace(box, parts);
  }

  const GAMES = { beccato, beccaccino, bestia };

  function render(t) {
    document.body.dataset.ready = String(!!t.ready);
    document.body.dataset.version = String(t.version);
    document.body.dataset.over = String(!!t.over);
    renderHead(t);
    renderWaiting(t);
    if (!t.ready) {
      replace($("game"), [el("p", { class: "big-hint" }, "No table yet: the scorer sets one up at /new.")]);
      return;
    }
    document.body.dataset.game = t.game;
    renderQuestions(t);
    renderCameras(t);
    renderEvents(t);
    renderFinal(t);
    replace($("game"), overPage && t.over ? [] : (GAMES[t.game] || generic)(t));
  }

  /* A challenge ready (a Caught! at the table, or a phone's Challenge): its replay over the
     screen, in the challenge page's own frame, until closed (or the next one replaces it). */
  function showChallenge(c) {
    const box = $("challenge-overlay");
    if (!box) return; // a page without the overlay (the game-over page)
    $("challenge-headline").textContent = c.headline;
    const frame = $("challenge-frame");
    if (frame.getAttribute("src") !== c.url) frame.setAttribute("src", c.url);
    box.hidden = false;
    document.body.dataset.challenge = String(c.number);
  }

  function closeChallenge() {
    $("challenge-overlay").hidden = true;
    $("challenge-frame").setAttribute("src", "about:blank");
    delete document.body.dataset.challenge;
  }

  if ($("challenge-overlay")) {
    $("challenge-close").addEventListener("click", closeChallenge);
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && !$("challenge-overlay").hidden) closeChallenge();
    });
  }

  R.live(null, (m) => (m.type === "challenge" ? showChallenge(m) : render(m)), (state) => {
    $("connection").hidden = state === "open";
  });
})();
