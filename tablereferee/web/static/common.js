/* Shared pieces of the table screen and the phone (plain JavaScript, no framework).

   referee.api(path, {method, body, token})   -> the JSON answer; a refusal throws a RefereeFailure
   referee.live(token, onTable, onState)      -> a WebSocket to /ws that reconnects by itself
   referee.el("div", {class: "x"}, children)  -> a DOM element
   referee.egg("dollar-3", {faceUp, small})   -> an egg drawn as an oval with its Guild and number
   referee.pyramid(places, {guild})           -> the Egg Pyramid: b1 b2 b3 / m1 m2 / top
   referee.cardName("3S", deck)               -> "3 di spade"

   Everything a page shows comes from the server already in words (referee.voice); these helpers
   only lay it out. A page never draws a team's signal unless its own team's PIN unlocked it.
*/
(function () {
  "use strict";

  class RefereeFailure extends Error {
    constructor(status, error) {
      super((error && error.message) || "the server refused");
      this.status = status;
      this.name = (error && error.name) || "Refused";
      this.details = error || {};
    }
  }

  async function api(path, options) {
    const opts = options || {};
    const headers = { Accept: "application/json" };
    if (opts.token) headers.Authorization = "Bearer " + opts.token;
    const init = { method: opts.method || (opts.body !== undefined ? "POST" : "GET"), headers };
    if (opts.body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(opts.body);
    }
    let answer;
    try {
      answer = await fetch(path, init);
    } catch (err) {
      throw new RefereeFailure(0, { name: "NoConnection", message: "the table's server does not answer: check the network" });
    }
    let data = null;
    try {
      data = await answer.json();
    } catch (err) {
      data = null;
    }
    if (!answer.ok) {
      throw new RefereeFailure(answer.status, (data && data.error) || { name: "Refused", message: answer.statusText });
    }
    return data;
  }

  /* The live table: the TableView on connecting, then after every change. A dropped connection
     is opened again by itself (0.3 s, then longer up to 5 s); each new connection brings the
     table as it is now, so nothing is missed. */
  function live(token, onTable, onState) {
    let socket = null;
    let delay = 300;
    let stopped = false;
    let timer = null;
    const state = (s) => {
      document.body.dataset.connection = s;
      if (onState) onState(s);
    };
    function open() {
      const scheme = location.protocol === "https:" ? "wss://" : "ws://";
      const query = token ? "?token=" + encodeURIComponent(token) : "";
      state("connecting");
      socket = new WebSocket(scheme + location.host + "/ws" + query);
      socket.onopen = () => {
        delay = 300;
        state("open");
      };
      socket.onmessage = (message) => {
        let data;
        try {
          data = JSON.parse(message.data);
        } catch (err) {
          return;
        }
        if (data.type === "error") {
          state("refused");
          if (onState) onState("refused", data.error);
          return;
        }
        onTable(data);
      };
      socket.onclose = () => {
        socket = null;
        if (stopped) return;
        state("reconnecting");
        timer = setTimeout(open, delay);
        delay = Math.min(delay * 2, 5000);
      };
      socket.onerror = () => {
        if (socket) socket.close();
      };
    }
    open();
    window.addEventListener("online", () => {
      if (!socket && !stopped) {
        clearTimeout(timer);
        open();
      }
    });
    return {
      close() {
        stopped = true;
        clearTimeout(timer);
        if (socket) socket.close();
      },
      reopen(newToken) {
        token = newToken;
        if (socket) socket.close();
        else open();
      },
    };
  }

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "dataset") Object.assign(node.dataset, value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of [].concat(children || [])) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function replace(node, children) {
    node.replaceChildren(...[].concat(children || []).filter((c) => c !== null && c !== undefined && c !== false));
  }

  function cap(text) {
    const s = String(text || "");
    return s ? s[0].toUpperCase() + s.slice(1) : s;
  }

  /* What the referee waits for, for people: the terminal's command syntax (`reveal Carla CARD`)
     is left out; the words stay. */
  function plain(text) {
    return String(text || "")
      .replace(/:\s*`[^`]*`(\s*\([^)]*\))?/g, "")
      .replace(/`/g, "")
      .trim();
  }

  function names(list) {
    const items = (list || []).map(String);
    if (items.length <= 1) return items.join("");
    return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
  }

  // -- Beccato!'s eggs ---------------------------------------------------------------------
  const GUILDS = {
    dollar: { mark: "$", word: "Dollar" },
    star: { mark: "\u2605", word: "Star" },
    moon: { mark: "\u263D", word: "Moon" },
    sun: { mark: "\u2600", word: "Sun" },
  };

  function eggParts(id) {
    const text = String(id || "");
    const m = /^([a-z]+)-(\d+)$/.exec(text);
    if (m) return { guild: m[1], number: m[2] };
    return { guild: text, number: "" };
  }

  function eggName(id) {
    if (id === "chick") return "the Chick";
    const p = eggParts(id);
    const g = GUILDS[p.guild];
    return g ? g.word + " " + p.number : String(id);
  }

  function egg(id, options) {
    const opts = options || {};
    if (!id) return el("span", { class: "egg egg-empty" + (opts.small ? " small" : ""), title: "empty", "aria-label": "empty" });
    const p = eggParts(id);
    const faceDown = opts.faceUp === false;
    const chick = id === "chick";
    const guild = GUILDS[p.guild];
    const cls = ["egg", chick ? "egg-chick" : "guild-" + p.guild, faceDown ? "face-down" : "", opts.small ? "small" : ""];
    return el(
      "span",
      { class: cls.join(" "), title: eggName(id) + (faceDown ? " (face down)" : ""), dataset: { egg: id } },
      chick
        ? [el("span", { class: "egg-mark" }, "\u2726"), el("span", { class: "egg-number" }, "Chick")]
        : [el("span", { class: "egg-mark" }, guild ? guild.mark : "?"), el("span", { class: "egg-number" }, p.number)]
    );
  }

  const PYRAMID_ROWS = [["top"], ["m1", "m2"], ["b1", "b2", "b3"]];

  /* The Egg Pyramid: the top, the middle row, the base (b1 b2 b3); an empty place is dashed. */
  function pyramid(places, options) {
    const opts = options || {};
    return el(
      "div",
      { class: "pyramid" + (opts.small ? " small" : ""), "aria-label": "Egg Pyramid" },
      PYRAMID_ROWS.map((row) =>
        el(
          "div",
          { class: "pyramid-row" },
          row.map((place) => {
            const got = places[place];
            return el("div", { class: "pyramid-place" + (got ? "" : " empty"), dataset: { place } }, [
              got ? egg(got.egg, { faceUp: got.face_up, small: opts.small }) : el("span", { class: "egg egg-empty" + (opts.small ? " small" : "") }),
              el("span", { class: "place-name" }, place),
            ]);
          })
        )
      )
    );
  }

  // -- playing cards (Beccaccino, Bestia) -------------------------------------------------------
  const ITALIAN_RANKS = { A: "Asso", F: "Fante", C: "Cavallo", R: "Re" };
  const ITALIAN_SUITS = { C: "coppe", D: "denari", S: "spade", B: "bastoni" };
  const FRENCH_SUITS = { H: "\u2665", D: "\u2666", S: "\u2660", C: "\u2663" };
  const FRENCH_SUIT_WORDS = { H: "hearts", D: "diamonds", S: "spades", C: "clubs" };

  function cardName(id, deck) {
    const text = String(id || "");
    const m = /^(10|[A-Z0-9])([A-Z])$/.exec(text);
    if (!m) return text;
    const [, rank, suit] = m;
    if (deck === "italian" || (!deck && ITALIAN_RANKS[rank] && ITALIAN_SUITS[suit] && !FRENCH_SUITS[suit])) {
      return (ITALIAN_RANKS[rank] || rank) + " di " + (ITALIAN_SUITS[suit] || suit);
    }
    return rank + (FRENCH_SUITS[suit] || suit);
  }

  function suitName(suit, deck) {
    if (!suit) return "";
    if (deck === "italian") return ITALIAN_SUITS[suit] || suit;
    return (FRENCH_SUIT_WORDS[suit] || suit) + " " + (FRENCH_SUITS[suit] || "");
  }

  /* A card drawn as its picture (rendered by the server from the deck's templates) with its name. */
  function card(id, deck, options) {
    const opts = options || {};
    const name = cardName(id, deck);
    return el("figure", { class: "card" + (opts.small ? " small" : ""), dataset: { card: id } }, [
      el("img", { src: "/api/cards/" + encodeURIComponent(id) + ".png", alt: name, loading: "lazy" }),
      el("figcaption", {}, name),
    ]);
  }

  window.referee = { api, live, el, replace, cap, names, plain, egg, eggName, eggParts, pyramid, card, cardName, suitName, RefereeFailure, GUILDS };
})();
