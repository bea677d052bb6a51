(function () {
  "use strict";
  // The qabase base browser (pipelines/release/browse.py). Every piece of log text is set with textContent:
  // nothing from the data is ever parsed as HTML. No request is made: the data is the JSON element below.
  var D = JSON.parse(document.getElementById("qabase-data").textContent);
  var PAGE = 200;

  function table(t) {
    return t.rows.map(function (r) {
      var o = {};
      t.fields.forEach(function (f, i) { o[f] = r[i]; });
      return o;
    });
  }
  var E = table(D.entries), Q = table(D.dropped);
  var byRank = {};
  E.forEach(function (e) { byRank[e.rank] = e; });

  // as the build's keys read text: NFKC, no invisible character (the page's data carries schemas/text.py's set)
  var INVISIBLE = new RegExp("[" + D.invisible + "]", "gu");
  function norm(s) { return String(s == null ? "" : s).normalize("NFKC").replace(INVISIBLE, "").toLowerCase(); }
  function hay(e) {
    if (e._hay == null) {
      var parts = [e.question, e.answer];
      e.aliases.forEach(function (a) { parts.push(a[0]); });
      e.viewpoints.forEach(function (v) { parts.push(v[0]); });
      e._hay = norm(parts.join("\n"));
    }
    return e._hay;
  }

  // --- a tiny DOM helper: strings become text nodes, never markup ---
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v == null || v === false) return;
        if (k === "text") el.textContent = v;
        else if (k === "class") el.className = v;
        else if (k.slice(0, 2) === "on") el.addEventListener(k.slice(2), v);
        else el.setAttribute(k, v === true ? "" : String(v));
      });
    }
    for (var i = 2; i < arguments.length; i++) add(el, arguments[i]);
    return el;
  }
  function add(el, c) {
    if (c == null || c === false) return;
    if (Array.isArray(c)) { c.forEach(function (x) { add(el, x); }); return; }
    el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
  function langOf(l) { return l === "zh" ? "zh" : (l === "en" ? "en" : null); }
  function fmt(x, d) { return x == null ? "–" : Number(x).toFixed(d == null ? 2 : d); }
  function int(x) { return x == null ? "–" : Number(x).toLocaleString("en"); }
  function clip(s, n) { s = String(s || ""); return s.length > n ? s.slice(0, n - 1) + "…" : s; }
  // text with the search's matches marked (as text nodes and <mark> elements; never markup)
  function marked(text, q) {
    text = String(text == null ? "" : text);
    var low = norm(text);
    if (!q || low.length !== text.length) return text;
    var out = [], at = 0, i;
    while ((i = low.indexOf(q, at)) >= 0) {
      out.push(text.slice(at, i), h("mark", null, text.slice(i, i + q.length)));
      at = i + q.length;
    }
    out.push(text.slice(at));
    return out;
  }
  // where a search matched when neither the question nor the answer shows it
  function matchedElsewhere(e, q) {
    if (!q || norm(e.question).indexOf(q) >= 0 || norm(e.answer).indexOf(q) >= 0) return null;
    var a = e.aliases.filter(function (x) { return norm(x[0]).indexOf(q) >= 0; })[0];
    if (a) return ["form: ", marked(clip(a[0], 120), q)];
    var v = e.viewpoints.filter(function (x) { return norm(x[0]).indexOf(q) >= 0; })[0];
    return v ? ["viewpoint: ", marked(clip(v[0], 120), q)] : null;
  }

  // --- state, kept in the URL hash ---
  var DEFAULTS = {view: "entries", q: "", flag: "", lang: "", type: "", minconf: "", minrel: "", sort: "rank",
                  entry: "", reason: "", dq: "", topic: ""};
  var S = {}, limit = PAGE;
  function readHash() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ""));
    Object.keys(DEFAULTS).forEach(function (k) { S[k] = p.has(k) ? p.get(k) : DEFAULTS[k]; });
    if (S.view !== "dropped" && S.view !== "decisions") S.view = "entries";
  }
  function hashOf() {
    var p = new URLSearchParams();
    Object.keys(DEFAULTS).forEach(function (k) { if (S[k] !== DEFAULTS[k] && S[k] != null) p.set(k, S[k]); });
    var s = p.toString();
    return s ? "#" + s : "#";
  }
  function writeHash(push) {
    var url = hashOf();
    if (url === (location.hash || "#")) return;
    try { history[push ? "pushState" : "replaceState"](null, "", url); } catch (err) { location.hash = url; }
  }

  // --- entries ---
  function counts(list, key) {
    var c = {};
    list.forEach(function (x) { [].concat(key(x)).forEach(function (k) { if (k !== "" && k != null) c[k] = (c[k] || 0) + 1; }); });
    return Object.keys(c).sort(function (a, b) { return c[b] - c[a] || (a < b ? -1 : 1); }).map(function (k) { return [k, c[k]]; });
  }
  var FLAGS = counts(E, function (e) { return e.flags.map(function (f) { return f.split(":")[0]; }); });
  var LANGS = counts(E, function (e) { return e.lang; });
  var TYPES = counts(E, function (e) { return e.qtype; });
  var SORTS = [["rank", "rank (most asked first)"], ["confidence", "confidence, lowest first"],
               ["-confidence", "confidence, highest first"], ["reliability", "reliability, lowest first"],
               ["-reliability", "reliability, highest first"], ["-distinct_answers", "distinct answers, most first"],
               ["-aliases", "forms (aliases), most first"], ["question", "question A→Z"]];

  function matches() {
    var q = norm(S.q.trim()), mc = parseFloat(S.minconf), mr = parseFloat(S.minrel);
    var out = E.filter(function (e) {
      if (q && hay(e).indexOf(q) < 0) return false;
      if (S.flag && !e.flags.some(function (f) { return f.split(":")[0] === S.flag; })) return false;
      if (S.lang && e.lang !== S.lang) return false;
      if (S.type && e.qtype !== S.type) return false;
      if (!inTopic(e)) return false;
      if (!isNaN(mc) && !(e.confidence >= mc)) return false;
      if (!isNaN(mr) && !(e.reliability >= mr)) return false;
      return true;
    });
    var key = S.sort.replace(/^-/, ""), dir = S.sort[0] === "-" ? -1 : 1;
    var val = key === "aliases" ? function (e) { return e.aliases.length + e.aliases_more; } : function (e) { return e[key]; };
    if (key === "question") out.sort(function (a, b) { return a.question.localeCompare(b.question) || a.rank - b.rank; });
    else if (key !== "rank") out.sort(function (a, b) { return dir * ((val(a) || 0) - (val(b) || 0)) || a.rank - b.rank; });
    return out;
  }

  // --- topics (topics.parquet): a filter and a list, most asked first; a row's click filters by its topic ---
  var TOPICS = D.topics || [];
  function inTopic(e) { return S.topic === "" || String(e.topic) === S.topic; }
  function topicSelect(set) {
    if (!TOPICS.length) return null;
    return select("topic", "Topic", [["", "any"]].concat(TOPICS.map(function (t) {
      return [String(t.topic), clip(t.name, 48) + " (" + t.size + ")"];
    })), S.topic, set("topic"));
  }
  function topicsPanel() {
    if (!TOPICS.length) return null;
    var body = h("tbody");
    TOPICS.forEach(function (t) {
      body.appendChild(h("tr", {"data-topic": t.topic, class: String(t.topic) === S.topic ? "sel" : null,
                                onclick: function () { S.topic = String(t.topic) === S.topic ? "" : String(t.topic); limit = PAGE; writeHash(false); render(); }},
        h("td", null, t.name), h("td", {class: "num"}, int(t.size)), h("td", {class: "num"}, int(t.asks)),
        h("td", {class: "num"}, int(t.flagged)), h("td", {class: "num"}, int(t.least_reliable))));
    });
    var named = TOPICS.filter(function (t) { return t.topic !== -1; }).length;
    return h("details", {id: "topics", open: S.topic !== "" ? true : null},
      h("summary", null, "Topics (" + named + "): review topic by topic; click one to filter, again to clear"),
      h("table", {class: "list", id: "topic-list"},
        h("thead", null, h("tr", null, h("th", null, "Topic (its words)"), h("th", {class: "num"}, "Entries"),
          h("th", {class: "num"}, "Asks"), h("th", {class: "num"}, "Flagged"), h("th", {class: "num"}, "Least reliable"))), body));
  }

  function select(name, label, options, value, onchange) {
    var s = h("select", {name: name, "aria-label": label, onchange: onchange});
    options.forEach(function (o) { s.appendChild(h("option", {value: o[0], text: o[1]})); });
    s.value = value;
    return h("label", null, label, s);
  }
  var timer = null;
  function entriesBar() {
    function set(k) { return function (ev) { S[k] = ev.target.value; limit = PAGE; writeHash(false); renderList(); }; }
    var search = h("input", {type: "search", name: "q", placeholder: "question, alias, answer, viewpoint…", value: S.q,
                             "aria-label": "search",
                             oninput: function (ev) {
                               clearTimeout(timer);
                               timer = setTimeout(function () { S.q = ev.target.value; limit = PAGE; writeHash(false); renderList(); }, 120);
                             }});
    search.value = S.q;
    var any = [["", "any"]];
    function num(k, label) {
      var i = h("input", {type: "number", name: k, min: 0, max: 1, step: 0.05, placeholder: "0", "aria-label": label, oninput: set(k)});
      i.value = S[k];
      return h("label", null, label, i);
    }
    return h("div", {class: "bar"},
      h("label", null, "Search", search),
      select("flag", "Flag", any.concat(FLAGS.map(function (f) { return [f[0], f[0] + " (" + f[1] + ")"]; })), S.flag, set("flag")),
      select("lang", "Language", any.concat(LANGS.map(function (f) { return [f[0], f[0] + " (" + f[1] + ")"]; })), S.lang, set("lang")),
      select("type", "Question type", any.concat(TYPES.map(function (f) { return [f[0], f[0] + " (" + f[1] + ")"]; })), S.type, set("type")),
      topicSelect(set),
      num("minconf", "Min confidence"), num("minrel", "Min reliability"),
      select("sort", "Sort by", SORTS, S.sort, set("sort")),
      h("button", {type: "button", onclick: function () {
        ["q", "flag", "lang", "type", "minconf", "minrel", "sort", "topic"].forEach(function (k) { S[k] = DEFAULTS[k]; });
        limit = PAGE; writeHash(false); render();
      }}, "Clear"));
  }
  function flagChips(flags) {
    return flags.map(function (f) { return h("span", {class: "chip " + f.split(":")[0], title: f}, f); });
  }
  function renderList() {
    var box = document.getElementById("results");
    if (!box) return;
    box.textContent = "";
    var list = matches(), q = norm(S.q.trim());
    add(box, h("div", {class: "count", id: "count"}, list.length.toLocaleString("en") + " of " + E.length.toLocaleString("en") + " entries"));
    if (!list.length) { add(box, h("div", {class: "empty"}, "No entry matches.")); return; }
    var body = h("tbody");
    list.slice(0, limit).forEach(function (e) {
      var tr = h("tr", {"data-rank": e.rank, class: String(e.rank) === S.entry ? "sel" : null, onclick: function () { openEntry(e.rank); }},
        h("td", {class: "num muted"}, e.rank),
        h("td", {class: "q", lang: langOf(e.lang)},
          h("a", {href: "#", onclick: function (ev) { ev.preventDefault(); }}, marked(e.question, q)),
          (function () {
            var more = e.aliases.length + e.aliases_more - 1;
            return more > 0 ? h("span", {class: "muted"}, " +" + more + (more === 1 ? " form" : " forms")) : null;
          })(),
          (function () { var m = matchedElsewhere(e, q); return m ? h("div", {class: "hit"}, m) : null; })()),
        h("td", {class: "a", lang: langOf(e.lang)}, marked(clip(e.answer, 160), q),
          e.as_of ? h("div", {class: "asof"}, e.as_of) : null),
        h("td", null, e.lang), h("td", null, e.qtype),
        h("td", {class: "num"}, int(e.frequency)), h("td", {class: "num"}, fmt(e.confidence)),
        h("td", {class: "num"}, fmt(e.reliability)), h("td", null, flagChips(e.flags), decidedChip(e)));
      body.appendChild(tr);
    });
    add(box, h("table", {class: "list", id: "entries"},
      h("thead", null, h("tr", null, h("th", {class: "num"}, "#"), h("th", null, "Question"), h("th", null, "Answer"),
        h("th", null, "Lang"), h("th", null, "Type"), h("th", {class: "num"}, "Asks"), h("th", {class: "num"}, "Conf."),
        h("th", {class: "num"}, "Rel."), h("th", null, "Flags"))), body));
    if (list.length > limit) {
      add(box, h("button", {type: "button", class: "more", onclick: function () { limit += PAGE; renderList(); }},
        "Show " + Math.min(PAGE, list.length - limit) + " more (" + (list.length - limit).toLocaleString("en") + " left)"));
    }
  }

  // --- one entry ---
  function openEntry(rank) { S.entry = String(rank); writeHash(true); renderDetail(); markSelected(); }
  function closeEntry() { S.entry = ""; writeHash(false); renderDetail(); markSelected(); }
  function markSelected() {
    var rows = document.querySelectorAll("#entries tbody tr");
    for (var i = 0; i < rows.length; i++) rows[i].className = rows[i].getAttribute("data-rank") === S.entry ? "sel" : "";
  }
  function bar(label, v) {
    var fill = h("div", {class: "fill" + (v == null ? "" : v < 0.5 ? " lo" : v < 0.8 ? " mid" : "")});
    fill.style.width = (v == null ? 0 : Math.max(0, Math.min(1, v)) * 100) + "%";
    return [h("span", null, label), h("div", {class: "track"}, fill), h("span", {class: "num"}, fmt(v, 3))];
  }
  function facts(pairs) {
    var dl = h("dl", {class: "facts"});
    pairs.forEach(function (p) { if (p[1] != null && p[1] !== "") { dl.appendChild(h("dt", null, p[0])); dl.appendChild(h("dd", null, p[1])); } });
    return dl;
  }
  function answerItem(a, lang) {
    // a[6]: why the answer is instruction-like ("" when not), a[7] its score, a[8] it did not vote
    return h("li", {class: a[8] || a[3] ? "na" : null, lang: lang},
      h("span", {class: "n", title: "rows with this answer"}, "×" + int(a[2])), " ", a[1],
      a[3] ? " " : null,
      a[3] ? h("span", {class: "chip non_answers", title: "judged a non-answer (score " + fmt(a[4], 3) + ")"}, "non-answer: " + (a[5] || "?")) : null,
      a[6] ? " " : null,
      a[6] ? h("span", {class: "chip instruction_like", title: "addresses the model reading it (score " + fmt(a[7], 3) + ")" + (a[8] ? "; it did not vote" : "; it voted (injection.policy flag)")}, "instruction-like: " + a[6]) : null);
  }
  function renderDetail() {
    var old = document.getElementById("detail"), shade = document.getElementById("shade");
    if (old) old.remove();
    if (shade) shade.remove();
    if (!S.entry) return;
    var e = byRank[S.entry];
    var lang = e ? langOf(e.lang) : null;
    var panel = h("aside", {id: "detail", role: "dialog", "aria-label": "entry"},
      h("button", {type: "button", class: "close", onclick: closeEntry, title: "close (Esc)"}, "Close ✕"));
    if (!e) {
      add(panel, h("p", {class: "empty"}, "Entry #" + S.entry + " is not on this page (the page holds ranks 1–" + E.length + ")."));
    } else {
      var ids = {};
      e.answers.forEach(function (a) { ids[a[0]] = a; });
      add(panel, [
        h("div", {class: "muted"}, "Entry #" + e.rank + " · " + e.lang + " · " + e.qtype + " · asked " + int(e.frequency) + " times"),
        h("h2", {lang: lang, id: "detail-question"}, e.question),
        h("div", null, flagChips(e.flags)),
        h("h3", null, "Answer"),
        h("div", {class: "answer", lang: lang, id: "detail-answer"}, e.answer),
        e.as_of ? h("div", {class: "asof", id: "detail-asof"}, e.as_of) : null,
        reviewBox(e),
        h("h3", null, "Confidence and reliability"),
        h("div", {class: "bars"}, bar("confidence", e.confidence), bar("reliability", e.reliability),
          Object.keys(e.parts).map(function (k) { return bar(k, e.parts[k]); })),
        h("h3", null, "Viewpoints (" + e.viewpoints.length + ")"),
        e.viewpoints.length ? h("div", {id: "viewpoints"}, e.viewpoints.map(function (v, i) {
          var missing = v[1].filter(function (id) { return !ids[id]; }).length;
          var rows = v[1].reduce(function (n, id) { return n + (ids[id] ? ids[id][2] : 0); }, 0);
          return h("div", {class: "vp"},
            h("div", {class: "sum", lang: lang}, (i + 1) + ". " + v[0]),
            h("div", {class: "muted"}, "supported by " + v[1].length + " answer(s), " + int(rows) + " rows" +
              (missing ? " (" + missing + " not on this page)" : "")),
            h("ul", {class: "ans"}, v[1].filter(function (id) { return ids[id]; }).map(function (id) { return answerItem(ids[id], lang); })));
        })) : h("p", {class: "muted"}, "None (an objective question: one answer)."),
        h("h3", null, "Forms asked (" + (e.aliases.length + e.aliases_more) + ")"),
        h("ul", {class: "ans", id: "aliases"}, e.aliases.map(function (a) {
          return h("li", {lang: lang}, h("span", {class: "n"}, "×" + int(a[1])), " ", a[0]);
        }), e.aliases_more ? h("li", {class: "muted"}, "… and " + e.aliases_more + " more forms, not on this page") : null),
        h("h3", null, "Every answer given (" + int(e.distinct_answers) + " distinct, " + int(e.total_answers) + " rows)"),
        h("ul", {class: "ans", id: "answers"}, e.answers.map(function (a) { return answerItem(a, lang); }),
          e.answers_more[0] ? h("li", {class: "muted"}, "… and " + e.answers_more[0] + " more answers (" + int(e.answers_more[1]) + " rows), not on this page") : null),
        h("h3", null, "Facts"),
        facts([["rank", e.rank], ["asks (frequency)", int(e.frequency)], ["language", e.lang],
               ["question type", e.qtype + (e.qtype_score != null ? " (subjective score " + fmt(e.qtype_score, 3) + ")" : "")],
               ["confidence", fmt(e.confidence, 3)], ["vote margin", fmt(e.vote_margin, 3)],
               ["reliability", fmt(e.reliability, 3)], ["method", e.method],
               ["flags", e.flags.join(", ") || "none"],
               ["answer rows", int(e.total_answers)], ["agreeing rows", int(e.agreeing)],
               ["contradicting rows", int(e.contradicting)], ["non-answer rows", int(e.non_answers)],
               ["time-sensitive", e.ts_reason ? "yes (" + e.ts_reason + ")" : "no"],
               ["logs period", e.period ? e.period[0] + " … " + e.period[1] : "no timestamps"],
               ["GEC score", fmt(e.gec, 3)], ["intent score", fmt(e.intent, 3)], ["qid", e.qid]]),
        h("p", {class: "muted"}, h("a", {href: hashWith({view: "entries", entry: String(e.rank)})}, "link to this entry"))
      ]);
    }
    document.body.appendChild(h("div", {id: "shade", onclick: closeEntry}));
    document.body.appendChild(panel);
    panel.scrollTop = 0;
  }
  function hashWith(over) {
    var keep = {};
    Object.keys(DEFAULTS).forEach(function (k) { keep[k] = S[k]; S[k] = DEFAULTS[k]; });
    Object.keys(over).forEach(function (k) { S[k] = over[k]; });
    var url = hashOf();
    Object.keys(keep).forEach(function (k) { S[k] = keep[k]; });
    return url;
  }

  // --- dropped questions ---
  function renderDropped(main) {
    var reasons = D.reasons;
    if (!reasons.length) { add(main, h("div", {class: "empty"}, "No question was dropped.")); return; }
    if (!reasons.some(function (r) { return r.reason === S.reason; })) S.reason = reasons[0].reason;
    var R = reasons.filter(function (r) { return r.reason === S.reason; })[0];
    add(main, h("div", {class: "reasons", id: "reasons"}, reasons.map(function (r) {
      return h("button", {type: "button", class: r.reason === S.reason ? "on" : null, "data-reason": r.reason,
                          onclick: function () { S.reason = r.reason; writeHash(false); render(); }},
        r.reason + " (" + int(r.total) + ")");
    })));
    var search = h("input", {type: "search", name: "dq", placeholder: "filter these questions…", "aria-label": "filter dropped questions",
      oninput: function (ev) { clearTimeout(timer); timer = setTimeout(function () { S.dq = ev.target.value; writeHash(false); renderDroppedRows(); }, 120); }});
    search.value = S.dq;
    add(main, h("div", {class: "bar"}, h("label", null, "Filter", search)));
    var t = D.thresholds, th = [];
    if (t.gec != null) th.push("GEC threshold " + t.gec);
    if (t.intent != null) th.push("intent threshold " + t.intent);
    add(main, h("div", {class: "note"}, "Reason ", h("b", null, R.reason), ": " + int(R.total) + " questions, ordered by " + R.order + ". ",
      R.shown < R.total ? h("b", null, "This page holds the first " + int(R.shown) + " of them (at most " + int(D.limits.dropped_per_reason) + " per reason); questions.parquet has them all. ") : "",
      th.length && /^low_/.test(R.reason) ? "A question is kept when its score is above the threshold (" + th.join(", ") + ")." : ""));
    add(main, h("div", {id: "dropped-rows"}));
    renderDroppedRows();
  }
  function renderDroppedRows() {
    var box = document.getElementById("dropped-rows");
    if (!box) return;
    box.textContent = "";
    var q = norm(S.dq.trim());
    var rows = Q.filter(function (d) { return d.reason === S.reason && (!q || norm(d.question + "\n" + d.merged_into).indexOf(q) >= 0); });
    add(box, h("div", {class: "count"}, rows.length.toLocaleString("en") + " questions shown"));
    if (!rows.length) { add(box, h("div", {class: "empty"}, "No question matches.")); return; }
    add(box, h("table", {class: "list", id: "dropped"},
      h("thead", null, h("tr", null, h("th", {class: "num"}, "#"), h("th", null, "Question"), h("th", null, "How close"),
        h("th", {class: "num"}, "Asks"), h("th", null, "Lang"), h("th", {class: "num"}, "GEC"), h("th", {class: "num"}, "Intent"),
        h("th", null, "Counted toward"), h("th", null, "Review"))),
      h("tbody", null, rows.map(function (d, i) {
        var entry = d.rank != null && byRank[d.rank];
        return h("tr", {onclick: entry ? function () { openEntry(d.rank); } : null, class: entry ? null : "inert",
                        title: entry ? "open the entry it counts toward" : null},
          h("td", {class: "num muted"}, i + 1),
          h("td", {class: "q", lang: langOf(d.lang)}, d.question),
          h("td", {class: "near"}, d.closeness, d.ts_reason ? h("span", {class: "chip time_sensitive"}, d.ts_reason) : null),
          h("td", {class: "num"}, int(d.frequency)), h("td", null, d.lang),
          h("td", {class: "num"}, fmt(d.gec, 3)), h("td", {class: "num"}, fmt(d.intent, 3)),
          h("td", {lang: entry ? langOf(entry.lang) : null}, entry ? "#" + d.rank + " " + clip(entry.question, 60) :
            (d.rank != null ? "entry #" + d.rank : ""), d.merged_into ? h("div", {class: "muted"}, clip(d.merged_into, 160)) : null),
          keepCell(d));
      }))));
  }

  // --- review decisions: made on the page, kept in this browser, exported as a review file ---
  // A decision is one line of a review file (`qabase build --review FILE`, docs/reference/outputs.md):
  // {"action": "exclude"|"answer"|"merge"|"split"|"time_sensitive"|"keep", "question": Q, ...}, naming questions
  // by their text. They are kept in localStorage under this version's key (D.review.key), so they outlive a reload
  // and stay apart from other bases' pages opened from the same disk (every file:// page shares one storage).
  var R = {key: (D.review && D.review.key) || ("qabase-review:" + (D.version || "?")), list: [], saved: true, error: ""};
  var CUT = /… \[[0-9,]+ more characters\]$/;  // browse.py's _cut: a text the page holds only in part
  var ACTIONS = {exclude: "exclude", answer: "set the answer", merge: "merge into", split: "split off",
                 time_sensitive: "time-sensitive", keep: "keep (into the ranking)"};
  function reviewLoad() {
    try {
      var raw = window.localStorage.getItem(R.key);
      var stored = raw ? JSON.parse(raw) : null;
      R.list = stored && Array.isArray(stored.decisions) ? stored.decisions.filter(function (x) {
        return x && x.line && ACTIONS[x.line.action] && typeof x.line.question === "string";
      }) : [];
    } catch (err) {
      R.list = []; R.saved = false; R.error = "this browser keeps nothing for this page (" + err.name + "): export before closing it";
    }
  }
  function reviewSave() {
    try {
      if (R.list.length) window.localStorage.setItem(R.key, JSON.stringify({format: 1, version: D.version, decisions: R.list}));
      else window.localStorage.removeItem(R.key);
      R.saved = true; R.error = "";
    } catch (err) {
      R.saved = false; R.error = "not saved in this browser (" + err.name + "): export before closing the page";
    }
  }
  // one decision per action and question (a split: per pair); a new one replaces the old
  function decisionId(line) { return line.action + "\u0000" + line.question + (line.action === "split" ? "\u0000" + line.from : ""); }
  function decide(line, note, rank) {
    note = String(note || "").trim();
    if (note) line.note = note;
    var id = decisionId(line);
    R.list = R.list.filter(function (x) { return decisionId(x.line) !== id; });
    R.list.push({line: line, rank: rank == null ? null : rank, made: new Date().toISOString()});
    reviewSave();
    reviewChanged();
  }
  function undo(id) {
    R.list = R.list.filter(function (x) { return decisionId(x.line) !== id; });
    reviewSave();
    reviewChanged();
  }
  function reviewChanged() {
    var tab = document.getElementById("tab-decisions");
    if (tab) tab.textContent = "Decisions (" + R.list.length + ")";
    if (S.view === "decisions") renderDecisions(document.querySelector("main"));
    else if (S.view === "dropped") renderDroppedRows();
    else renderList();
    if (S.entry) { var top = (document.getElementById("detail") || {}).scrollTop; renderDetail(); restoreScroll(top); }
  }
  function restoreScroll(top) { var p = document.getElementById("detail"); if (p && top) p.scrollTop = top; }
  function decisionsOn(questions) {
    return R.list.filter(function (x) {
      return questions.indexOf(x.line.question) >= 0 || (x.line.action === "split" && questions.indexOf(x.line.from) >= 0);
    });
  }
  function entryDecisions(e) { return decisionsOn([e.question]); }
  function describe(line) {
    var what = line.action === "answer" ? clip(line.answer, 200) : line.action === "merge" ? "into: " + line.into :
      line.action === "split" ? "from: " + line.from : line.action === "time_sensitive" ? (line.value ? "true" : "false") : "";
    return what;
  }
  function reviewLines() {
    return R.list.map(function (x) { return JSON.stringify(x.line) + "\n"; }).join("");
  }
  function decidedChip(e) {
    var n = entryDecisions(e).length;
    return n ? h("span", {class: "chip decided", title: "you made " + n + " review decision(s) on it on this page (not built yet)"}, "decided (" + n + ")") : null;
  }
  function decisionList(items, withQuestion) {
    return h("ul", {class: "decisions"}, items.map(function (x) {
      var id = decisionId(x.line);
      return h("li", {"data-action": x.line.action},
        h("b", null, ACTIONS[x.line.action]), " ",
        withQuestion ? h("span", {class: "dq"}, x.line.question) : null,
        describe(x.line) ? h("span", {class: "muted"}, (withQuestion ? " · " : "") + describe(x.line)) : null,
        x.line.note ? h("span", {class: "muted"}, " · note: " + x.line.note) : null, " ",
        h("button", {type: "button", class: "linkish undo", onclick: function () { undo(id); }}, "undo"));
    }));
  }
  // the controls on an opened entry
  function reviewBox(e) {
    var mine = entryDecisions(e);
    var box = h("details", {id: "review", open: mine.length ? true : null});
    add(box, h("summary", null, "Review this entry" + (mine.length ? " (" + mine.length + " decision(s))" : "")));
    if (CUT.test(e.question)) {
      add(box, h("p", {class: "muted"}, "This question is longer than the page holds; name it in a review file by hand."));
      return box;
    }
    var note = h("input", {type: "text", name: "review-note", maxlength: 2000, placeholder: "note (optional): why",
                           "aria-label": "note for the decision"});
    function act(id, label, make) {
      return h("button", {type: "button", id: id, onclick: function () {
        var line = make();
        if (line) decide(line, note.value, e.rank);
      }}, label);
    }
    var answer = h("textarea", {name: "review-answer", rows: 4, "aria-label": "the answer to serve", lang: langOf(e.lang)});
    answer.value = CUT.test(e.answer) ? "" : e.answer;
    var forms = e.aliases.slice(1).filter(function (a) { return !CUT.test(a[0]); });
    var split = h("select", {name: "review-split", "aria-label": "form to split off"},
      forms.map(function (a) { return h("option", {value: a[0], text: clip(a[0], 120) + " (×" + a[1] + ")"}); }));
    var into = h("select", {name: "review-merge-into", "aria-label": "entry to merge into"});
    function fillInto(text) {
      var q = norm(String(text || "").trim()), n = 0;
      into.textContent = "";
      E.forEach(function (o) {
        if (n >= 50 || o === e || CUT.test(o.question) || (q && hay(o).indexOf(q) < 0)) return;
        into.appendChild(h("option", {value: String(o.rank), text: "#" + o.rank + " " + clip(o.question, 110)}));
        n++;
      });
    }
    fillInto("");
    var find = h("input", {type: "search", name: "review-merge-search", placeholder: "find the entry…",
                           "aria-label": "find the entry to merge into", oninput: function (ev) { fillInto(ev.target.value); }});
    var ts = e.flags.indexOf("time_sensitive") >= 0;
    add(box, [
      h("div", {class: "rv"}, h("label", null, "Note (goes with the decision you make next)", note)),
      h("div", {class: "rv"}, act("review-exclude", "Exclude from the base", function () {
        return {action: "exclude", question: e.question};
      }), h("span", {class: "muted"}, " the next entry takes its place")),
      h("div", {class: "rv"}, h("label", null, "Set the answer", answer),
        act("review-answer", "Serve this answer", function () {
          var text = answer.value.trim();
          if (!text || text === e.answer) { answer.focus(); return null; }
          return {action: "answer", question: e.question, answer: text};
        })),
      h("div", {class: "rv"}, h("label", null, "Split a form off (it never shares an entry with this question again)",
        forms.length ? split : h("span", {class: "muted"}, "no other form on this page")),
        forms.length ? act("review-split", "Split it off", function () {
          return {action: "split", question: split.value, from: e.question};
        }) : null),
      h("div", {class: "rv"}, h("label", null, "Merge into another entry (its forms and asks join that entry)", find, into),
        act("review-merge", "Merge into it", function () {
          var other = byRank[into.value];
          return other ? {action: "merge", question: e.question, into: other.question} : null;
        })),
      h("div", {class: "rv"}, h("span", null, "Time-sensitive (now " + (ts ? "yes" : "no") + "): "),
        act("review-ts-yes", "mark time-sensitive", function () { return {action: "time_sensitive", question: e.question, value: true}; }),
        " ",
        act("review-ts-no", "mark not time-sensitive", function () { return {action: "time_sensitive", question: e.question, value: false}; })),
      mine.length ? decisionList(mine, false) : null
    ]);
    return box;
  }
  // on a dropped question: "keep" (into the ranking), or for a merged one "split off" (from the entry it joined;
  // the merges come least sure first, so this is where wrong merges are found)
  function keepCell(d) {
    var entry = d.rank != null && byRank[d.rank];
    var merged = d.reason === "merged";
    if (CUT.test(d.question) || (merged && (!entry || CUT.test(entry.question)))) return h("td");
    var line = merged ? {action: "split", question: d.question, from: entry.question} : {action: "keep", question: d.question};
    var made = R.list.filter(function (x) { return decisionId(x.line) === decisionId(line); })[0];
    if (made) {
      return h("td", {class: "keep"}, h("span", {class: "chip decided"}, merged ? "split off" : "keep"), " ",
        h("button", {type: "button", class: "linkish undo", onclick: function (ev) { ev.stopPropagation(); undo(decisionId(made.line)); }}, "undo"));
    }
    var note = h("input", {type: "text", name: "keep-note", placeholder: "note (optional)", "aria-label": "note",
                           onclick: function (ev) { ev.stopPropagation(); }});
    return h("td", {class: "keep"}, note,
      h("button", {type: "button", class: merged ? "split" : "keep",
                   title: merged ? "never in one entry with #" + d.rank + " again" : "into the ranking although the filter dropped it",
                   onclick: function (ev) { ev.stopPropagation(); decide(line, note.value, d.rank); }}, merged ? "split off" : "keep"));
  }
  // the Decisions tab: every decision, undo, and the review file to download or copy
  function renderDecisions(main) {
    if (!main) return;
    main.textContent = "";
    var text = reviewLines();
    add(main, h("div", {class: "note"}, "Decisions made on this page are kept in this browser (for version " + (D.version || "?") +
      ") until you undo them. Export them as a review file and build with it: ", h("code", null, "qabase build … --review FILE"),
      " (append the lines to the review file you already use; each line names a question by its text)."));
    if (R.error) add(main, h("div", {class: "note warn", id: "review-error"}, R.error));
    if (!R.list.length) {
      add(main, h("div", {class: "empty", id: "decisions-empty"}, "No decision yet: open an entry and use \"Review this entry\", or keep a dropped question."));
      return;
    }
    var status = h("span", {class: "muted", id: "export-status"});
    var area = h("textarea", {id: "review-file", readonly: true, rows: Math.min(12, R.list.length + 1), "aria-label": "the review file"});
    area.value = text;
    var clear = h("button", {type: "button", id: "decisions-clear", onclick: function () {
      if (clear.getAttribute("data-armed")) { R.list = []; reviewSave(); reviewChanged(); return; }
      clear.setAttribute("data-armed", "1");
      clear.textContent = "Click again to drop all " + R.list.length + " decisions";
    }}, "Clear all");
    add(main, h("div", {class: "bar"},
      h("button", {type: "button", id: "decisions-download", onclick: function () {
        var url = URL.createObjectURL(new Blob([reviewLines()], {type: "application/x-ndjson;charset=utf-8"}));
        var a = h("a", {href: url, download: "review-" + (D.version || "base") + ".jsonl"});
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
        status.textContent = "downloaded " + R.list.length + " decision(s)";
      }}, "Download review file (.jsonl)"),
      h("button", {type: "button", id: "decisions-copy", onclick: function () {
        function fallback() {
          area.focus(); area.select();
          var ok = false;
          try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
          status.textContent = ok ? "copied" : "select the text below and copy it";
        }
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(reviewLines()).then(function () { status.textContent = "copied"; }, fallback);
        } else fallback();
      }}, "Copy"), clear, status));
    add(main, h("table", {class: "list", id: "decisions"},
      h("thead", null, h("tr", null, h("th", {class: "num"}, "#"), h("th", null, "Action"), h("th", null, "Question"),
        h("th", null, "What"), h("th", null, "Note"), h("th", null, ""))),
      h("tbody", null, R.list.map(function (x, i) {
        var id = decisionId(x.line), entry = x.rank != null && byRank[x.rank];
        return h("tr", {"data-action": x.line.action, class: entry ? null : "inert",
                        onclick: entry ? function () { openEntry(x.rank); } : null},
          h("td", {class: "num muted"}, i + 1), h("td", null, ACTIONS[x.line.action]),
          h("td", {class: "q"}, x.line.question), h("td", null, describe(x.line)), h("td", {class: "muted"}, x.line.note || ""),
          h("td", null, h("button", {type: "button", class: "linkish undo", onclick: function (ev) { ev.stopPropagation(); undo(id); }}, "undo")));
      }))));
    add(main, h("label", {class: "file"}, "The review file (JSON lines)", area));
  }
  reviewLoad();
  // another tab of this page changed the decisions: show them (else its next save would drop this tab's)
  window.addEventListener("storage", function (ev) { if (ev.key === R.key) { reviewLoad(); reviewChanged(); } });

  // --- the page ---
  function render() {
    var app = document.getElementById("app");
    app.textContent = "";
    var L = D.limits;
    var dropped = D.reasons.reduce(function (n, r) { return n + r.total; }, 0);
    var links = [h("a", {href: "report.html"}, "the report")];
    if (D.data_docs) links.push(" · ", h("a", {href: D.data_docs}, "Data Docs"));
    var header = h("header", null,
      h("h1", null, "qabase base browser"),
      h("p", {class: "sub"}, "Version " + (D.version || "?") + (D.created ? ", built " + D.created : "") + " · " +
        int(L.entries_total) + " published entries · " + int(dropped) + " dropped questions · ", links),
      h("nav", {class: "tabs"},
        h("button", {type: "button", id: "tab-entries", class: S.view === "entries" ? "on" : null,
                     onclick: function () { S.view = "entries"; writeHash(false); render(); }}, "Entries (" + int(L.entries_total) + ")"),
        h("button", {type: "button", id: "tab-dropped", class: S.view === "dropped" ? "on" : null,
                     onclick: function () { S.view = "dropped"; writeHash(false); render(); }}, "Dropped questions (" + int(dropped) + ")"),
        h("button", {type: "button", id: "tab-decisions", class: S.view === "decisions" ? "on" : null,
                     onclick: function () { S.view = "decisions"; writeHash(false); render(); }}, "Decisions (" + R.list.length + ")")));
    var main = h("main");
    app.appendChild(header);
    app.appendChild(main);
    if (S.view === "dropped") {
      renderDropped(main);
    } else if (S.view === "decisions") {
      renderDecisions(main);
    } else {
      add(main, entriesBar());
      add(main, topicsPanel());
      if (L.entries_shown < L.entries_total) {
        add(main, h("div", {class: "note"}, "This page holds the " + int(L.entries_shown) + " most asked of the " + int(L.entries_total) +
          " entries (a size bound); qa.parquet has them all."));
      }
      add(main, h("div", {class: "note"}, "Search looks for the text anywhere in the question, its other forms, the answer and the viewpoint " +
        "summaries (case-insensitive). Each entry shows at most " + L.max_answers + " answers and " + L.max_aliases +
        " forms, the most frequent first. Click a row to open the entry."));
      add(main, h("div", {id: "results"}));
      renderList();
    }
    renderDetail();
  }

  readHash();
  render();
  window.addEventListener("hashchange", function () { readHash(); limit = PAGE; render(); });
  window.addEventListener("popstate", function () { readHash(); limit = PAGE; render(); });
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && S.entry) closeEntry(); });
  document.documentElement.setAttribute("data-ready", "1");
})();
